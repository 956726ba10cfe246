#include "progress/interrupt.hpp"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "base/trace.hpp"
#include "node/placement.hpp"
#include "wake/backends.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;

// Nothing but a message or the stop ends a sleep; the timeout only bounds
// the damage of a bug.
constexpr auto kIdleSleep = 500ms;
// A sleep begun while the application held the lock, with a transport that
// rings only once armed (verbs: no completion event would come): the thread
// looks again this soon.
constexpr auto kUnarmedSleep = 1ms;

}  // namespace

InterruptProgress::InterruptProgress(p2p::Engine& engine, node::RankBlock& block,
                                     const config::Settings& settings, bool arming_needed)
    : engine_(engine),
      block_(block),
      every_cpu_(settings.interrupt_placement == config::InterruptPlacement::any),
      arming_needed_(arming_needed),
      // Senders ring with the futex whatever SI_WAKE says: every rank of the
      // host wakes every other, as with the doorbell.
      backend_(wake::make_backend(config::WakeBackend::futex)) {
    backend_->attach_sleeper(block_.interrupt_word, block_.interrupt_handle);
    thread_ = std::thread([this] { run(); });
}

InterruptProgress::~InterruptProgress() { stop(); }

void InterruptProgress::stop() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    wake::post(*backend_, block_.interrupt_word);
    thread_.join();
}

void InterruptProgress::run() {
    // Signals belong to the application's threads.
    sigset_t all;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
    if (every_cpu_) node::allow_calling_thread_every_cpu();
    block_.interrupt_tid.store(static_cast<std::int32_t>(::gettid()), std::memory_order_release);
    trace::set_thread_role(trace::Thread::interrupt);
    p2p::ProgressLock& lock = engine_.lock();
    bool armed = true;
    while (!stop_.load()) {
        // The re-check of the sleep protocol is a pass with the transports
        // armed: a message before it is handled by it, one after it rings.
        // With the lock taken the application is inside MPI and sees what
        // comes meanwhile itself.
        const wake::SleepResult result = wake::sleep(
            *backend_, block_.interrupt_word, armed ? kIdleSleep : kUnarmedSleep, [&] {
                if (stop_.load()) return false;
                if (!lock.try_lock_in_background()) {
                    armed = !arming_needed_;
                    return true;
                }
                const int events = engine_.progress_before_sleep(armed);
                lock.unlock_background();
                if (events != 0) rechecks_with_work_.fetch_add(1, std::memory_order_relaxed);
                return events == 0;
            });
        if (result != wake::SleepResult::woken || stop_.load()) continue;
        wakeups_.fetch_add(1, std::memory_order_relaxed);
        trace::record(trace::Event::interrupt_running, -1, 0, ::sched_getcpu());
        if (!lock.try_lock_in_background()) {
            // The application is inside MPI, and may have taken its last
            // look at the transports before this message came: the pass
            // follows once it leaves, as for a thread blocked on a mutex.
            locked_wakeups_.fetch_add(1, std::memory_order_relaxed);
            if (!lock.lock_in_background_unless([this] { return stop_.load(); })) continue;
        }
        const std::uint64_t before = engine_.advances();
        engine_.progress_in_background();
        const bool futile = engine_.advances() == before;
        lock.unlock_background();
        if (futile) futile_wakeups_.fetch_add(1, std::memory_order_relaxed);
    }
}

std::vector<Counter> InterruptProgress::counters() const {
    return {
        {"wakeups", wakeups_.load()},
        {"futile_wakeups", futile_wakeups_.load()},
        {"locked_wakeups", locked_wakeups_.load()},
        {"rechecks_with_work", rechecks_with_work_.load()},
    };
}

}  // namespace si::progress
