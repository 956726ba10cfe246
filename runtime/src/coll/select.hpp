// Which algorithm a collective runs: the one SI_COLL_<NAME> names
// (base/config.cpp, where the default table below is documented for
// `sirun --info`), else the default for the message size and the number of
// ranks. An algorithm that cannot serve the call (Bruck for the v forms,
// pairwise reduce-scatter for a non-commutative operator) falls back to the
// collective's general one.
//
// `node_cell_bytes`: the room of one cell of the node's shared area
// (node_collectives.hpp) when the call may run there (a blocking call on a
// communicator of one node, its area made), else 0. auto takes the
// shared-memory algorithm (Algorithm::shm) when what the call publishes
// fits a cell; so does shm, which elsewhere means auto. Every argument is
// the same on every rank of a correct program, so all choose alike.
#pragma once

#include <cstddef>

#include "base/config.hpp"

namespace si::coll {

using config::Algorithm;

Algorithm barrier_algorithm(const config::CollectiveAlgorithms& chosen,
                            std::size_t node_cell_bytes = 0);
Algorithm bcast_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t bytes, int n,
                          std::size_t node_cell_bytes = 0);
Algorithm reduce_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t bytes = 0,
                           std::size_t node_cell_bytes = 0);
// count items, bytes in all, on n ranks.
Algorithm allreduce_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t count,
                              std::size_t bytes, int n, bool commutative,
                              std::size_t node_cell_bytes = 0);
// Gather and scatter: `chosen` is SI_COLL_GATHER or SI_COLL_SCATTER; `equal`
// says every block has block_bytes (the plain forms; not the v forms).
// `per_cell`: the blocks one rank publishes (a scatter's root: n).
Algorithm gather_algorithm(Algorithm chosen, bool equal, std::size_t block_bytes, int n,
                           std::size_t node_cell_bytes = 0, int per_cell = 1);
// total_bytes: the whole result; largest_block: the largest rank's share.
Algorithm allgather_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t total_bytes,
                              int n, std::size_t node_cell_bytes = 0,
                              std::size_t largest_block = 0);
// equal: every block has the same size (the plain form); in_place: the
// call is in place (no Bruck).
Algorithm alltoall_algorithm(const config::CollectiveAlgorithms& chosen, bool equal,
                             bool in_place, std::size_t block_bytes, int n,
                             std::size_t node_cell_bytes = 0);
Algorithm reduce_scatter_algorithm(const config::CollectiveAlgorithms& chosen,
                                   std::size_t total_bytes, int n, bool commutative);

}  // namespace si::coll
