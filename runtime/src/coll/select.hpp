// Which algorithm a collective runs: the one SI_COLL_<NAME> names
// (base/config.cpp, where the default table below is documented for
// `sirun --info`), else the default for the message size and the number of
// ranks. An algorithm that cannot serve the call (Bruck for the v forms,
// pairwise reduce-scatter for a non-commutative operator) falls back to the
// collective's general one.
#pragma once

#include <cstddef>

#include "base/config.hpp"

namespace si::coll {

using config::Algorithm;

Algorithm barrier_algorithm(const config::CollectiveAlgorithms& chosen);
Algorithm bcast_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t bytes, int n);
Algorithm reduce_algorithm(const config::CollectiveAlgorithms& chosen);
// count items, bytes in all, on n ranks.
Algorithm allreduce_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t count,
                              std::size_t bytes, int n, bool commutative);
// Gather and scatter: `chosen` is SI_COLL_GATHER or SI_COLL_SCATTER; `equal`
// says every block has block_bytes (the plain forms; not the v forms).
Algorithm gather_algorithm(Algorithm chosen, bool equal, std::size_t block_bytes, int n);
// total_bytes: the whole result.
Algorithm allgather_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t total_bytes,
                              int n);
// equal: every block has the same size and the call is not in place.
Algorithm alltoall_algorithm(const config::CollectiveAlgorithms& chosen, bool equal,
                             std::size_t block_bytes, int n);
Algorithm reduce_scatter_algorithm(const config::CollectiveAlgorithms& chosen,
                                   std::size_t total_bytes, int n, bool commutative);

}  // namespace si::coll
