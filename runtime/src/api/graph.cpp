// Graph and distributed graph topologies.
#include <algorithm>

#include "api/runtime.hpp"
#include "api/topology.hpp"

using namespace si::api;

// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: addresses no program's array has.
namespace {
int weight_markers[2];
}  // namespace
extern "C" {
int* const MPI_UNWEIGHTED = &weight_markers[0];
int* const MPI_WEIGHTS_EMPTY = &weight_markers[1];
}

namespace {

int start(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    return call.intracommunicator(comm, c);
}

int start_topology(Call& call, MPI_Comm comm, int kind, Communicator*& c, const Topology*& t) {
    if (int rc = start(call, comm, c)) return rc;
    return topology_of(call, *c, kind, t);
}

// A list of `count` neighbours of a communicator of `size` ranks.
int check_neighbors(Call& call, int count, const int* ranks, int size, const char* name) {
    if (count < 0) return call.fail(MPI_ERR_ARG, "the degree for {} is {}", name, count);
    if (count > 0)
        if (int rc = call.not_null(ranks, name)) return rc;
    for (int i = 0; i < count; ++i)
        if (ranks[i] < 0 || ranks[i] >= size)
            return call.fail(MPI_ERR_RANK, "{}[{}] is {}; valid ranks are 0..{}", name, i, ranks[i],
                             size - 1);
    return MPI_SUCCESS;
}

// The weights of a distributed graph's edges: MPI_UNWEIGHTED or an array;
// with no edges anything goes (MPI_WEIGHTS_EMPTY, or NULL as MPICH accepts).
int check_weights(Call& call, int count, const int* weights, const char* name) {
    if (weights == MPI_UNWEIGHTED || count == 0) return MPI_SUCCESS;
    if (int rc = call.not_null(weights, name)) return rc;
    for (int i = 0; i < count; ++i)
        if (weights[i] < 0)
            return call.fail(MPI_ERR_ARG, "{}[{}] is {}; weights are 0 or more", name, i,
                             weights[i]);
    return MPI_SUCCESS;
}

std::vector<int> weights_of(int count, const int* weights) {
    if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY) return {};
    return std::vector<int>(weights, weights + count);
}

// Copies up to `max` items of v to out (which may be null when max is 0).
void copy_out(const std::vector<int>& v, int max, int* out) {
    const auto n = std::min(v.size(), static_cast<std::size_t>(std::max(max, 0)));
    std::copy_n(v.begin(), n, out);
}

}  // namespace

extern "C" {

// Ranks keep their order; ranks beyond nnodes get MPI_COMM_NULL.
#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm* comm_graph) {
    Call call("MPI_Graph_create");
    Communicator* c = nullptr;
    if (int rc = start(call, comm_old, c)) return rc;
    if (int rc = call.not_null(comm_graph, "comm_graph")) return rc;
    if (nnodes < 0 || nnodes > c->size())
        return call.fail(MPI_ERR_ARG, "nnodes is {}; valid: 0..{} (the ranks of comm_old)", nnodes,
                         c->size());
    if (nnodes > 0)
        if (int rc = call.not_null(index, "index")) return rc;
    Topology t;
    t.kind = MPI_GRAPH;
    t.index.assign(index, index + nnodes);
    for (int i = 0; i < nnodes; ++i)
        if (index[i] < (i == 0 ? 0 : index[i - 1]))
            return call.fail(MPI_ERR_ARG, "index[{}] is {}, less than the entry before it", i,
                             index[i]);
    const int edge_count = nnodes > 0 ? index[nnodes - 1] : 0;
    if (int rc = check_neighbors(call, edge_count, edges, nnodes, "edges")) return rc;
    t.edges.assign(edges, edges + edge_count);
    std::vector<int> world_of(c->world_of.begin(), c->world_of.begin() + nnodes);
    if (int rc = create_communicator(call, *c, std::move(world_of), c->rank, c->rank < nnodes,
                                     comm_graph))
        return rc;
    attach_topology(*comm_graph, std::move(t));
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
    Call call("MPI_Graph_map");
    Communicator* c = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.not_null(newrank, "newrank")) return rc;
    if (nnodes < 0 || nnodes > c->size())
        return call.fail(MPI_ERR_ARG, "nnodes is {}; valid: 0..{}", nnodes, c->size());
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
    Call call("MPI_Graphdims_get");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_GRAPH, c, t)) return rc;
    if (int rc = call.not_null(nnodes, "nnodes")) return rc;
    if (int rc = call.not_null(nedges, "nedges")) return rc;
    *nnodes = static_cast<int>(t->index.size());
    *nedges = static_cast<int>(t->edges.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    Call call("MPI_Graph_get");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_GRAPH, c, t)) return rc;
    copy_out(t->index, maxindex, index);
    copy_out(t->edges, maxedges, edges);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
    Call call("MPI_Graph_neighbors_count");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_GRAPH, c, t)) return rc;
    if (int rc = call.not_null(nneighbors, "nneighbors")) return rc;
    if (rank < 0 || rank >= c->size())
        return call.fail(MPI_ERR_RANK, "rank {} is outside the graph's {} nodes", rank, c->size());
    *nneighbors = static_cast<int>(neighborhood(*t, rank).out.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    Call call("MPI_Graph_neighbors");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_GRAPH, c, t)) return rc;
    if (rank < 0 || rank >= c->size())
        return call.fail(MPI_ERR_RANK, "rank {} is outside the graph's {} nodes", rank, c->size());
    std::vector<int> ranks;
    for (const si::coll::Edge& e : neighborhood(*t, rank).out) ranks.push_back(e.rank);
    copy_out(ranks, maxneighbors, neighbors);
    return MPI_SUCCESS;
}

// Every rank keeps its rank; each knows only its own edges.
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
    Call call("MPI_Dist_graph_create_adjacent");
    Communicator* c = nullptr;
    if (int rc = start(call, comm_old, c)) return rc;
    if (int rc = call.not_null(comm_dist_graph, "comm_dist_graph")) return rc;
    if (int rc = check_neighbors(call, indegree, sources, c->size(), "sources")) return rc;
    if (int rc = check_neighbors(call, outdegree, destinations, c->size(), "destinations"))
        return rc;
    if (int rc = check_weights(call, indegree, sourceweights, "sourceweights")) return rc;
    if (int rc = check_weights(call, outdegree, destweights, "destweights")) return rc;
    Topology t;
    t.kind = MPI_DIST_GRAPH;
    t.sources.assign(sources, sources + indegree);
    t.destinations.assign(destinations, destinations + outdegree);
    t.source_weights = weights_of(indegree, sourceweights);
    t.destination_weights = weights_of(outdegree, destweights);
    t.weighted = sourceweights != MPI_UNWEIGHTED;
    if (int rc = create_communicator(call, *c, c->world_of, c->rank, true, comm_dist_graph))
        return rc;
    attach_topology(*comm_dist_graph, std::move(t));
    return MPI_SUCCESS;
}

// Each rank names some edges anywhere in the graph; an all-to-all takes
// every edge to its two ends, as (end, neighbour, weight) triples, so that
// each rank learns its own in- and out-edges, ordered by the rank that named
// them and then as named.
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm* comm_dist_graph) {
    Call call("MPI_Dist_graph_create");
    Communicator* c = nullptr;
    if (int rc = start(call, comm_old, c)) return rc;
    if (int rc = call.not_null(comm_dist_graph, "comm_dist_graph")) return rc;
    if (int rc = check_neighbors(call, n, sources, c->size(), "sources")) return rc;
    if (n > 0)
        if (int rc = call.not_null(degrees, "degrees")) return rc;
    int edges = 0;
    for (int i = 0; i < n; ++i) {
        if (degrees[i] < 0)
            return call.fail(MPI_ERR_ARG, "degrees[{}] is {}; degrees are 0 or more", i,
                             degrees[i]);
        edges += degrees[i];
    }
    if (int rc = check_neighbors(call, edges, destinations, c->size(), "destinations"))
        return rc;
    if (int rc = check_weights(call, edges, weights, "weights")) return rc;

    enum : int { kOutEdge, kInEdge };
    const int size = c->size();
    std::vector<std::vector<int>> outgoing(size);
    for (int i = 0, edge = 0; i < n; ++i) {
        for (int k = 0; k < degrees[i]; ++k, ++edge) {
            const int weight = weights == MPI_UNWEIGHTED ? 0 : weights[edge];
            const int from = sources[i], to = destinations[edge];
            outgoing[from].insert(outgoing[from].end(), {kOutEdge, to, weight});
            outgoing[to].insert(outgoing[to].end(), {kInEdge, from, weight});
        }
    }
    std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
    std::vector<int> send;
    send.reserve(1);  // a valid buffer even when this rank sends nothing
    for (int r = 0; r < size; ++r) {
        send_displs[r] = static_cast<int>(send.size());
        send_counts[r] = static_cast<int>(outgoing[r].size());
        send.insert(send.end(), outgoing[r].begin(), outgoing[r].end());
    }
    if (int rc = PMPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT,
                               comm_old))
        return rc;
    int received = 0;
    for (int r = 0; r < size; ++r) {
        recv_displs[r] = received;
        received += recv_counts[r];
    }
    std::vector<int> recv(std::max(received, 1));  // never a null buffer
    if (int rc = PMPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_INT,
                                recv.data(), recv_counts.data(), recv_displs.data(), MPI_INT,
                                comm_old))
        return rc;
    Topology t;
    t.kind = MPI_DIST_GRAPH;
    // Decided by each rank, as MPICH does: anything but MPI_UNWEIGHTED
    // (MPI_WEIGHTS_EMPTY or NULL with no edges too) makes the graph weighted.
    t.weighted = weights != MPI_UNWEIGHTED;
    for (int i = 0; i + 2 < received; i += 3) {
        const bool out = recv[i] == kOutEdge;
        (out ? t.destinations : t.sources).push_back(recv[i + 1]);
        if (t.weighted) (out ? t.destination_weights : t.source_weights).push_back(recv[i + 2]);
    }
    if (int rc = create_communicator(call, *c, c->world_of, c->rank, true, comm_dist_graph))
        return rc;
    attach_topology(*comm_dist_graph, std::move(t));
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
    Call call("MPI_Dist_graph_neighbors_count");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_DIST_GRAPH, c, t)) return rc;
    if (int rc = call.not_null(indegree, "indegree")) return rc;
    if (int rc = call.not_null(outdegree, "outdegree")) return rc;
    if (int rc = call.not_null(weighted, "weighted")) return rc;
    *indegree = static_cast<int>(t->sources.size());
    *outdegree = static_cast<int>(t->destinations.size());
    *weighted = t->weighted ? 1 : 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
    Call call("MPI_Dist_graph_neighbors");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_topology(call, comm, MPI_DIST_GRAPH, c, t)) return rc;
    copy_out(t->sources, maxindegree, sources);
    copy_out(t->destinations, maxoutdegree, destinations);
    if (t->weighted && sourceweights != MPI_UNWEIGHTED)
        copy_out(t->source_weights, maxindegree, sourceweights);
    if (t->weighted && destweights != MPI_UNWEIGHTED)
        copy_out(t->destination_weights, maxoutdegree, destweights);
    return MPI_SUCCESS;
}

}  // extern "C"
