// A wake-up round trip (wake/): a thread sleeps on its word with the runtime's
// protocol (wake::sleep); this thread wakes it (wake_if_sleeping) and spins
// until the woken thread has run and is asleep again. One iteration: the
// waker's system call, the scheduler getting the sleeper a core, its return
// into the kernel. With the futex backend and with the si_wake module (kmod/),
// which a machine without /dev/si_wake cannot measure: that run is skipped
// with the reason.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "wake/backends.hpp"

namespace si::bench {
namespace {

using namespace std::chrono_literals;

void wake_round_trip(benchmark::State& state, config::WakeBackend choice) {
    if (const auto why = wake::backend_unavailable(choice)) {
        state.SkipWithError(why->c_str());
        for (auto _ : state) {
        }
        return;
    }
    auto backend = wake::make_backend(choice);
    alignas(64) std::atomic<std::uint32_t> word{0};
    alignas(64) std::atomic<std::uint32_t> handle{0};
    alignas(64) std::atomic<std::uint64_t> runs{0};
    std::atomic<bool> stop{false};
    backend->attach_sleeper(word, handle);
    backend->attach_waker(word, handle);
    std::thread sleeper([&] {
        while (!stop.load()) {
            if (wake::sleep(*backend, word, 1s, [&] { return !stop.load(); }) ==
                wake::SleepResult::woken)
                runs.fetch_add(1, std::memory_order_release);
        }
    });
    const auto asleep = [&] { return wake::state_of(word.load()) == wake::kSleeping; };
    std::uint64_t seen = 0;
    for (auto _ : state) {
        while (!asleep()) {
        }
        if (!wake::wake_if_sleeping(*backend, word)) {
            state.SkipWithError("found the sleeper awake");
            break;
        }
        while (runs.load(std::memory_order_acquire) == seen) {
        }
        ++seen;
    }
    stop.store(true);
    wake::post(*backend, word);
    sleeper.join();
}
BENCHMARK_CAPTURE(wake_round_trip, futex, config::WakeBackend::futex)->UseRealTime();
BENCHMARK_CAPTURE(wake_round_trip, kmod, config::WakeBackend::kmod)->UseRealTime();

}  // namespace
}  // namespace si::bench
