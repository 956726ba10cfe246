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
    EXPECT_EQ(alltoall_algorithm(automatic, true, 8, 4), Algorithm::bruck);
    EXPECT_EQ(alltoall_algorithm(automatic, true, 8, 2), Algorithm::pairwise);
    EXPECT_EQ(alltoall_algorithm(automatic, true, 1024, 4), Algorithm::pairwise);
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
    EXPECT_EQ(alltoall_algorithm(chosen, true, 1 << 20, 2), Algorithm::bruck);
    // Fallbacks: no pairwise reduction for a non-commutative operator, no
    // recursive doubling on 3 ranks, no Bruck or tree for the vector forms.
    EXPECT_EQ(allreduce_algorithm(chosen, 8, 8, 4, false), Algorithm::reduce_bcast);
    EXPECT_EQ(reduce_scatter_algorithm(chosen, 8, 4, false), Algorithm::reduce_scatter);
    EXPECT_EQ(allreduce_algorithm(chosen, 2, 8, 4, true), Algorithm::reduce_bcast);  // 2 items, 4 ranks
    EXPECT_EQ(allgather_algorithm(chosen, 64, 3), Algorithm::ring);
    EXPECT_EQ(alltoall_algorithm(chosen, false, 8, 4), Algorithm::pairwise);
    EXPECT_EQ(gather_algorithm(chosen.gather, false, 8, 4), Algorithm::linear);
}

}  // namespace
}  // namespace si::coll
