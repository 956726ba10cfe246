#include "p2p/progress_lock.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace si::p2p {

namespace {

// Critical sections are short; spin about a microsecond or two before sleeping.
constexpr int kSpins = 2000;

// Spinning only helps when the holder can run meanwhile. A thread confined to
// one CPU (a rank bound to a core, all its threads with it) would only delay
// the holder it waits for until the scheduler preempts the spin: 16-20 us per
// message instead of 3.6 us with two threads of a rank taking turns on a core.
bool holder_may_run_meanwhile() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return true;
    return CPU_COUNT(&set) > 1;
}

}  // namespace

int ProgressLock::spins_worth_trying() { return holder_may_run_meanwhile() ? kSpins : 0; }

bool ProgressLock::set_biased() {
#if defined(__SANITIZE_THREAD__)
    return false;
#else
    const long commands = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    biased_ = commands >= 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
              ::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    return biased_;
#endif
}

bool ProgressLock::try_lock_biased_in_background() {
    background_.store(kHeld, std::memory_order_relaxed);
    // Every thread of the process passes a full barrier: an application
    // thread that stored kHeld before it is seen below, one that stores it
    // after sees kHeld here in try_lock_biased() and waits.
    if (::syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0 ||
        word_.load(std::memory_order_acquire) != kFree) {
        unlock_background();
        return false;
    }
    background_cpu_.store(::sched_getcpu(), std::memory_order_relaxed);
    return true;
}

void ProgressLock::wait_for_background() {
    // As a worker would: polls while the pass runs on another CPU, within the
    // budget, rather than paying a cross-CPU wake-up after it.
    if (spin_while_background_runs(
            [&] { return background_.load(std::memory_order_relaxed) == kFree; }))
        return;
    for (;;) {
        std::uint32_t state = background_.load(std::memory_order_relaxed);
        if (state == kFree) return;
        if (state == kHeld && !background_.compare_exchange_strong(state, kContended)) continue;
        futex::wait(background_, kContended);
    }
}

void ProgressLock::contend_as_worker() {
    if (biased_) {
        while (!try_lock_biased()) wait_for_background();
        return;
    }
    count(workers_, 1);
    if (doorbell_ != nullptr) wake::wake_if_sleeping(*backend_, *doorbell_);
    bool taken = false;
    for (int spin = spins_worth_trying(); spin > 0 && !taken; --spin) {
        const std::uint32_t state = word_.load(std::memory_order_relaxed);
        if (state == kReserved) break;
        taken = state == kFree && try_lock();
        cpu_relax();
    }
    if (!taken) {
        (void)spin_while_background_runs([&] {
            const std::uint32_t state = word_.load(std::memory_order_relaxed);
            taken = state == kFree && try_lock();
            return taken || state == kReserved;
        });
    }
    if (!taken) work_for_lock();
    count(workers_, -1);
}

void ProgressLock::work_for_lock() {
    for (;;) {
        std::uint32_t state = word_.load(std::memory_order_relaxed);
        if (state == kFree || state == kReserved) {
            if (word_.compare_exchange_strong(state, kContended, std::memory_order_acquire,
                                              std::memory_order_relaxed))
                return;
            continue;
        }
        if (state == kHeld &&
            !word_.compare_exchange_strong(state, kContended, std::memory_order_relaxed))
            continue;
        futex::wait(word_, kContended);
    }
}

}  // namespace si::p2p
