// What SI_PROGRESS=pef pays per receive that misses its RTS, before any
// progress: arming its thread's timer (one timer_settime) and disarming it
// when the application waits, and, when the turn comes, the signal's delivery
// into the thread and the return from the handler. On a virtual machine a
// near deadline is programmed through the hypervisor, which these numbers
// show next to a far one (a deadline past the next tick needs no
// reprogramming).
#include <benchmark/benchmark.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace si::bench {
namespace {

std::atomic<std::uint64_t> g_signals{0};

void count_signal(int) { g_signals.fetch_add(1, std::memory_order_relaxed); }

// The calling thread's timer, signalling it as PefProgress's do.
class ThreadTimer {
  public:
    ThreadTimer() {
        struct sigaction action {};
        action.sa_handler = count_signal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        ::sigaction(signal_, &action, &previous_);
        sigevent event{};
        event.sigev_notify = SIGEV_THREAD_ID;
        event.sigev_signo = signal_;
        event._sigev_un._tid = ::gettid();
        ok_ = ::timer_create(CLOCK_MONOTONIC, &event, &timer_) == 0;
    }
    ~ThreadTimer() {
        if (ok_) ::timer_delete(timer_);
        ::sigaction(signal_, &previous_, nullptr);
    }
    bool ok() const { return ok_; }
    void arm(std::int64_t ns) {
        itimerspec when{};
        when.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
        when.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
        ::timer_settime(timer_, 0, &when, nullptr);
    }

  private:
    const int signal_ = SIGRTMIN + 4;
    struct sigaction previous_ {};
    timer_t timer_{};
    bool ok_ = false;
};

bool skipped_without(const ThreadTimer& timer, benchmark::State& state) {
    if (timer.ok()) return false;
    state.SkipWithError("timer_create failed");
    for (auto _ : state) {
    }
    return true;
}

// Arms the timer `ns` ahead and disarms it at once: a receive waited for
// before its first turn.
void timer_arm_disarm(benchmark::State& state) {
    ThreadTimer timer;
    if (skipped_without(timer, state)) return;
    const std::int64_t ns = state.range(0);
    const std::uint64_t before = g_signals.load();
    for (auto _ : state) {
        timer.arm(ns);
        timer.arm(0);
    }
    state.counters["signals_per_iteration"] = benchmark::Counter(
        static_cast<double>(g_signals.load() - before), benchmark::Counter::kAvgIterations);
}
BENCHMARK(timer_arm_disarm)
    ->Arg(2'000)
    ->Arg(100'000)
    ->Arg(5'000'000)  // SI_PEF_PREDICT's deferred phase
    ->Arg(1'000'000'000)
    ->UseRealTime();

// Arms the timer 2 us ahead (the default phase) and spins until its signal
// has been handled: one turn of the watchdog that finds nothing.
void timer_turn(benchmark::State& state) {
    ThreadTimer timer;
    if (skipped_without(timer, state)) return;
    for (auto _ : state) {
        const std::uint64_t seen = g_signals.load();
        timer.arm(2'000);
        while (g_signals.load(std::memory_order_relaxed) == seen) {
        }
    }
}
BENCHMARK(timer_turn)->UseRealTime();

}  // namespace
}  // namespace si::bench
