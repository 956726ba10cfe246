#include "wake/wake_word.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "wake/backends.hpp"

namespace si::wake {
namespace {

using namespace std::chrono_literals;

// Counts what the protocol asks of the kernel.
class CountingBackend final : public Backend {
public:
    explicit CountingBackend(std::unique_ptr<Backend> real) : real_(std::move(real)) {}
    const char* name() const override { return "counting"; }
    void wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout) override {
        waits.fetch_add(1);
        real_->wait(word, timeout);
    }
    void wake(std::atomic<std::uint32_t>& word) override {
        wakes.fetch_add(1);
        real_->wake(word);
    }
    std::atomic<int> waits{0};
    std::atomic<int> wakes{0};

private:
    std::unique_ptr<Backend> real_;
};

CountingBackend futex_backend() { return CountingBackend(make_backend(config::WakeBackend::futex)); }

TEST(WakeWord, NoWakerMeansTimeout) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    EXPECT_EQ(sleep(backend, word, 20ms, [] { return true; }), SleepResult::timed_out);
    EXPECT_EQ(state_of(word.load()), kRunning);
}

TEST(WakeWord, WakingARunningSleeperDoesNothing) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    EXPECT_FALSE(wake_if_sleeping(backend, word));
    EXPECT_EQ(backend.wakes.load(), 0) << "no system call for a thread that is not asleep";
    EXPECT_EQ(word.load(), kRunning);
}

TEST(WakeWord, ReCheckSeesWorkPublishedBeforeArming) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    EXPECT_EQ(sleep(backend, word, 10s, [] { return false; }), SleepResult::not_idle);
    EXPECT_EQ(backend.waits.load(), 0);
    EXPECT_EQ(state_of(word.load()), kRunning);
}

TEST(WakeWord, PostBeforeSleepEndsTheNextSleepAtOnce) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    post(backend, word);
    EXPECT_EQ(sleep(backend, word, 10s, [] { return true; }), SleepResult::woken);
    EXPECT_EQ(backend.waits.load(), 0);
}

TEST(WakeWord, WakeReachesASleeper) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    std::thread sleeper([&] { EXPECT_EQ(sleep(backend, word, 10s, [] { return true; }), SleepResult::woken); });
    while (state_of(word.load()) != kSleeping) std::this_thread::yield();
    EXPECT_TRUE(wake_if_sleeping(backend, word));
    sleeper.join();
    EXPECT_EQ(backend.wakes.load(), 1);
}

// A waker that saw one sleep may not end the next one: the sleeper already
// acted on what made the waker decide.
TEST(WakeWord, AWakeDecidedDuringOneSleepDoesNotEndTheNext) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    std::uint32_t seen = 0;
    std::thread sleeper([&] {
        EXPECT_EQ(sleep(backend, word, 10s, [] { return true; }), SleepResult::woken);
        EXPECT_EQ(sleep(backend, word, 50ms, [] { return true; }), SleepResult::timed_out);
    });
    while (state_of(seen = word.load()) != kSleeping) std::this_thread::yield();
    EXPECT_TRUE(wake_if_sleeping(backend, word));  // ends the first sleep
    std::uint32_t next = 0;
    while (state_of(next = word.load()) != kSleeping || next == seen) std::this_thread::yield();
    EXPECT_FALSE(wake_if_still_sleeping(backend, word, seen)) << "a late waker ended the next sleep";
    sleeper.join();
    EXPECT_EQ(backend.wakes.load(), 1);
}

// The protocol end to end: a producer publishes items and wakes; a consumer
// sleeps whenever it sees none. Every item must be consumed without the
// consumer ever sleeping through its timeout (a lost wake-up), and every
// wake-up fired must end a sleep (none spurious).
TEST(WakeWord, NoLostAndNoSpuriousWakeUps) {
    auto backend = futex_backend();
    std::atomic<std::uint32_t> word{kRunning};
    std::atomic<int> published{0};
    constexpr int kItems = 20000;
    int consumed = 0, woken = 0, timeouts = 0;
    std::thread consumer([&] {
        while (consumed < kItems) {
            if (consumed < published.load()) {
                ++consumed;
                continue;
            }
            const SleepResult result =
                sleep(backend, word, 2s, [&] { return consumed == published.load(); });
            woken += result == SleepResult::woken;
            timeouts += result == SleepResult::timed_out;
        }
    });
    int fired = 0;
    for (int i = 0; i < kItems; ++i) {
        published.fetch_add(1);
        fired += wake_if_sleeping(backend, word);
        if (i % 64 == 0) std::this_thread::yield();
    }
    consumer.join();
    EXPECT_EQ(timeouts, 0) << "a sleep ran into its timeout: a wake-up was lost";
    EXPECT_EQ(fired, woken) << "every wake-up fired ends exactly one sleep";
    EXPECT_EQ(backend.wakes.load(), fired);
}

}  // namespace
}  // namespace si::wake
