#include "coll/select.hpp"

namespace si::coll {

namespace {

// Below it, allreduce and reduce-scatter favour few rounds (recursive
// doubling, the tree); from it, spreading the bytes and the work over every
// rank (pairwise exchange). Allgather switches to the ring at the same size.
constexpr std::size_t kSpreadBytes = std::size_t{64} * 1024;
// From here a broadcast to 4 ranks or more scatters and allgathers.
constexpr std::size_t kLargeBcastBytes = std::size_t{512} * 1024;
// Blocks up to this size gather and scatter through the binomial tree,
// whose log2(n) rounds beat n - 1 messages into one rank.
constexpr std::size_t kTreeBlockBytes = std::size_t{4} * 1024;
// Blocks up to this size go all-to-all with Bruck's log2(n) rounds.
constexpr std::size_t kBruckBlockBytes = 256;

bool power_of_two(int n) {
    return n > 0 && (n & (n - 1)) == 0;
}

// Whether `chosen` lets the call run on the node's shared area, which has
// cells of `cell_bytes` (0: none), for `needed` bytes in a cell. Otherwise
// shm means auto. Every call that can run there is as fast there on the few
// ranks of a node up to a cell's size (README, "Collectives").
bool on_node(Algorithm& chosen, std::size_t cell_bytes, std::size_t needed) {
    if ((chosen == Algorithm::automatic || chosen == Algorithm::shm) && cell_bytes > 0 &&
        needed <= cell_bytes)
        return true;
    if (chosen == Algorithm::shm) chosen = Algorithm::automatic;
    return false;
}

}  // namespace

Algorithm barrier_algorithm(const config::CollectiveAlgorithms& chosen,
                            std::size_t node_cell_bytes) {
    Algorithm a = chosen.barrier;
    if (on_node(a, node_cell_bytes, 0)) return Algorithm::shm;
    return a == Algorithm::linear ? Algorithm::linear : Algorithm::dissemination;
}

Algorithm bcast_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t bytes, int n,
                          std::size_t node_cell_bytes) {
    Algorithm a = chosen.bcast;
    if (on_node(a, node_cell_bytes, bytes)) return Algorithm::shm;
    if (a != Algorithm::automatic) return a;
    return bytes >= kLargeBcastBytes && n >= 4 ? Algorithm::scatter_allgather
                                               : Algorithm::binomial;
}

Algorithm reduce_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t bytes,
                           std::size_t node_cell_bytes) {
    Algorithm a = chosen.reduce;
    if (on_node(a, node_cell_bytes, bytes)) return Algorithm::shm;
    return a == Algorithm::linear ? Algorithm::linear : Algorithm::binomial;
}

Algorithm allreduce_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t count,
                              std::size_t bytes, int n, bool commutative,
                              std::size_t node_cell_bytes) {
    if (n == 1) return Algorithm::reduce_bcast;  // a copy
    Algorithm a = chosen.allreduce;
    if (on_node(a, node_cell_bytes, bytes)) return Algorithm::shm;
    if (a == Algorithm::automatic) {
        if (bytes < kSpreadBytes)
            a = Algorithm::recursive_doubling;
        else
            a = commutative ? Algorithm::reduce_scatter_allgather : Algorithm::reduce_bcast;
    }
    // Pairwise reduce-scatter needs a commutative operator and an item per rank.
    if (a == Algorithm::reduce_scatter_allgather &&
        (!commutative || count < static_cast<std::size_t>(n)))
        a = Algorithm::reduce_bcast;
    return a;
}

Algorithm gather_algorithm(Algorithm chosen, bool equal, std::size_t block_bytes, int n,
                           std::size_t node_cell_bytes, int per_cell) {
    // Blocks of several sizes have no place in a cell a reader can find.
    const std::size_t cell = equal ? node_cell_bytes : 0;
    if (on_node(chosen, cell, block_bytes * static_cast<std::size_t>(per_cell)))
        return Algorithm::shm;
    if (!equal) return Algorithm::linear;
    if (chosen != Algorithm::automatic) return chosen;
    return block_bytes <= kTreeBlockBytes && n > 2 ? Algorithm::binomial : Algorithm::linear;
}

Algorithm allgather_algorithm(const config::CollectiveAlgorithms& chosen, std::size_t total_bytes,
                              int n, std::size_t node_cell_bytes, std::size_t largest_block) {
    Algorithm a = chosen.allgather;
    if (on_node(a, node_cell_bytes, largest_block)) return Algorithm::shm;
    if (a == Algorithm::automatic)
        a = total_bytes < kSpreadBytes ? Algorithm::recursive_doubling : Algorithm::ring;
    if (a == Algorithm::recursive_doubling && !power_of_two(n)) a = Algorithm::ring;
    return a;
}

Algorithm alltoall_algorithm(const config::CollectiveAlgorithms& chosen, bool equal,
                             bool in_place, std::size_t block_bytes, int n,
                             std::size_t node_cell_bytes) {
    Algorithm a = chosen.alltoall;
    const std::size_t cell = equal ? node_cell_bytes : 0;
    if (on_node(a, cell, block_bytes * static_cast<std::size_t>(n))) return Algorithm::shm;
    const bool bruck_fits = equal && !in_place;
    if (a == Algorithm::automatic)
        a = bruck_fits && block_bytes <= kBruckBlockBytes && n > 2 ? Algorithm::bruck
                                                                    : Algorithm::pairwise;
    if (a == Algorithm::bruck && !bruck_fits) a = Algorithm::pairwise;
    return a;
}

Algorithm reduce_scatter_algorithm(const config::CollectiveAlgorithms& chosen,
                                   std::size_t total_bytes, int n, bool commutative) {
    Algorithm a = chosen.reduce_scatter;
    if (a == Algorithm::automatic)
        a = commutative && n > 1 && total_bytes >= kSpreadBytes ? Algorithm::pairwise
                                                                 : Algorithm::reduce_scatter;
    if (a == Algorithm::pairwise && !commutative) a = Algorithm::reduce_scatter;
    return a;
}

}  // namespace si::coll
