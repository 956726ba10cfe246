// The rank's progress lock between threads: mutual exclusion, pollers that
// leave without the lock once their request is done, a holder that only
// waits handing the lock to workers and taking it back, and threads that spin
// rather than sleep while a background thread holds it on another CPU; and
// the biased lock of SmartInterrupts below MPI_THREAD_MULTIPLE.
#include "p2p/progress_lock.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
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
    // A background thread takes the lock only when it is free, as the
    // interrupt and progress threads do.
    long background_rounds = 0;
    threads.emplace_back([&] {
        for (int i = 0; i < kRounds; ++i) {
            if (!lock_.try_lock_in_background()) continue;
            ++counter;
            ++background_rounds;
            lock_.unlock();
        }
    });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(counter, 4L * kRounds + background_rounds);
    EXPECT_FALSE(lock_.held());
    EXPECT_FALSE(lock_.wanted());
    EXPECT_EQ(host_waiters_.load(), 0);
}

// set_biased(): one application thread at a time with plain stores, a
// background thread with the process-wide barrier. (Under ThreadSanitizer
// set_biased() declines and this runs the ordinary lock.)
TEST_F(ProgressLockTest, BiasedApplicationAndBackgroundExcludeEachOther) {
    (void)lock_.set_biased();
    constexpr int kRounds = 200000;
    long counter = 0;
    long background_rounds = 0;
    std::atomic<bool> done{false};
    std::thread background([&] {
        while (!done.load()) {
            if (!lock_.try_lock_in_background()) continue;
            ++counter;
            ++background_rounds;
            lock_.unlock_background();
        }
    });
    for (int i = 0; i < kRounds; ++i) {
        if (i % 2 == 0)
            lock_.lock();
        else
            ASSERT_TRUE(lock_.lock_unless([] { return false; }));
        ++counter;
        lock_.unlock();
    }
    done.store(true);
    background.join();
    EXPECT_EQ(counter, kRounds + background_rounds);
    EXPECT_FALSE(lock_.held());
}

TEST_F(ProgressLockTest, BiasedApplicationWaitsForABackgroundPass) {
    (void)lock_.set_biased();
    ASSERT_TRUE(lock_.try_lock_in_background());
    std::atomic<bool> taken{false};
    std::thread application([&] {
        lock_.lock();
        taken.store(true);
        lock_.unlock();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(taken.load());
    lock_.unlock_background();
    application.join();
    EXPECT_TRUE(taken.load());
    // And the background steps aside while the application holds it.
    lock_.lock();
    EXPECT_FALSE(lock_.try_lock_in_background());
    lock_.unlock();
    EXPECT_TRUE(lock_.try_lock_in_background());
    lock_.unlock_background();
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

// A thread that wants the lock while a background thread holds it on another
// CPU spins (no voluntary context switch) within the spin budget, and sleeps
// once the budget is spent; it always ends up with the lock.
class BackgroundHolderTest : public ProgressLockTest {
protected:
    void SetUp() override {
        cpu_set_t allowed;
        ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
        for (int cpu = 0; cpu < CPU_SETSIZE && cpus_.size() < 2; ++cpu)
            if (CPU_ISSET(cpu, &allowed)) cpus_.push_back(cpu);
        if (cpus_.size() < 2) GTEST_SKIP() << "needs two CPUs";
    }

    static void bind_to(int cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ASSERT_EQ(::pthread_setaffinity_np(::pthread_self(), sizeof one, &one), 0);
    }

    static long voluntary_switches() {
        rusage usage{};
        ::getrusage(RUSAGE_THREAD, &usage);
        return usage.ru_nvcsw;
    }

    // The holder, bound to the first CPU, keeps the lock for `hold`; a
    // worker or a poller bound to `waiter_cpu` wants it meanwhile. Returns
    // the waiter's voluntary context switches while it waited.
    long wait_for_background_holder(bool poller, int waiter_cpu, std::chrono::milliseconds hold) {
        std::atomic<bool> held{false};
        std::thread holder([&] {
            bind_to(cpus_[0]);
            while (!lock_.try_lock_in_background()) std::this_thread::yield();
            held = true;
            const auto until = std::chrono::steady_clock::now() + hold;
            while (std::chrono::steady_clock::now() < until) cpu_relax();
            lock_.unlock();
        });
        long switches = -1;
        std::thread waiter([&] {
            bind_to(waiter_cpu);
            while (!held) cpu_relax();
            const long before = voluntary_switches();
            if (poller)
                EXPECT_TRUE(lock_.lock_unless([] { return false; }));
            else
                lock_.lock();
            switches = voluntary_switches() - before;
            lock_.unlock();
        });
        holder.join();
        waiter.join();
        EXPECT_FALSE(lock_.held());
        return switches;
    }

    std::vector<int> cpus_;
};

TEST_F(BackgroundHolderTest, WaitersOnAnotherCpuSpinWithinTheBudget) {
    lock_.set_background_spin(std::chrono::seconds(10));
    for (const bool poller : {false, true}) {
        SCOPED_TRACE(poller ? "poller" : "worker");
        EXPECT_EQ(wait_for_background_holder(poller, cpus_[1], std::chrono::milliseconds(20)), 0);
    }
}

TEST_F(BackgroundHolderTest, WaitersSleepOnceTheBudgetIsSpent) {
    lock_.set_background_spin(std::chrono::milliseconds(1));
    for (const bool poller : {false, true}) {
        SCOPED_TRACE(poller ? "poller" : "worker");
        EXPECT_GE(wait_for_background_holder(poller, cpus_[1], std::chrono::milliseconds(50)), 1);
    }
}

TEST_F(BackgroundHolderTest, AWaiterOnTheHoldersCpuSleepsAtOnce) {
    // Spinning there would only keep the holder from finishing.
    lock_.set_background_spin(std::chrono::seconds(10));
    EXPECT_GE(wait_for_background_holder(false, cpus_[0], std::chrono::milliseconds(20)), 1);
}

}  // namespace
}  // namespace si::p2p
