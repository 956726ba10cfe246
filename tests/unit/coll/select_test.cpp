// The default algorithm table (coll/select.hpp) and SI_COLL_<NAME>
// overrides, including the fallbacks for algorithms that cannot serve a call.
#include "coll/select.hpp"

#include <gtest/gtest.h>

namespace si::coll {
namespace {

using config::CollectiveAlgorithms;

TEST(SelectTest, DefaultsFollowSizeAndRanks) {
    const CollectiveAlgorithms automatic;
    EXPECT_EQ(barrier_algorithm(automatic), Algorithm::dissemination);
    EXPECT_EQ(bcast_algorithm(automatic, 8, 4), Algorithm::binomial);
    EXPECT_EQ(bcast_algorithm(automatic, 1 << 20, 2), Algorithm::binomial);
    EXPECT_EQ(bcast_algorithm(automatic, 1 << 20, 4), Algorithm::scatter_allgather);
    EXPECT_EQ(allreduce_algorithm(automatic, 2, 8, 4, true), Algorithm::recursive_doubling);
    EXPECT_EQ(allreduce_algorithm(automatic, 1 << 18, 1 << 20, 4, true),
              Algorithm::reduce_scatter_allgather);
    EXPECT_EQ(allreduce_algorithm(automatic, 1 << 18, 1 << 20, 4, false), Algorithm::reduce_bcast);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 64, 4), Algorithm::binomial);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 64, 2), Algorithm::linear);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 1 << 20, 4), Algorithm::linear);
    EXPECT_EQ(allgather_algorithm(automatic, 1024, 4), Algorithm::recursive_doubling);
    EXPECT_EQ(allgather_algorithm(automatic, 1024, 3), Algorithm::ring);
    EXPECT_EQ(allgather_algorithm(automatic, 1 << 20, 4), Algorithm::ring);
    EXPECT_EQ(alltoall_algorithm(automatic, true, false, 8, 4), Algorithm::bruck);
    EXPECT_EQ(alltoall_algorithm(automatic, true, true, 8, 4), Algorithm::pairwise);
    EXPECT_EQ(alltoall_algorithm(automatic, true, false, 8, 2), Algorithm::pairwise);
    EXPECT_EQ(alltoall_algorithm(automatic, true, false, 1024, 4), Algorithm::pairwise);
    EXPECT_EQ(reduce_scatter_algorithm(automatic, 1 << 20, 4, true), Algorithm::pairwise);
    EXPECT_EQ(reduce_scatter_algorithm(automatic, 64, 4, true), Algorithm::reduce_scatter);
}

TEST(SelectTest, OverridesWinWhereTheyCanServeTheCall) {
    CollectiveAlgorithms chosen;
    chosen.bcast = Algorithm::linear;
    chosen.allreduce = Algorithm::reduce_scatter_allgather;
    chosen.gather = Algorithm::binomial;
    chosen.allgather = Algorithm::recursive_doubling;
    chosen.alltoall = Algorithm::bruck;
    chosen.reduce_scatter = Algorithm::pairwise;
    EXPECT_EQ(bcast_algorithm(chosen, 1 << 20, 8), Algorithm::linear);
    EXPECT_EQ(allreduce_algorithm(chosen, 8, 8, 4, true), Algorithm::reduce_scatter_allgather);
    EXPECT_EQ(gather_algorithm(chosen.gather, true, 1 << 20, 2), Algorithm::binomial);
    EXPECT_EQ(allgather_algorithm(chosen, 1 << 20, 8), Algorithm::recursive_doubling);
    EXPECT_EQ(alltoall_algorithm(chosen, true, false, 1 << 20, 2), Algorithm::bruck);
    // Fallbacks: no pairwise reduction for a non-commutative operator, no
    // recursive doubling on 3 ranks, no Bruck or tree for the vector forms.
    EXPECT_EQ(allreduce_algorithm(chosen, 8, 8, 4, false), Algorithm::reduce_bcast);
    EXPECT_EQ(reduce_scatter_algorithm(chosen, 8, 4, false), Algorithm::reduce_scatter);
    EXPECT_EQ(allreduce_algorithm(chosen, 2, 8, 4, true), Algorithm::reduce_bcast);  // 2 items, 4 ranks
    EXPECT_EQ(allgather_algorithm(chosen, 64, 3), Algorithm::ring);
    EXPECT_EQ(alltoall_algorithm(chosen, false, false, 8, 4), Algorithm::pairwise);
    EXPECT_EQ(alltoall_algorithm(chosen, true, true, 8, 4), Algorithm::pairwise);
    EXPECT_EQ(gather_algorithm(chosen.gather, false, 8, 4), Algorithm::linear);
}

// The node's shared memory (node_cell_bytes > 0): auto and shm take it when
// what a rank publishes fits a cell; beyond, or without a cell, shm is auto;
// another algorithm named keeps running.
TEST(SelectTest, SharedMemoryWhereACellHoldsTheCall) {
    constexpr std::size_t kCell = 16 * 1024;
    const CollectiveAlgorithms automatic;
    EXPECT_EQ(barrier_algorithm(automatic, kCell), Algorithm::shm);
    EXPECT_EQ(barrier_algorithm(automatic, 0), Algorithm::dissemination);
    EXPECT_EQ(bcast_algorithm(automatic, kCell, 4, kCell), Algorithm::shm);
    EXPECT_EQ(bcast_algorithm(automatic, kCell + 1, 4, kCell), Algorithm::binomial);
    EXPECT_EQ(reduce_algorithm(automatic, 8, kCell), Algorithm::shm);
    EXPECT_EQ(allreduce_algorithm(automatic, 2, 8, 4, false, kCell), Algorithm::shm);
    EXPECT_EQ(allreduce_algorithm(automatic, 1 << 18, 1 << 20, 4, true, kCell),
              Algorithm::reduce_scatter_allgather);
    // A scatter's root publishes every block, a gather's rank its own.
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 4096, 4, kCell), Algorithm::shm);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 4096, 4, kCell, 4), Algorithm::shm);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, true, 4096, 8, kCell, 8), Algorithm::binomial);
    EXPECT_EQ(gather_algorithm(Algorithm::automatic, false, 8, 4, kCell), Algorithm::linear);
    EXPECT_EQ(allgather_algorithm(automatic, 4 * 4096, 4, kCell, 4096), Algorithm::shm);
    EXPECT_EQ(alltoall_algorithm(automatic, true, true, 4096, 4, kCell), Algorithm::shm);
    EXPECT_EQ(alltoall_algorithm(automatic, false, false, 8, 4, kCell), Algorithm::pairwise);

    CollectiveAlgorithms chosen;
    chosen.barrier = Algorithm::shm;
    chosen.bcast = Algorithm::shm;
    chosen.allreduce = Algorithm::recursive_doubling;
    EXPECT_EQ(barrier_algorithm(chosen, 0), Algorithm::dissemination);
    EXPECT_EQ(bcast_algorithm(chosen, 1 << 20, 4, kCell), Algorithm::scatter_allgather);
    EXPECT_EQ(allreduce_algorithm(chosen, 2, 8, 4, true, kCell), Algorithm::recursive_doubling);
}

}  // namespace
}  // namespace si::coll
