// The progress-engine lock of one rank.
//
// Its word lives in the rank's block of the node region, so helper processes
// can see whether the rank is inside its progress engine (word != 0) and skip
// it. States: 0 free, 1 held, 2 held and someone sleeps in futex_wait.
// Application threads that want the lock are counted, so that a background
// progress thread can step aside for them (it only ever try_lock()s).
#pragma once

#include <atomic>
#include <cstdint>

#include "wake/wake_word.hpp"

namespace si::p2p {

class ProgressLock {
public:
    // `host_waiters` (may be null) counts the threads of every rank of the
    // host that wait for their rank's lock.
    explicit ProgressLock(std::atomic<std::uint32_t>& word,
                          std::atomic<std::int32_t>* host_waiters = nullptr)
        : word_(word), host_waiters_(host_waiters) {}
    ProgressLock(const ProgressLock&) = delete;
    ProgressLock& operator=(const ProgressLock&) = delete;

    bool try_lock() {
        std::uint32_t expected = 0;
        return word_.compare_exchange_strong(expected, 1, std::memory_order_acquire,
                                             std::memory_order_relaxed);
    }
    void lock();
    void unlock();
    // For a holder that only waits (Engine::block_until): lets a thread that
    // wants the lock have it, then takes it back after it. Unlocking alone
    // would not do: the holder would take the lock again before a waiter
    // woken from the futex gets a CPU, over and over.
    void yield_to_waiters();

    bool held() const { return word_.load(std::memory_order_relaxed) != 0; }
    bool wanted() const { return contenders_.load() != 0; }

    // A holder may sleep on this word (Engine::wait); lock() rings it so that
    // the holder wakes and hands the lock over.
    void set_doorbell(std::atomic<std::uint32_t>& word, wake::Backend& backend) {
        doorbell_ = &word;
        backend_ = &backend;
    }

private:
    std::atomic<std::uint32_t>& word_;
    std::atomic<int> contenders_{0};
    std::atomic<std::int32_t>* host_waiters_;
    std::atomic<std::uint32_t>* doorbell_ = nullptr;
    wake::Backend* backend_ = nullptr;
};

// Scoped holder.
class ProgressGuard {
public:
    explicit ProgressGuard(ProgressLock& lock) : lock_(lock) { lock_.lock(); }
    ~ProgressGuard() { lock_.unlock(); }
    ProgressGuard(const ProgressGuard&) = delete;
    ProgressGuard& operator=(const ProgressGuard&) = delete;

private:
    ProgressLock& lock_;
};

}  // namespace si::p2p
