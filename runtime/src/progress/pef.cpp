#include "progress/pef.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/clock.hpp"
#include "base/log.hpp"

namespace si::progress {

namespace {

// The instance the handler serves; null once stop() began. Handlers count
// themselves in before they look, so that stop() can wait for the last one.
std::atomic<PefProgress*> g_active{nullptr};
std::atomic<int> g_handlers_running{0};

// A turn at least every second, whatever the decay and the number of turns.
constexpr std::int64_t kLongestDelayNs = 1'000'000'000;

thread_local void* t_watcher_owner = nullptr;
thread_local void* t_watcher = nullptr;

}  // namespace

PefProgress::PefProgress(p2p::Engine& engine, const config::Settings& settings)
    : engine_(engine),
      phase_ns_(std::int64_t{settings.pef_phase_us} * 1000),
      period_ns_(std::int64_t{settings.pef_period_us} * 1000),
      decay_(settings.pef_decay),
      max_turns_(settings.pef_max_turns),
      predict_(settings.pef_predict),
      signal_(SIGRTMIN + kSignalOffset) {
    struct sigaction action {};
    action.sa_sigaction = &PefProgress::on_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    struct sigaction previous {};
    if (::sigaction(signal_, &action, &previous) != 0) {
        log::warn("SI_PROGRESS=pef: cannot install the handler of signal {} ({}); receives "
                  "progress only inside MPI calls",
                  signal_, std::strerror(errno));
        timers_failed_ = true;
        return;
    }
    if ((previous.sa_flags & SA_SIGINFO) != 0 || (previous.sa_handler != SIG_DFL &&
                                                  previous.sa_handler != SIG_IGN))
        log::warn("SI_PROGRESS=pef: the application's handler of signal SIGRTMIN+{} is "
                  "replaced by the watchdog's",
                  kSignalOffset);
    g_active.store(this);
    engine_.set_progress_observer(this);
}

PefProgress::~PefProgress() { stop(); }

void PefProgress::stop() {
    if (stopped_.exchange(true)) return;
    g_active.store(nullptr);
    const int count = watcher_count_.load();
    for (int i = 0; i < count; ++i) ::timer_delete(watchers_[static_cast<std::size_t>(i)].timer);
    // Ignoring the signal discards one still pending; the default action of
    // a real-time signal would end the process.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(signal_, &ignore, nullptr);
    while (g_handlers_running.load() != 0) ::sched_yield();
    engine_.set_progress_observer(nullptr);
}

void PefProgress::on_signal(int, siginfo_t* info, void*) {
    const int saved_errno = errno;
    g_handlers_running.fetch_add(1);
    PefProgress* pef = g_active.load();
    auto* watcher = static_cast<Watcher*>(info->si_value.sival_ptr);
    if (pef != nullptr && info->si_code == SI_TIMER && watcher != nullptr &&
        watcher->owner == pef)
        pef->take_turn(*watcher);
    g_handlers_running.fetch_sub(1);
    errno = saved_errno;
}

void PefProgress::take_turn(Watcher& watcher) {
    const auto started = static_cast<std::int64_t>(monotonic_ns());
    signals_.fetch_add(1, std::memory_order_relaxed);
    if (watcher.restart.exchange(false)) {
        watcher.turns = 0;
        watcher.delay_ns = period_ns_;
    }
    ++watcher.turns;
    p2p::ProgressLock& lock = engine_.lock();
    watcher.armed.store(false);
    const bool in_mpi = !lock.try_lock_in_signal_handler();
    bool watching = true;
    if (in_mpi) {
        // The application is inside MPI and progresses by itself. A thread
        // whose waits come at once is most likely in the wait its deferred
        // turn was left running for (wait_begins): the wait's end restarts.
        busy_turns_.fetch_add(1, std::memory_order_relaxed);
        watching = !watcher.deferred;
    } else {
        if (watcher.count > 0) {
            // The thread is outside MPI with a receive watched (unwatch()
            // weighs that). A deferred turn comes milliseconds after the
            // receive: the thread computes, and the paper's phase helps it.
            ++watcher.computing_turns;
            if (watcher.deferred) {
                watcher.waits_at_once = 0;
                watcher.deferred = false;
            }
        }
        const std::uint64_t before = engine_.advances();
        engine_.progress_in_signal_handler();
        if (engine_.advances() == before) futile_turns_.fetch_add(1, std::memory_order_relaxed);
        prune(watcher, true);
        watching = watcher.count > 0;
        lock.unlock();
    }
    if (watching && watcher.turns >= max_turns_) {
        gave_up_.fetch_add(1, std::memory_order_relaxed);
    } else if (watching) {
        arm(watcher, watcher.delay_ns);
        watcher.delay_ns = std::min(watcher.delay_ns * decay_, kLongestDelayNs);
    }
    // Outside MPI, the turn's time is still not the application's.
    if (!in_mpi) {
        const std::int64_t took = static_cast<std::int64_t>(monotonic_ns()) - started;
        watcher.waited_until_ns += took;
        for (int i = 0; i < watcher.count; ++i)
            watcher.watched[static_cast<std::size_t>(i)].posted_ns += took;
    }
}

void PefProgress::receive_posted(p2p::Request& request, bool blocking) {
    // A blocking receive is progressed by its waiting caller; one with a
    // completion hook (a collective's) cannot complete in a signal handler.
    if (blocking || request.hook) return;
    // On shared memory no turn can help: its read would copy on the core the
    // application computes on, as the wait does anyway, and every turn only
    // takes time from the computation (-106 % overlap at 64 KiB with turns).
    if (!engine_.background_reads_pay(request.peer)) {
        left_to_wait_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    Watcher* watcher = watcher_of_this_thread();
    if (watcher == nullptr) {
        unwatched_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    prune(*watcher, false);
    if (watcher->count == Watcher::kCapacity) {
        unwatched_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    Watcher::Watched& entry = watcher->watched[static_cast<std::size_t>(watcher->count++)];
    entry = {&request, request.wire_id(), 0, watcher->computing_turns};
    engine_.prepare_for_signal_pass(request);
    restart(*watcher);
    // After the registration and the arming, which are MPI's time.
    entry.posted_ns = static_cast<std::int64_t>(monotonic_ns());
}

void PefProgress::restart(Watcher& watcher) {
    sequences_.fetch_add(1, std::memory_order_relaxed);
    watcher.restart.store(true);
    if (!watcher.deferred) {
        // A turn due before the arming call returns lands inside MPI.
        arm(watcher, std::max(phase_ns_, 2 * watcher.arm_ns));
        return;
    }
    deferred_sequences_.fetch_add(1, std::memory_order_relaxed);
    // A deferred turn still on its way (waits leave it running) serves this
    // receive as well, a little sooner: no system call at all.
    if (!watcher.armed.load()) arm(watcher, std::max(kDeferredPhaseNs, phase_ns_));
}

void PefProgress::wait_begins(p2p::Request* lead) {
    Watcher* watcher = this_thread_watcher();
    if (watcher == nullptr) return;
    for (int i = 0; i < watcher->count; ++i) {
        if (watcher->watched[static_cast<std::size_t>(i)].request != lead) continue;
        unwatch(*watcher, i, false);
        break;
    }
    // A deferred turn is left to come: it costs less than a disarm, and
    // only if the wait lasts that long (then a turn that finds nothing
    // watched stops there).
    if (watcher->armed.load() && !watcher->deferred) arm(*watcher, 0);
}

void PefProgress::wait_ends() {
    Watcher* watcher = this_thread_watcher();
    if (watcher == nullptr) return;
    // The blocking call was MPI's time, and so is arming the timer again.
    watcher->waited_until_ns = static_cast<std::int64_t>(monotonic_ns());
    prune(*watcher, false);
    if (watcher->count > 0) restart(*watcher);
    watcher->waited_until_ns = static_cast<std::int64_t>(monotonic_ns());
}

PefProgress::Watcher* PefProgress::this_thread_watcher() {
    return t_watcher_owner == this ? static_cast<Watcher*>(t_watcher) : nullptr;
}

PefProgress::Watcher* PefProgress::watcher_of_this_thread() {
    if (Watcher* watcher = this_thread_watcher()) return watcher;
    const std::lock_guard<std::mutex> guard(create_mutex_);
    if (timers_failed_ || stopped_.load()) return nullptr;
    const int index = watcher_count_.load();
    if (index == kMaxThreads) {
        log::warn("SI_PROGRESS=pef: more than {} threads post receives; the others' are not "
                  "watched",
                  kMaxThreads);
        timers_failed_ = true;
        return nullptr;
    }
    Watcher& watcher = watchers_[static_cast<std::size_t>(index)];
    watcher.owner = this;
    watcher.tid = ::gettid();
    sigevent event{};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = signal_;
    event.sigev_value.sival_ptr = &watcher;
    event._sigev_un._tid = watcher.tid;  // sigev_notify_thread_id, not in glibc 2.36
    if (::timer_create(CLOCK_MONOTONIC, &event, &watcher.timer) != 0) {
        log::warn("SI_PROGRESS=pef: timer_create failed ({}); receives progress only inside "
                  "MPI calls",
                  std::strerror(errno));
        timers_failed_ = true;
        return nullptr;
    }
    watcher_count_.store(index + 1);
    t_watcher_owner = this;
    t_watcher = &watcher;
    return &watcher;
}

void PefProgress::prune(Watcher& watcher, bool in_turn) {
    for (int i = 0; i < watcher.count;) {
        const Watcher::Watched& entry = watcher.watched[static_cast<std::size_t>(i)];
        if (entry.request->wire_id() == entry.id &&
            entry.request->phase == p2p::Request::Phase::posted)
            ++i;
        else
            unwatch(watcher, i, in_turn);
    }
}

void PefProgress::unwatch(Watcher& watcher, int index, bool in_turn) {
    Watcher::Watched& entry = watcher.watched[static_cast<std::size_t>(index)];
    if (predict_ && !in_turn) {
        // The RTS was taken, or the wait begins, inside MPI. The thread
        // computed meanwhile if it spent SI_PEF_PERIOD_US outside MPI, and
        // outside the turns' passes, since it posted the receive or left its
        // last blocking call. With the
        // paper's phase a turn often lands inside the receive's own call on
        // a virtual machine, which makes that time look long: then a turn
        // must also have found the thread outside MPI. Deferred, no turn
        // comes that soon. (A turn that takes the RTS found it outside MPI:
        // take_turn counted that.)
        const std::int64_t since = static_cast<std::int64_t>(monotonic_ns()) -
                                   std::max(entry.posted_ns, watcher.waited_until_ns);
        const bool computed =
            since >= period_ns_ &&
            (watcher.deferred || watcher.computing_turns != entry.computing_turns);
        watcher.waits_at_once = computed ? 0 : watcher.waits_at_once + 1;
        watcher.deferred = watcher.waits_at_once >= kWaitsBeforeDeferring;
    }
    entry = watcher.watched[static_cast<std::size_t>(--watcher.count)];
}

void PefProgress::arm(Watcher& watcher, std::int64_t ns) {
    constexpr std::int64_t kSecond = 1'000'000'000;
    watcher.armed.store(ns != 0);
    itimerspec when{};
    when.it_value.tv_sec = static_cast<time_t>(ns / kSecond);
    when.it_value.tv_nsec = static_cast<long>(ns % kSecond);
    const auto before = static_cast<std::int64_t>(monotonic_ns());
    ::timer_settime(watcher.timer, 0, &when, nullptr);
    const std::int64_t took = static_cast<std::int64_t>(monotonic_ns()) - before;
    watcher.arm_ns = watcher.arm_ns == 0 ? took : (7 * watcher.arm_ns + took) / 8;
}

std::vector<Counter> PefProgress::counters() const {
    return {
        {"pef_signals", signals_.load()},
        {"pef_busy_turns", busy_turns_.load()},
        {"pef_futile_turns", futile_turns_.load()},
        {"pef_sequences", sequences_.load()},
        {"pef_deferred_sequences", deferred_sequences_.load()},
        {"pef_gave_up", gave_up_.load()},
        {"pef_unwatched", unwatched_.load()},
        {"pef_left_to_wait", left_to_wait_.load()},
    };
}

}  // namespace si::progress
