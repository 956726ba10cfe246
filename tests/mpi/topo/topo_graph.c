/*
 * Graph and distributed graph topologies: MPI_Graph_create on a complete
 * graph with the queries (Graphdims_get, Graph_get, Graph_neighbors(_count),
 * Topo_test), MPI_Dist_graph_create_adjacent on a ring where every rank
 * sends to the next two ranks (with weights, queried back), and the
 * neighbourhood collectives on it: alltoall, allgather, allgatherv,
 * alltoallv and alltoallw (one block received into a strided datatype);
 * MPI_Dist_graph_create with every edge named by rank 0 (weighted) and with
 * each rank naming its own edges (unweighted), checked through the queries
 * and a neighbour allgather.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size;

static int complete_graph(void) {
    int errs = 0;
    int* index = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* edges = mtest_malloc(sizeof(int) * (size_t)(g_size * g_size + 1));
    int e = 0;
    for (int r = 0; r < g_size; ++r) {
        for (int s = 0; s < g_size; ++s)
            if (s != r) edges[e++] = s;
        index[r] = e;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, g_size, index, edges, 0, &graph);
    int status, nnodes, nedges, count;
    MPI_Topo_test(graph, &status);
    errs += MT_EQ(status, MPI_GRAPH);
    MPI_Graphdims_get(graph, &nnodes, &nedges);
    errs += MT_EQ(nnodes, g_size);
    errs += MT_EQ(nedges, e);
    int* gindex = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* gedges = mtest_malloc(sizeof(int) * (size_t)(e + 1));
    MPI_Graph_get(graph, g_size, e, gindex, gedges);
    errs += MT_CHECK(memcmp(gindex, index, sizeof(int) * (size_t)g_size) == 0, "graph_get index");
    errs += MT_CHECK(memcmp(gedges, edges, sizeof(int) * (size_t)e) == 0, "graph_get edges");
    MPI_Graph_neighbors_count(graph, g_rank, &count);
    errs += MT_EQ(count, g_size - 1);
    int* neighbors = mtest_malloc(sizeof(int) * (size_t)g_size);
    MPI_Graph_neighbors(graph, g_rank, g_size, neighbors);
    for (int k = 0; k < count; ++k) errs += MT_EQ(neighbors[k], k < g_rank ? k : k + 1);

    /* Everyone sends its rank * 100 + k to neighbour k. */
    int* send = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* recv = mtest_malloc(sizeof(int) * (size_t)g_size);
    for (int k = 0; k < count; ++k) send[k] = g_rank * 100 + k;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, graph);
    for (int k = 0; k < count; ++k) {
        const int from = neighbors[k];
        /* I am neighbour number (g_rank < from ? g_rank : g_rank - 1) of `from`. */
        const int slot = g_rank < from ? g_rank : g_rank - 1;
        errs +=
            MT_CHECK(recv[k] == from * 100 + slot, "graph alltoall: from %d got %d", from, recv[k]);
    }
    free(send);
    free(recv);
    free(neighbors);
    free(gindex);
    free(gedges);
    free(index);
    free(edges);
    MPI_Comm_free(&graph);
    return errs;
}

static int value(int from, int k, int i) {
    return from * 1000 + k * 100 + i;
}

/* Rank r sends to r+1 and r+2, receives from r-1 and r-2 (mod size). */
static int ring(void) {
    int errs = 0;
    const int n = g_size;
    const int sources[2] = {(g_rank - 1 + n) % n, (g_rank - 2 + 2 * n) % n};
    const int dests[2] = {(g_rank + 1) % n, (g_rank + 2) % n};
    const int sweights[2] = {5, 6};
    const int dweights[2] = {7, 8};
    MPI_Comm dist;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sweights, 2, dests, dweights,
                                   MPI_INFO_NULL, 0, &dist);
    int status, indegree, outdegree, weighted;
    MPI_Topo_test(dist, &status);
    errs += MT_EQ(status, MPI_DIST_GRAPH);
    MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted);
    errs += MT_CHECK(indegree == 2 && outdegree == 2 && weighted, "counts %d %d %d", indegree,
                     outdegree, weighted);
    int s[2], sw[2], d[2], dw[2];
    MPI_Dist_graph_neighbors(dist, 2, s, sw, 2, d, dw);
    for (int k = 0; k < 2; ++k) {
        errs += MT_EQ(s[k], sources[k]);
        errs += MT_EQ(d[k], dests[k]);
        errs += MT_EQ(sw[k], sweights[k]);
        errs += MT_EQ(dw[k], dweights[k]);
    }

    /* Alltoall: out-block k to dests[k]; in-block k from sources[k], which
     * sent it as its out-block k. */
    int send[2] = {value(g_rank, 0, 0), value(g_rank, 1, 0)}, recv[2] = {-1, -1};
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, dist);
    /* With one rank both edges lead to itself; messages between the same two
     * ranks match in list order, which MPICH 4.0.2 does not do for a rank's
     * messages to itself. */
#ifndef SI_MPI
    if (n > 1)
#endif
        for (int k = 0; k < 2; ++k) errs += MT_EQ(recv[k], value(sources[k], k, 0));

    int all[2] = {-1, -1};
    MPI_Neighbor_allgather(&g_rank, 1, MPI_INT, all, 1, MPI_INT, dist);
    for (int k = 0; k < 2; ++k) errs += MT_EQ(all[k], sources[k]);

    /* Allgatherv: each rank sends 3 ints; block k lands at displs[k]. */
    int mine[3] = {value(g_rank, 9, 0), value(g_rank, 9, 1), value(g_rank, 9, 2)};
    int wide[8];
    for (int i = 0; i < 8; ++i) wide[i] = -1;
    const int counts3[2] = {3, 3}, displs[2] = {4, 0};
    MPI_Neighbor_allgatherv(mine, 3, MPI_INT, wide, counts3, displs, MPI_INT, dist);
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i) errs += MT_EQ(wide[displs[k] + i], value(sources[k], 9, i));
    errs += MT_EQ(wide[3], -1);
    errs += MT_EQ(wide[7], -1);

    /* Alltoallv: k + 1 ints to dests[k], from offset 2k. */
    int vsend[5], vrecv[6];
    const int scounts[2] = {1, 2}, sdispls[2] = {0, 2};
    const int rcounts[2] = {1, 2}, rdispls[2] = {3, 0};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i <= k; ++i) vsend[sdispls[k] + i] = value(g_rank, k, i);
    for (int i = 0; i < 6; ++i) vrecv[i] = -1;
    MPI_Neighbor_alltoallv(vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT,
                           dist);
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i <= k; ++i) errs += MT_EQ(vrecv[rdispls[k] + i], value(sources[k], k, i));

    /* Alltoallw: block 1 is received into every other int. */
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    const MPI_Datatype stypes[2] = {MPI_INT, MPI_INT};
    const MPI_Datatype rtypes[2] = {MPI_INT, every_other};
    const MPI_Aint sbytes[2] = {0, 2 * sizeof(int)};
    const MPI_Aint rbytes[2] = {0, 2 * sizeof(int)};
    int wrecv[6];
    for (int i = 0; i < 6; ++i) wrecv[i] = -1;
    MPI_Neighbor_alltoallw(vsend, scounts, sbytes, stypes, wrecv, rcounts, rbytes, rtypes, dist);
    errs += MT_EQ(wrecv[0], value(sources[0], 0, 0));
    errs += MT_EQ(wrecv[2], value(sources[1], 1, 0));
    errs += MT_EQ(wrecv[3], -1);
    errs += MT_EQ(wrecv[4], value(sources[1], 1, 1));
    errs += MT_EQ(wrecv[5], -1);
    MPI_Type_free(&every_other);
    MPI_Comm_free(&dist);
    return errs;
}

/* The weight of edge r -> r + 1 is r + 1, of r -> r + 3 it is 100 + r. */
static int has(const int* list, int n, int wanted) {
    for (int i = 0; i < n; ++i)
        if (list[i] == wanted) return 1;
    return 0;
}

static int general(int by_rank0) {
    int errs = 0;
    const int n = g_size;
    int sources[64], degrees[64], dests[128], weights[128];
    int count = 0, edges = 0;
    for (int r = 0; r < n; ++r) {
        if (by_rank0 ? g_rank != 0 : r != g_rank) continue;
        sources[count] = r;
        degrees[count++] = 2;
        dests[edges] = (r + 1) % n;
        weights[edges++] = r + 1;
        dests[edges] = (r + 3) % n;
        weights[edges++] = 100 + r;
    }
    MPI_Comm dist;
    MPI_Dist_graph_create(MPI_COMM_WORLD, count, sources, degrees, dests,
                          by_rank0 ? (count ? weights : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &dist);
    int indegree = -1, outdegree = -1, weighted = -1;
    MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted);
    errs += MT_CHECK(indegree == 2 && outdegree == 2 && weighted == by_rank0,
                     "counts %d %d weighted %d", indegree, outdegree, weighted);
    int in[2], inw[2], out[2], outw[2];
    MPI_Dist_graph_neighbors(dist, 2, in, inw, 2, out, outw);
    const int below1 = (g_rank - 1 + n) % n, below3 = ((g_rank - 3) % n + n) % n;
    errs += MT_CHECK(has(in, 2, below1) && has(in, 2, below3), "in-neighbours %d %d", in[0], in[1]);
    errs += MT_CHECK(has(out, 2, (g_rank + 1) % n) && has(out, 2, (g_rank + 3) % n),
                     "out-neighbours %d %d", out[0], out[1]);
    if (by_rank0 && n > 3) {
        for (int k = 0; k < 2; ++k) {
            errs += MT_EQ(inw[k], in[k] == below1 ? below1 + 1 : 100 + below3);
            errs += MT_EQ(outw[k], out[k] == (g_rank + 1) % n ? g_rank + 1 : 100 + g_rank);
        }
    }
    /* The allgather's blocks come in the order the query reports. */
    int all[2] = {-1, -1};
    MPI_Neighbor_allgather(&g_rank, 1, MPI_INT, all, 1, MPI_INT, dist);
    if (n > 3) /* else one rank is both in-neighbours, and the order between them is free */
        for (int k = 0; k < 2; ++k) errs += MT_EQ(all[k], in[k]);
    MPI_Comm_free(&dist);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = complete_graph();
    errs += ring();
    errs += general(1);
    errs += general(0);
    return mtest_finish(errs);
}
