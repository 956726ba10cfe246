// Progression mode `pef`: the parasite execution flow of seed 004 (digest
// section 2). No extra thread: when a nonblocking receive finds no RTS, a
// per-thread timer (timer_create with SIGEV_THREAD_ID) interrupts the
// application thread that posted it, and the signal handler makes a pass of
// the progress engine in that thread, so that the RTS found while the
// application computes starts the RDMA Read at once instead of in MPI_Wait.
//
// The turns: the first SI_PEF_PHASE_US after the receive was posted, the
// second SI_PEF_PERIOD_US later, each next one SI_PEF_DECAY times further;
// after SI_PEF_MAX_TURNS the watchdog gives up. A new watched receive
// restarts the sequence. The watchdog stops when every watched receive has
// its RTS; it pauses while the application is blocked in MPI (it progresses
// them itself then), and stops for good for the receive it waited for.
//
// Beyond the paper: the first turn comes no sooner than twice what arming
// the timer takes (Watcher::arm_ns); on a virtual machine arming costs
// microseconds, and a turn due before it returns lands inside MPI.
//
// Beyond the paper too (SI_PEF_PREDICT, on by default): a thread that waited for
// kWaitsBeforeDeferring receives in a row with no turn having found it
// computing since each was posted does not compute between posting and
// waiting, so no turn can help it; its sequences then start a tick's worth
// of time later (kDeferredPhaseNs). Arming a timer that far costs a system
// call and no more, where a deadline of microseconds makes a virtual machine
// reprogram its timer through the hypervisor and then take the interrupt,
// for every receive (tens of microseconds, README); waits leave such a turn
// running, and it serves the receives posted before it comes. The first
// wait that comes SI_PEF_PERIOD_US or more after its receive was posted (or
// after the thread's last blocking call; the turns' own time and the arming
// do not count), or a deferred turn that finds the thread outside MPI with a
// receive watched, brings the paper's phase back.
//
// The handler is async-signal-safe: it only try_locks the progress lock, so
// it does nothing while the application is inside MPI (the lock is taken),
// and its pass (Engine::progress_in_signal_handler) takes only what needs no
// allocation; the rest waits for the next MPI call. The signal is
// SIGRTMIN + kSignalOffset, installed with SA_RESTART: the application's own
// system calls that the kernel never restarts (nanosleep, poll, epoll_wait,
// select, ...) can return EINTR while a receive is watched (README).
//
// Only a transport whose reads move while the application computes serves
// the handler: on verbs the handler posts the RDMA Read and the NIC moves the
// data, into the receive buffer registered when the receive was posted (a
// handler cannot pin memory); the read's completion and the FIN wait for the
// next MPI call. On shared memory the read is a copy on the very core the
// handler interrupted, which the wait makes as well: receives from ranks of
// the host are not watched (pef_left_to_wait), and a handler's pass leaves
// their RTSs to MPI (p2p::Engine::background_reads_pay).
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "base/config.hpp"
#include "p2p/engine.hpp"
#include "progress/counter.hpp"

namespace si::progress {

class PefProgress final : public p2p::ProgressObserver {
  public:
    static constexpr int kSignalOffset = 4;

    PefProgress(p2p::Engine& engine, const config::Settings& settings);
    ~PefProgress();
    PefProgress(const PefProgress&) = delete;
    PefProgress& operator=(const PefProgress&) = delete;

    // Deletes the timers and ignores the signal; after it no handler touches
    // the engine. The destructor does it if this was not called.
    void stop();
    std::vector<Counter> counters() const;

    // p2p::ProgressObserver, called with the progress lock held.
    void receive_posted(p2p::Request& request, bool blocking) override;
    p2p::ReceiveClaim take_receive(p2p::Request&, int) override {
        return p2p::ReceiveClaim::taken;
    }
    p2p::Delivery delivery_of(p2p::Request&) override {
        return {p2p::Delivery::State::pending};
    }
    bool rank_blocked() override { return false; }
    void rts_sent(int) override {}
    std::optional<p2p::DirectTarget> claim_receive(int, std::uint64_t) override {
        return std::nullopt;
    }
    void finish_claim(const p2p::DirectTarget&, std::size_t, bool) override {}
    void wait_begins(p2p::Request* lead) override;
    void wait_ends() override;

  private:
    // Receives one thread watches, and its timer. The list changes only with
    // the progress lock held (by the thread in MPI, or by its handler); the
    // turn sequence only in the handler, which a new receive asks to restart.
    struct Watcher {
        struct Watched {
            p2p::Request* request;
            std::uint64_t id;  // wire_id(): a recycled request is not watched
            // When it was posted, moved later by the turns' time since.
            std::int64_t posted_ns;
            std::uint64_t computing_turns;  // the watcher's count when posted
        };
        static constexpr int kCapacity = 64;

        PefProgress* owner = nullptr;
        pid_t tid = 0;
        timer_t timer{};
        std::array<Watched, kCapacity> watched{};
        int count = 0;
        int turns = 0;
        std::int64_t delay_ns = 0;  // to the next turn after this one
        // Turns that found the thread outside MPI (SI_PEF_PREDICT).
        std::uint64_t computing_turns = 0;
        // The end of its last blocking call, moved later by the turns' time
        // since: what remains outside MPI is the application's.
        std::int64_t waited_until_ns = 0;
        int waits_at_once = 0;  // in a row
        bool deferred = false;  // sequences start at kDeferredPhaseNs
        std::int64_t arm_ns = 0;  // running mean of what timer_settime takes
        std::atomic<bool> restart{false};
        std::atomic<bool> armed{false};
    };
    static constexpr int kMaxThreads = 64;
    // Past the next tick of a 250 Hz kernel.
    static constexpr std::int64_t kDeferredPhaseNs = 5'000'000;
    static constexpr int kWaitsBeforeDeferring = 4;

    static void on_signal(int, siginfo_t* info, void*);
    void take_turn(Watcher& watcher);
    // Starts the sequence of turns again from the phase.
    void restart(Watcher& watcher);
    // The calling thread's watcher if it has one.
    Watcher* this_thread_watcher();
    // The calling thread's watcher, made on its first watched receive;
    // nullptr when the timer cannot be made (said once on stderr).
    Watcher* watcher_of_this_thread();
    // Drops the receives that have their RTS or are no longer posted;
    // `in_turn`: in a turn that found the thread outside MPI.
    void prune(Watcher& watcher, bool in_turn);
    // Takes entry `index` off the list; SI_PEF_PREDICT learns from it whether
    // the thread computed while it was watched.
    void unwatch(Watcher& watcher, int index, bool in_turn);
    static void arm(Watcher& watcher, std::int64_t ns);

    p2p::Engine& engine_;
    const std::int64_t phase_ns_;
    const std::int64_t period_ns_;
    const int decay_;
    const int max_turns_;
    const bool predict_;
    const int signal_;
    std::mutex create_mutex_;  // watchers_ growth, in MPI calls only
    std::array<Watcher, kMaxThreads> watchers_;
    std::atomic<int> watcher_count_{0};
    bool timers_failed_ = false;
    std::atomic<bool> stopped_{false};
    std::atomic<int> handlers_running_{0};

    std::atomic<std::uint64_t> signals_{0};
    // Turns taken while the application was inside MPI: nothing done.
    std::atomic<std::uint64_t> busy_turns_{0};
    // Turns whose pass advanced nothing (Engine::advances).
    std::atomic<std::uint64_t> futile_turns_{0};
    std::atomic<std::uint64_t> sequences_{0};
    // Sequences started at kDeferredPhaseNs (SI_PEF_PREDICT).
    std::atomic<std::uint64_t> deferred_sequences_{0};
    std::atomic<std::uint64_t> gave_up_{0};
    // Receives not watched: a thread's list was full, or it had no timer.
    std::atomic<std::uint64_t> unwatched_{0};
    // Receives whose reads would copy on this core (background_reads_pay).
    std::atomic<std::uint64_t> left_to_wait_{0};
};

}  // namespace si::progress
