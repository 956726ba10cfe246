#include "progress/receive_claim.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "p2p/tuple.hpp"

namespace si::progress {
namespace {

using node::DeliveryState;
using node::DeliveryWord;
using p2p::MatchSpec;
using p2p::MessageKind;
using p2p::Tuple;

constexpr int kReceiver = 0;      // local index, world rank 0
constexpr int kSender = 1;        // world rank
constexpr int kReceiverWorld = 0;

// Rank 0's IRB as a sender on rank 1 sees it, with receives posted the way
// SmartProgress::receive_posted posts them: counted, then published.
class ReceiveClaimTest : public ::testing::Test {
  protected:
    void SetUp() override {
        region_ = node::Region::create("claim-test-" + std::to_string(::getpid()), 2, 8);
        region_.unlink();
    }

    void post(int entry, MatchSpec spec, std::uint64_t address) {
        node::RankBlock& block = region_.rank_block(kReceiver);
        block.receives_posted.store(block.receives_posted.load() + 1);
        const p2p::InterruptPattern pattern = p2p::interrupt_pattern(spec);
        node::InterruptRequest& slot = region_.irb(kReceiver)[entry];
        slot.address.store(address);
        slot.capacity.store(1 << 20);
        slot.delivery.store(DeliveryWord{++sequence_}.pack());
        slot.mask.store(pattern.mask);
        slot.value.store(pattern.value);
        block.irb_in_use.store(block.irb_in_use.load() + 1);
    }
    DeliveryState state_of(int entry) {
        return DeliveryWord::unpack(region_.irb(kReceiver)[entry].delivery.load()).state;
    }
    std::optional<p2p::DirectTarget> claim(const ReceiverLook& look) {
        return claim_first_match(region_, kReceiver, look, rts_, kSender, kReceiverWorld);
    }
    node::RankBlock& receiver() { return region_.rank_block(kReceiver); }

    node::Region region_;
    std::uint64_t sequence_ = 0;
    const std::uint64_t rts_ = Tuple{MessageKind::rts, 1, kSender, 5}.pack();
};

TEST_F(ReceiveClaimTest, ClaimsTheFirstPostedMatchNotTheLowestEntry) {
    post(3, MatchSpec{1, kSender, 5}, 0x1000);
    post(1, MatchSpec{1, MatchSpec::kAnySource, 5}, 0x2000);
    post(0, MatchSpec{1, kSender, 6}, 0x3000);  // another tag
    const ReceiverLook look = look_at_receiver(receiver());
    ASSERT_TRUE(look.claimable);
    const std::optional<p2p::DirectTarget> target = claim(look);
    ASSERT_TRUE(target);
    EXPECT_EQ(target->entry, 3);
    EXPECT_EQ(target->address, 0x1000u);
    EXPECT_EQ(target->peer, kReceiverWorld);
    EXPECT_EQ(state_of(3), DeliveryState::claimed);
    EXPECT_EQ(state_of(1), DeliveryState::open);
    EXPECT_FALSE(posted_since(receiver(), look));
}

TEST_F(ReceiveClaimTest, AReceivePostedAfterTheLookVoidsTheClaim) {
    post(2, MatchSpec{1, kSender, 5}, 0x1000);
    const ReceiverLook look = look_at_receiver(receiver());
    ASSERT_TRUE(look.claimable);
    // The receiver posts another receive while the sender scans: had it gone
    // into an entry the scan had passed, before the one the scan claims, the
    // claim would overtake it. The count is what tells.
    post(5, MatchSpec{1, kSender, 5}, 0x2000);
    ASSERT_TRUE(claim(look));
    EXPECT_TRUE(posted_since(receiver(), look));
}

TEST_F(ReceiveClaimTest, NoClaimWhileTheReceiverIsInsideMpiOrHasReceivesOutsideTheIrb) {
    post(0, MatchSpec{1, kSender, 5}, 0x1000);
    receiver().progress_lock.store(1);
    EXPECT_FALSE(look_at_receiver(receiver()).claimable);
    receiver().progress_lock.store(0);
    receiver().posted_outside_irb.store(1);
    EXPECT_FALSE(look_at_receiver(receiver()).claimable);
    EXPECT_FALSE(claim(look_at_receiver(receiver())));
    EXPECT_EQ(state_of(0), DeliveryState::open);
}

TEST_F(ReceiveClaimTest, AReceiveInPiecesIsNotClaimed) {
    post(0, MatchSpec{1, kSender, 5}, 0);
    EXPECT_FALSE(claim(look_at_receiver(receiver())));
    EXPECT_EQ(state_of(0), DeliveryState::open);
}

}  // namespace
}  // namespace si::progress
