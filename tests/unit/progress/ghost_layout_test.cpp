#include "progress/ghost_layout.hpp"

#include <gtest/gtest.h>

namespace si::progress {
namespace {

// One host, one domain: ghosts take the receivers in turn, as before nodes
// had ghosts of their own.
TEST(GhostLayoutTest, OneDomainServesReceiversInTurn) {
    const GhostLayout layout({0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, 2);
    EXPECT_EQ(layout.domains(), 1);
    EXPECT_EQ(layout.ghosts(), 2);
    EXPECT_EQ(layout.blocks_on(0), 2);
    for (int rank = 0; rank < 5; ++rank) {
        EXPECT_EQ(layout.serving_ghost(rank), rank % 2);
        EXPECT_EQ(layout.carrying_ghost(4 - rank, rank), rank % 2);
        EXPECT_EQ(layout.offset(rank), rank / 2);
    }
    EXPECT_EQ(layout.offset_bits(), 2);  // a ghost serves up to 3 receivers
}

// Two simulated nodes of one host: each has its ghosts, numbered after the
// first node's, and both sets live in the host's area.
TEST(GhostLayoutTest, NodesOfOneHostShareItsArea) {
    const GhostLayout layout({0, 0, 1, 1}, {0, 0, 0, 0}, 2);
    EXPECT_EQ(layout.domains(), 2);
    EXPECT_EQ(layout.ghosts(), 4);
    EXPECT_EQ(layout.blocks_on(0), 4);
    EXPECT_EQ(layout.serving_ghost(2), 2);
    EXPECT_EQ(layout.serving_ghost(3), 3);
    for (int ghost = 0; ghost < 4; ++ghost) {
        EXPECT_EQ(layout.block_of(ghost), ghost);
        EXPECT_EQ(layout.domain_of_ghost(ghost), ghost / 2);
    }
    EXPECT_EQ(layout.index_in_domain(3), 1);
    EXPECT_EQ(layout.offset_bits(), 0);
}

// Across hosts each host's area holds only its own ghosts; a message to
// another domain goes through a ghost of the sender's, the same for every
// message of the pair.
TEST(GhostLayoutTest, CarryingGhostIsInTheSendersDomain) {
    // Domains of 3, 1 and 2 ranks on hosts 0, 1, 1; two ghosts at most.
    const GhostLayout layout({0, 0, 0, 1, 2, 2}, {0, 0, 0, 1, 1, 1}, 2);
    EXPECT_EQ(layout.ghosts(), 5);
    EXPECT_EQ(layout.ghosts_in(1), 1);  // never more ghosts than ranks
    EXPECT_EQ(layout.blocks_on(0), 2);
    EXPECT_EQ(layout.blocks_on(1), 3);
    EXPECT_EQ(layout.block_of(2), 0);  // domain 1's ghost, first on host 1
    EXPECT_EQ(layout.block_of(4), 2);
    for (int from = 0; from < 6; ++from) {
        for (int to = 0; to < 6; ++to) {
            const int carrier = layout.carrying_ghost(from, to);
            EXPECT_EQ(layout.domain_of_ghost(carrier), layout.domain_of(from));
            if (layout.domain_of(from) == layout.domain_of(to)) {
                EXPECT_EQ(carrier, layout.serving_ghost(to));
            }
        }
    }
    // Domain 0's busiest ghost serves 2 receivers: one bit.
    EXPECT_EQ(layout.offset_bits(), 1);
}

// Domain numbers the caller picked (host indices, say) need not be dense.
TEST(GhostLayoutTest, DomainsAreRenumberedByFirstRank) {
    const GhostLayout layout({7, 7, 3}, {0, 0, 1}, 1);
    EXPECT_EQ(layout.domains(), 2);
    EXPECT_EQ(layout.domain_of(0), 0);
    EXPECT_EQ(layout.domain_of(2), 1);
    EXPECT_EQ(layout.serving_ghost(2), 1);
}

}  // namespace
}  // namespace si::progress
