// The rank's progress lock between threads: mutual exclusion, pollers that
// leave without the lock once their request is done, and a holder that only
// waits handing the lock to workers and taking it back.
#include "p2p/progress_lock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace si::p2p {
namespace {

class ProgressLockTest : public testing::Test {
protected:
    std::atomic<std::uint32_t> word_{0};
    std::atomic<std::int32_t> host_waiters_{0};
    ProgressLock lock_{word_, &host_waiters_};
};

TEST_F(ProgressLockTest, WorkersAndPollersExcludeEachOther) {
    constexpr int kRounds = 20000;
    long counter = 0;  // plain: a race here is what ThreadSanitizer reports
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, poller = t % 2 == 1] {
            for (int i = 0; i < kRounds; ++i) {
                if (poller)
                    ASSERT_TRUE(lock_.lock_unless([] { return false; }));
                else
                    lock_.lock();
                ++counter;
                lock_.unlock();
            }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(counter, 4L * kRounds);
    EXPECT_FALSE(lock_.held());
    EXPECT_FALSE(lock_.wanted());
    EXPECT_EQ(host_waiters_.load(), 0);
}

TEST_F(ProgressLockTest, APollerLeavesWithoutTheLockOnceDone) {
    lock_.lock();
    std::atomic<bool> done{false};
    std::atomic<int> taken{-1};
    std::thread poller([&] { taken = lock_.lock_unless([&] { return done.load(); }) ? 1 : 0; });
    while (!lock_.wanted()) std::this_thread::yield();
    EXPECT_FALSE(lock_.wanted_by_workers());  // a poller: the holder need not yield
    done = true;
    lock_.wake_pollers();  // what a pass that completed the request does
    poller.join();
    EXPECT_EQ(taken.load(), 0);
    EXPECT_TRUE(lock_.held());
    lock_.unlock();
}

TEST_F(ProgressLockTest, APollerTakesTheLockWhenItIsFreed) {
    lock_.lock();
    std::atomic<int> taken{-1};
    std::thread poller([&] {
        taken = lock_.lock_unless([] { return false; }) ? 1 : 0;
        lock_.unlock();
    });
    while (!lock_.wanted()) std::this_thread::yield();
    lock_.unlock();
    poller.join();
    EXPECT_EQ(taken.load(), 1);
    EXPECT_FALSE(lock_.held());
}

// The holder waits for something only a worker does, as Engine::block_until
// waits for a request another thread has yet to post.
TEST_F(ProgressLockTest, AHolderThatOnlyWaitsYieldsToWorkers) {
    for (const bool maybe_done : {false, true}) {
        SCOPED_TRACE(maybe_done ? "holder's wait may be over" : "holder's wait goes on");
        lock_.lock();
        std::atomic<bool> worked{false};
        std::thread worker([&] {
            lock_.lock();
            worked = true;
            lock_.unlock();
        });
        while (!worked) {
            if (lock_.wanted_by_workers()) {
                lock_.yield_to_workers([&] { return maybe_done; });
                EXPECT_TRUE(lock_.held());
            } else {
                std::this_thread::yield();
            }
        }
        worker.join();
        EXPECT_FALSE(lock_.wanted());
        lock_.unlock();
        EXPECT_FALSE(lock_.held());
    }
}

}  // namespace
}  // namespace si::p2p
