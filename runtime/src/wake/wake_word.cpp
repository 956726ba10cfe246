#include "wake/wake_word.hpp"

namespace si::wake {

SleepResult sleep(Backend& backend, std::atomic<std::uint32_t>& word,
                  std::chrono::milliseconds timeout, const std::function<bool()>& idle) {
    std::uint32_t expected = kRunning;
    if (!word.compare_exchange_strong(expected, kSleeping)) {
        word.store(kRunning);  // only a waker changes the word, and only to kWoken
        return SleepResult::woken;
    }
    if (!idle()) return word.exchange(kRunning) == kWoken ? SleepResult::woken : SleepResult::not_idle;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (word.load() == kSleeping) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        backend.wait(word, left);
    }
    return word.exchange(kRunning) == kWoken ? SleepResult::woken : SleepResult::timed_out;
}

bool wake_if_sleeping(Backend& backend, std::atomic<std::uint32_t>& word) {
    // A read-modify-write, not a load: see "No wake-up is lost" in the header.
    if (word.fetch_add(0) != kSleeping) return false;
    std::uint32_t expected = kSleeping;
    if (!word.compare_exchange_strong(expected, kWoken)) return false;
    backend.wake(word);
    return true;
}

void post(Backend& backend, std::atomic<std::uint32_t>& word) {
    if (word.exchange(kWoken) == kSleeping) backend.wake(word);
}

}  // namespace si::wake
