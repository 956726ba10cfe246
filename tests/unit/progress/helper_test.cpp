#include "progress/helper.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/syscall.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "p2p/tuple.hpp"
#include "wake/backends.hpp"

namespace si::progress {
namespace {

using p2p::MatchSpec;
using p2p::MessageKind;
using p2p::Tuple;

// Whether thread `tid` of this process is blocked in the kernel (state S in
// /proc): a helper there has taken its last look and waits on its word.
bool blocked_in_kernel(pid_t tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t name_end = line.rfind(')');
    return name_end != std::string::npos && name_end + 2 < line.size() &&
           line[name_end + 2] == 'S';
}

// A node region of two ranks, as a helper sees it.
class HelperTest : public ::testing::Test {
  protected:
    void SetUp() override {
        region_ = node::Region::create("helper-test-" + std::to_string(::getpid()), 2, 8);
        region_.unlink();
        backend_ = wake::make_backend(config::WakeBackend::futex);
    }

    void arrive(int rank, std::size_t slot, Tuple tuple) {
        region_.icb(rank)[slot].store(tuple.pack());
    }
    void request(int rank, std::size_t entry, MatchSpec spec) {
        const p2p::InterruptPattern pattern = p2p::interrupt_pattern(spec);
        node::InterruptRequest& e = region_.irb(rank)[entry];
        e.mask.store(pattern.mask);
        e.value.store(pattern.value);
        region_.rank_block(rank).irb_in_use.fetch_add(1);
    }
    RankVerdict examine(int rank) {
        const RankVerdict verdict = examine_rank(region_, rank, *backend_);
        count_verdict(counters(), verdict);
        return verdict;
    }
    node::HelperBlock& counters() { return region_.helper_block(0); }
    node::RankBlock& rank_block(int rank) { return region_.rank_block(rank); }

    node::Region region_;
    std::unique_ptr<wake::Backend> backend_;
};

TEST_F(HelperTest, RankWithoutRequestsIsSkippedWithoutAScan) {
    arrive(0, 0, Tuple{MessageKind::rts, 1, 1, 5});
    EXPECT_EQ(examine(0), RankVerdict::nothing_requested);
    EXPECT_EQ(counters().scans.load(), 0u);
}

TEST_F(HelperTest, MatchingRtsWakesASleepingRankOnce) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    request(0, 3, MatchSpec{1, 1, 5});
    arrive(0, 6, Tuple{MessageKind::rts, 1, 1, 5});
    EXPECT_EQ(examine(0), RankVerdict::woken);
    EXPECT_EQ(rank_block(0).interrupt_word.load(), wake::kWoken);
    // What it was woken for, so the thread can tell a message the application
    // took meanwhile (a late wake-up) from a futile one.
    EXPECT_EQ(rank_block(0).woken_icb_slot.load(), 6);
    EXPECT_EQ(rank_block(0).woken_icb_tuple.load(), (Tuple{MessageKind::rts, 1, 1, 5}.pack()));
    EXPECT_EQ(examine(0), RankVerdict::awake) << "woken and not yet asleep again: no second wake";
    EXPECT_EQ(counters().wakes.load(), 1u);
}

TEST_F(HelperTest, FutileScenarioWakesNobody) {
    // Irecv(tag 1) asked for help; an RTS for tag 2 (not posted yet) arrived.
    rank_block(1).interrupt_word.store(wake::kSleeping);
    request(1, 0, MatchSpec{1, 0, 1});
    arrive(1, 2, Tuple{MessageKind::rts, 1, 0, 2});
    arrive(1, 3, Tuple{MessageKind::eager, 1, 0, 1});  // eager data needs no wake
    EXPECT_EQ(examine(1), RankVerdict::no_match);
    EXPECT_EQ(rank_block(1).interrupt_word.load(), wake::kSleeping);
    EXPECT_EQ(counters().wakes.load(), 0u);
}

TEST_F(HelperTest, WildcardRequestIsHelped) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    request(0, 0, MatchSpec{1, MatchSpec::kAnySource, MatchSpec::kAnyTag});
    arrive(0, 1, Tuple{MessageKind::rts, 1, 1, 77});
    EXPECT_EQ(examine(0), RankVerdict::woken);
}

TEST_F(HelperTest, RankInsideItsProgressEngineIsLeftAlone) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    rank_block(0).progress_lock.store(1);
    request(0, 0, MatchSpec{1, 1, 5});
    arrive(0, 0, Tuple{MessageKind::rts, 1, 1, 5});
    EXPECT_EQ(examine(0), RankVerdict::locked);
    EXPECT_EQ(counters().skipped_locked.load(), 1u);
    EXPECT_EQ(rank_block(0).interrupt_word.load(), wake::kSleeping);
}

TEST_F(HelperTest, WithdrawnRequestNoLongerMatches) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    request(0, 0, MatchSpec{1, 1, 5});
    arrive(0, 0, Tuple{MessageKind::rts, 1, 1, 5});
    region_.irb(0)[0].value.store(0);  // the receive matched: withdrawn
    EXPECT_EQ(examine(0), RankVerdict::no_match);
}

// One-sided signals (RankBlock::rma_awaited_*, rma_signals): rank 0 awaits
// grants from world ranks 2 and 5.
TEST_F(HelperTest, AwaitedSignalWakesAndIsReset) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    rank_block(0).rma_awaited_any.store((1u << 2) | (1u << 5));
    rank_block(0).rma_signals[5].store(1);
    EXPECT_EQ(raised_signals(rank_block(0), false), 1u << 5);
    EXPECT_EQ(examine(0), RankVerdict::woken);
    EXPECT_EQ(rank_block(0).rma_signals[5].load(), 0) << "the thesis' ICB reset";
    EXPECT_EQ(rank_block(0).woken_icb_slot.load(), -1) << "woken for no message";
}

TEST_F(HelperTest, SignalFromAPeerNotAwaitedWakesNobody) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    rank_block(0).rma_awaited_any.store(1u << 2);
    rank_block(0).rma_signals[7].store(1);  // another target exposed
    EXPECT_EQ(examine(0), RankVerdict::no_match);
    EXPECT_EQ(rank_block(0).interrupt_word.load(), wake::kSleeping);
    // The thesis' single ICB (SI_RMA_ICB=single) wakes for it: the futile wake-up.
    EXPECT_EQ(raised_signals(rank_block(0), true), 1u << 7);
    EXPECT_EQ(examine_rank(region_, 0, *backend_, {-1, true}), RankVerdict::woken);
}

TEST_F(HelperTest, SignalsAwaitedTogetherWakeOnlyOnceAllCame) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    rank_block(0).rma_awaited_all.store((1u << 1) | (1u << 3));  // a fence of two peers
    rank_block(0).rma_signals[1].store(1);
    EXPECT_EQ(examine(0), RankVerdict::no_match);
    rank_block(0).rma_signals[3].store(1);
    EXPECT_EQ(examine(0), RankVerdict::woken);
    EXPECT_EQ(rank_block(0).rma_signals[1].load() + rank_block(0).rma_signals[3].load(), 0);
}

TEST_F(HelperTest, SignalsOfARankAwaitingNothingAreNotExamined) {
    rank_block(0).interrupt_word.store(wake::kSleeping);
    rank_block(0).rma_signals[2].store(1);
    EXPECT_EQ(examine(0), RankVerdict::nothing_requested);
    EXPECT_FALSE(rank_needs_help(region_, 0, false));
    rank_block(0).rma_awaited_any.store(1u << 2);
    EXPECT_TRUE(rank_needs_help(region_, 0, false));
}

TEST_F(HelperTest, IdleHelperSleepsAndStops) {
    HelperAssignment assignment{0, {0, 1}, {}};
    std::thread helper([&] { run_helper(region_, *backend_, assignment); });
    while (counters().idle_sleeps.load() == 0) std::this_thread::yield();
    counters().stop.store(1);
    wake::post(*backend_, counters().word);
    helper.join();
    EXPECT_EQ(counters().scans.load(), 0u) << "nothing was outstanding: no scans";
}

TEST_F(HelperTest, HelperRungBySendersSleepsWithRequestsAndWakesOnTheRing) {
    HelperAssignment assignment{0, {0, 1}, {}};
    assignment.rung_by_senders = true;
    rank_block(0).helper_block.store(0);
    rank_block(0).interrupt_word.store(wake::kSleeping);
    request(0, 0, MatchSpec{1, 1, 5});
    counters().outstanding.store(1);
    std::atomic<pid_t> helper_tid{0};
    std::thread helper([&] {
        helper_tid.store(static_cast<pid_t>(::syscall(SYS_gettid)));
        run_helper(region_, *backend_, assignment);
    });
    // No RTS for the request: after its polling period the helper sleeps. Its
    // word reads `sleeping` before its last look; only once it waits in the
    // kernel has that look passed, so that the RTS below is the ring's to
    // announce (an earlier RTS the helper would see itself, unrung).
    while (counters().request_sleeps.load() == 0) std::this_thread::yield();
    while (wake::state_of(counters().word.load()) != wake::kSleeping ||
           !blocked_in_kernel(helper_tid.load()))
        std::this_thread::yield();
    EXPECT_EQ(counters().wakes.load(), 0u);
    // A sender deposits the RTS, then rings: the helper wakes the rank's thread.
    arrive(0, 2, Tuple{MessageKind::rts, 1, 1, 5});
    EXPECT_TRUE(ring_helper_of(region_, 0, *backend_));
    while (counters().wakes.load() == 0) std::this_thread::yield();
    EXPECT_EQ(rank_block(0).interrupt_word.load(), wake::kWoken);
    EXPECT_FALSE(ring_helper_of(region_, 1, *backend_)) << "rank 1 has no helper: nothing to ring";
    counters().stop.store(1);
    wake::post(*backend_, counters().word);
    helper.join();
}

TEST_F(HelperTest, HelperNotRungBySendersPollsWhileRequestsWait) {
    HelperAssignment assignment{0, {0, 1}, {}};
    request(0, 0, MatchSpec{1, 1, 5});
    counters().outstanding.store(1);
    std::thread helper([&] { run_helper(region_, *backend_, assignment); });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(counters().request_sleeps.load(), 0u) << "an RTS from another host rings nobody";
    EXPECT_GT(counters().scans.load(), 0u);
    counters().stop.store(1);
    wake::post(*backend_, counters().word);
    helper.join();
}

}  // namespace
}  // namespace si::progress
