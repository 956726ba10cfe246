#include "p2p/progress_lock.hpp"

#include <sched.h>

#include "base/cpu.hpp"
#include "base/futex.hpp"

namespace si::p2p {

namespace {
// Critical sections are short; spin about a microsecond or two before sleeping.
constexpr int kSpins = 2000;
}  // namespace

void ProgressLock::lock() {
    if (try_lock()) return;
    // Sequentially consistent, against the holder's arm-then-check-wanted().
    contenders_.fetch_add(1);
    if (host_waiters_ != nullptr) host_waiters_->fetch_add(1, std::memory_order_relaxed);
    const auto acquired = [this] {
        contenders_.fetch_sub(1, std::memory_order_relaxed);
        if (host_waiters_ != nullptr) host_waiters_->fetch_sub(1, std::memory_order_relaxed);
    };
    if (doorbell_ != nullptr) wake::wake_if_sleeping(*backend_, *doorbell_);
    for (int spin = 0; spin < kSpins; ++spin) {
        if (word_.load(std::memory_order_relaxed) == 0 && try_lock()) {
            acquired();
            return;
        }
        cpu_relax();
    }
    // Mark the lock contended (2) and sleep until the holder's unlock wakes us.
    // Taking the lock in state 2 is conservative: the next unlock makes one
    // extra futex_wake call at worst, and no wake-up is ever lost.
    std::uint32_t previous = word_.exchange(2, std::memory_order_acquire);
    while (previous != 0) {
        futex::wait(word_, 2);
        previous = word_.exchange(2, std::memory_order_acquire);
    }
    acquired();
}

void ProgressLock::yield_to_waiters() {
    // A waiter that sleeps in the futex (state 2) needs a wake-up of tens of
    // microseconds before it can take the lock: wait for it, or the holder
    // would win every race meanwhile and the waiter go back to sleep. One
    // that spins takes the lock within the relax.
    const bool sleeper = word_.load(std::memory_order_relaxed) == 2;
    unlock();
    if (sleeper)
        while (wanted() && !held()) ::sched_yield();
    else
        cpu_relax();
    lock();
}

void ProgressLock::unlock() {
    if (word_.exchange(0, std::memory_order_release) == 2) futex::wake(word_, 1);
}

}  // namespace si::p2p
