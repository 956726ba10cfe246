// One-sided windows of three processes' engines in one test process, joined
// by the loopback transport (no shared memory between them: counters travel
// by RDMA Write, as over verbs): the activation rule of seed 002 with and
// without the reordering flags, and a lock epoch's Put end to end.
#include "rma/window.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <numeric>
#include <string>

#include "../p2p/loopback_transport.hpp"

namespace si::rma {
namespace {

// ---- the activation rule, on epochs alone ---------------------------------------

Epoch epoch(Epoch::Kind kind, bool active, bool closed, bool completed = false) {
    Epoch e(kind, {0}, 2);
    e.active = active;
    e.closed = closed;
    e.completed = completed;
    return e;
}

constexpr auto kAccess = Epoch::Kind::access;
constexpr auto kExposure = Epoch::Kind::exposure;
constexpr auto kLock = Epoch::Kind::lock;
constexpr auto kFence = Epoch::Kind::fence;

TEST(MayActivateAfter, CompletedOrStillOpenEarlierEpochsLetALaterOneGo) {
    const Epoch later = epoch(kAccess, false, false);
    EXPECT_TRUE(may_activate_after(epoch(kAccess, true, true, true), later, {}));
    // Held open together: post + start, locks towards several targets.
    EXPECT_TRUE(may_activate_after(epoch(kExposure, true, false), later, {}));
    EXPECT_TRUE(may_activate_after(epoch(kLock, true, false), later, {}));
}

TEST(MayActivateAfter, ByDefaultAClosedEpochHoldsTheNextBackUntilItCompletes) {
    for (const auto first : {kAccess, kExposure, kLock, kFence})
        for (const auto second : {kAccess, kExposure, kLock, kFence})
            EXPECT_FALSE(
                may_activate_after(epoch(first, true, true), epoch(second, false, false), {}))
                << static_cast<int>(first) << " then " << static_cast<int>(second);
}

TEST(MayActivateAfter, EachFlagReleasesItsPairOfKindsOnly) {
    struct Case {
        Epoch::Kind earlier, later;
        bool Reordering::*flag;
    };
    const Case cases[] = {
        {kAccess, kAccess, &Reordering::access_after_access},
        {kLock, kAccess, &Reordering::access_after_access},
        {kAccess, kLock, &Reordering::access_after_access},
        {kExposure, kAccess, &Reordering::access_after_exposure},
        {kExposure, kLock, &Reordering::access_after_exposure},
        {kExposure, kExposure, &Reordering::exposure_after_exposure},
        {kAccess, kExposure, &Reordering::exposure_after_access},
        {kLock, kExposure, &Reordering::exposure_after_access},
    };
    bool Reordering::*const flags[] = {
        &Reordering::access_after_access, &Reordering::access_after_exposure,
        &Reordering::exposure_after_exposure, &Reordering::exposure_after_access};
    for (const Case& c : cases)
        for (bool Reordering::*flag : flags) {
            Reordering reordering;
            reordering.*flag = true;
            EXPECT_EQ(may_activate_after(epoch(c.earlier, true, true), epoch(c.later, false, false),
                                         reordering),
                      flag == c.flag)
                << static_cast<int>(c.earlier) << " then " << static_cast<int>(c.later);
        }
}

TEST(MayActivateAfter, NoFlagReordersAFenceOrOvertakesAnEpochNotActiveYet) {
    const Reordering all{true, true, true, true};
    EXPECT_FALSE(may_activate_after(epoch(kFence, true, true), epoch(kAccess, false, false), all));
    EXPECT_FALSE(may_activate_after(epoch(kAccess, true, true), epoch(kFence, false, false), all));
    // Epochs are numbered as they activate: overtaking a deferred one would
    // match the later epoch with the earlier one's exposure.
    EXPECT_FALSE(
        may_activate_after(epoch(kAccess, false, true), epoch(kAccess, false, false), all));
}

// ---- windows of three engines ------------------------------------------------

class WindowTest : public ::testing::Test {
  protected:
    static constexpr int kRanks = 3;
    static constexpr int kInts = 16;
    static constexpr std::uint16_t kContext = 6;

    WindowTest() : fabric_(kRanks, 8, false) {
        std::vector<int> world(kRanks);
        std::iota(world.begin(), world.end(), 0);
        std::vector<std::string> names;
        for (int r = 0; r < kRanks; ++r)
            names.push_back(SharedSegment::name_for("unit" + std::to_string(::getpid()),
                                                    "w" + std::to_string(r)));
        std::vector<PeerWindow> described;
        for (int r = 0; r < kRanks; ++r) {
            locks_.push_back(std::make_unique<p2p::ProgressLock>(words_[r]));
            std::vector<transport::Transport*> transport_of(kRanks, &fabric_.endpoint(r));
            engines_.push_back(
                std::make_unique<p2p::Engine>(r, transport_of, *locks_[r], p2p::Engine::Options{}));
            memory_[r].fill(0);
            windows_.push_back(std::make_unique<Window>(
                *engines_[r], world, r, kContext,
                Window::Memory{memory_[r].data(), sizeof memory_[r], sizeof(int)}, names[r]));
            described.push_back(windows_[r]->describe());
        }
        for (auto& w : windows_) w->connect(described, names);
        for (auto& w : windows_) w->unlink_segment();
    }

    ~WindowTest() override {
        for (auto& w : windows_) w->disconnect();
    }

    // Runs `fn(window)` with rank r's engine lock held.
    template <typename Fn>
    auto locked(int r, Fn fn) {
        p2p::ProgressGuard guard(engines_[r]->lock());
        return fn(*windows_[r]);
    }

    void progress(int rounds) {
        for (int i = 0; i < rounds; ++i)
            for (auto& e : engines_) e->progress();
    }

    // Progresses until every epoch is complete (or fails).
    void run_until_completed(std::initializer_list<const Epoch*> epochs) {
        for (int round = 0; round < 10000; ++round) {
            bool all = true;
            for (const Epoch* e : epochs) all = all && e->completed;
            if (all) return;
            progress(1);
        }
        FAIL() << "epochs did not complete";
    }

    // Records a Put of `value` into `target`'s int at `displacement`.
    void put(int origin, int target, const int& value, int displacement) {
        Window::Request request;
        request.kind = Window::Request::Kind::put;
        request.target = target;
        request.origin = &value;
        request.origin_count = 1;
        request.origin_type = &datatype::predefined(MPI_INT);
        request.target_disp = static_cast<std::uint64_t>(displacement);
        request.target_count = 1;
        request.target_type = &datatype::predefined(MPI_INT);
        locked(origin, [&](Window& w) { return w.issue_locked(request); });
    }

    // Rank 0: a PSCW access epoch towards 1 (which posts late), closed, then
    // one towards 2; returns both.
    std::pair<std::shared_ptr<Epoch>, std::shared_ptr<Epoch>> two_access_epochs(
        const int& first_value, const int& second_value) {
        locked(0, [](Window& w) { w.start_locked({1}); });
        put(0, 1, first_value, 0);
        auto first = locked(0, [](Window& w) { return w.complete_locked(); });
        locked(0, [](Window& w) { w.start_locked({2}); });
        put(0, 2, second_value, 0);
        auto second = locked(0, [](Window& w) { return w.complete_locked(); });
        return {first, second};
    }

    test::LoopbackFabric fabric_;
    std::array<std::atomic<std::uint32_t>, kRanks> words_{};
    std::vector<std::unique_ptr<p2p::ProgressLock>> locks_;
    std::vector<std::unique_ptr<p2p::Engine>> engines_;
    std::array<std::array<int, kInts>, kRanks> memory_{};
    std::vector<std::unique_ptr<Window>> windows_;
};

TEST_F(WindowTest, ExclusiveLockPutUnlockWritesTheTarget) {
    const int value = 41;
    locked(0, [](Window& w) { w.lock_locked(2, LockType::exclusive); });
    put(0, 2, value, 3);
    auto epoch = locked(0, [](Window& w) { return w.unlock_locked(2); });
    ASSERT_NE(epoch, nullptr);
    run_until_completed({epoch.get()});
    EXPECT_EQ(memory_[2][3], 41);
    EXPECT_EQ(memory_[1][3], 0);
}

TEST_F(WindowTest, WithoutTheFlagAnAccessEpochWaitsForTheClosedOneBeforeIt) {
    const int first_value = 1, second_value = 2;
    locked(2, [](Window& w) { w.post_locked({0}); });
    auto exposure_of_2 = locked(2, [](Window& w) { return w.wait_locked(); });
    auto [first, second] = two_access_epochs(first_value, second_value);
    progress(200);
    EXPECT_FALSE(second->active);
    EXPECT_FALSE(second->completed);
    EXPECT_EQ(memory_[2][0], 0) << "the deferred epoch's Put was not recorded";
    // The late target posts: both complete, in order.
    locked(1, [](Window& w) { w.post_locked({0}); });
    auto exposure_of_1 = locked(1, [](Window& w) { return w.wait_locked(); });
    run_until_completed({first.get(), second.get(), exposure_of_1.get(), exposure_of_2.get()});
    EXPECT_EQ(memory_[1][0], 1);
    EXPECT_EQ(memory_[2][0], 2);
}

TEST_F(WindowTest, AccessAfterAccessLetsTheSecondEpochOvertakeALatePeer) {
    locked(0, [](Window& w) {
        Reordering reordering;
        reordering.access_after_access = true;
        w.set_reordering_locked(reordering);
    });
    const int first_value = 1, second_value = 2;
    locked(2, [](Window& w) { w.post_locked({0}); });
    auto exposure_of_2 = locked(2, [](Window& w) { return w.wait_locked(); });
    auto [first, second] = two_access_epochs(first_value, second_value);
    run_until_completed({second.get(), exposure_of_2.get()});
    EXPECT_EQ(memory_[2][0], 2);
    EXPECT_FALSE(first->completed);
    locked(1, [](Window& w) { w.post_locked({0}); });
    auto exposure_of_1 = locked(1, [](Window& w) { return w.wait_locked(); });
    run_until_completed({first.get(), exposure_of_1.get()});
    EXPECT_EQ(memory_[1][0], 1);
}

}  // namespace
}  // namespace si::rma
