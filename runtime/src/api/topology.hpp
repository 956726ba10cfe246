// Virtual topologies attached to communicators: Cartesian grids (cart.cpp),
// graphs and distributed graphs (graph.cpp), and the neighbourhoods the
// neighbourhood collectives (neighbor.cpp) exchange with.
#pragma once

#include <vector>

#include "api/communicator.hpp"
#include "api/errors.hpp"
#include "coll/collectives.hpp"

namespace si::api {

struct Topology {
    int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

    // MPI_CART: the grid, ranks in row-major order (the last dimension varies
    // fastest).
    std::vector<int> dims;
    std::vector<bool> periods;

    // MPI_GRAPH: MPI's arrays; node i's neighbours are edges[index[i-1] ..
    // index[i]) (from 0 for node 0).
    std::vector<int> index;
    std::vector<int> edges;

    // MPI_DIST_GRAPH: this rank's own edges only.
    std::vector<int> sources, source_weights;
    std::vector<int> destinations, destination_weights;
    bool weighted = false;
};

// Grid coordinates of a rank, and back (coordinates already in range).
std::vector<int> cart_coords(const Topology& t, int rank);
int cart_rank(const Topology& t, const std::vector<int>& coords);

// Where a shift by `displacement` along `dimension` reaches from `rank`:
// MPI_PROC_NULL off the edge of a non-periodic dimension.
int cart_neighbor(const Topology& t, int rank, int dimension, int displacement);

// The topology of a communicator, which must have one of `kind`
// (MPI_UNDEFINED: any), else MPI_ERR_TOPOLOGY.
int topology_of(Call& call, const Communicator& c, int kind, const Topology*& out);

// Attaches a topology to the communicator just created under `handle`.
void attach_topology(MPI_Comm handle, Topology topology);

// The in- and out-neighbours of this rank in the order the neighbourhood
// collectives use, with labels that keep messages between the same two ranks
// apart (a periodic dimension of two ranks has the same rank on both sides).
struct Neighborhood {
    std::vector<coll::Edge> in;
    std::vector<coll::Edge> out;
};
Neighborhood neighborhood(const Topology& t, int rank);

}  // namespace si::api
