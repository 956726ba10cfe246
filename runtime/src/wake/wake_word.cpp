#include "wake/wake_word.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace si::wake {

namespace detail {
bool plain_wakers = false;
}  // namespace detail

namespace {

long membarrier(int command) { return ::syscall(__NR_membarrier, command, 0, 0); }

bool barrier_available() {
    const long commands = membarrier(MEMBARRIER_CMD_QUERY);
    return commands >= 0 && (commands & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0;
}

}  // namespace

bool enable_plain_wakers() {
    detail::plain_wakers =
        barrier_available() && membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
    return detail::plain_wakers;
}

bool barrier_for_plain_wakers() {
    // Wakers of other processes may be registered whatever this one did.
    static const bool available = barrier_available();
    return available ? membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0 : true;
}

SleepResult sleep(Backend& backend, std::atomic<std::uint32_t>& word,
                  std::chrono::milliseconds timeout, const std::function<bool()>& idle) {
    std::uint32_t current = word.load();
    // Only a waker changes the word, and only to `woken`: consume its wake.
    if (state_of(current) == kWoken || !word.compare_exchange_strong(
                                           current, with_state(current + (1u << 2), kSleeping))) {
        word.store(with_state(current, kRunning));
        return SleepResult::woken;
    }
    const std::uint32_t armed = with_state(current + (1u << 2), kSleeping);
    if (!idle())
        return state_of(word.exchange(with_state(armed, kRunning))) == kWoken ? SleepResult::woken
                                                                              : SleepResult::not_idle;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (word.load() == armed) {
        // Rounded up: a timeout under a millisecond must still sleep.
        const auto left =
            std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        backend.wait(word, left);
    }
    return state_of(word.exchange(with_state(armed, kRunning))) == kWoken ? SleepResult::woken
                                                                          : SleepResult::timed_out;
}

bool wake_if_still_sleeping(Backend& backend, std::atomic<std::uint32_t>& word,
                            std::uint32_t seen) {
    if (state_of(seen) != kSleeping) return false;
    if (!word.compare_exchange_strong(seen, with_state(seen, kWoken))) return false;
    backend.wake(word);
    return true;
}

void post(Backend& backend, std::atomic<std::uint32_t>& word) {
    std::uint32_t current = word.load();
    while (!word.compare_exchange_weak(current, with_state(current, kWoken))) {
    }
    if (state_of(current) == kSleeping) backend.wake(word);
}

}  // namespace si::wake
