// Blocking: how a rank waits for a request, for any of several, or for a
// message to probe (MPI_Wait*, MPI_Probe, MPI_Mprobe and every blocking call
// built on them share one policy).
#include <sched.h>

#include <algorithm>
#include <chrono>

#include "base/clock.hpp"
#include "base/cpu.hpp"
#include "base/trace.hpp"
#include "p2p/engine.hpp"
#include "p2p/unexpected.hpp"

namespace si::p2p {

namespace {

// A blocked call never polls longer than this for a transfer to end.
constexpr auto kLongestTransferSpin = std::chrono::milliseconds(5);
// A call blocked this long asks the transports of the peers its unfinished
// requests wait for whether they can still be reached, and again as often
// (Transport::probe): over verbs a rank with nothing in flight to a peer
// behind a dead link would otherwise wait for ever, its reliable connection
// having nothing to retry.
constexpr auto kProbePeriod = std::chrono::seconds(1);
// How long a rank must have waited before it acts for a peer that seems to
// compute (writes the data of its send itself, scans for sleeping interrupt
// threads). A peer inside MPI takes an RTS within 0.5 us (90th percentile on
// the 2-vCPU VM); acting sooner races with it, and a copy or scan that wins
// the race costs the latency it was meant to save (a copy into a buffer hot
// in the other core's cache runs at half the speed of that core's own read at
// 64 KiB). Each microsecond more delays the copy for a peer that computes:
// 2 us cost about 8 points of overlap at 64 KiB at T_syn = T_lat.
constexpr std::uint64_t kBlockedGraceNs = 1000;

}  // namespace

template <typename Done, typename MaybeDone>
void Engine::block_until(Done done, MaybeDone maybe_done, Request* lead) {
    // Called with the lock held: what done() found stays valid for the caller.
    // The lock stays held for the whole wait, so helpers and background
    // threads see a rank that progresses by itself and leave it alone; an
    // application thread that wants the lock gets it between passes.
    // Once blocked longer than kBlockedGraceNs the rank acts for peers that
    // compute (the observer), after each run of empty passes it yields its
    // core, and after options_.wait_spin (or as long as the host has CPUs to
    // spare, Options::spare_cpus) it sleeps on the doorbell (still holding the
    // lock: the rank is blocked in MPI and needs no helper), so that on an
    // oversubscribed node the threads that can make progress (peers, helpers,
    // interrupt threads) get the core.
    constexpr int kPassesBeforeYield = 64;
    // Only a bug could leave a sleeper without its wake-up (counted as a lost
    // wake-up); this bounds the damage. A peer that computes longer ends the
    // sleep too, harmlessly.
    constexpr auto kSleepLimit = std::chrono::milliseconds(200);
    trace::record(trace::Event::wait_entered);
    // Most waits of a busy exchange end after one pass: it comes before the
    // policy's set-up below, whose clock reads cost more than the pass.
    if (!done() && progress_locked() != 0 && options_.concurrent_threads) lock_.wake_pollers();
    if (done()) {
        trace::record(trace::Event::wait_left);
        return;
    }
    if (observer_ != nullptr) observer_->wait_begins(lead);
    const bool may_sleep = doorbell_ != nullptr && options_.wait_spin.count() >= 0;
    // A send whose data is being read polls until the transfer should be over,
    // not only SI_WAIT_SPIN_US: falling asleep just before its FIN would make
    // the reader pay for a wake-up (tens of microseconds on a virtual machine)
    // before it can return.
    // Until then it does not even yield: with a transfer about to end, a
    // yield hands the core to whatever else is runnable there (a helper at
    // SCHED_IDLE, another rank) for longer than the transfer has left.
    const auto transfer_until = expected_end(lead);
    const auto entered = std::chrono::steady_clock::now();
    const auto spin_until = std::max(entered + options_.wait_spin, transfer_until);
    const auto cpus_to_spare = [this] {
        return options_.spare_cpus >= 0 && options_.lock_waiters != nullptr &&
               options_.lock_waiters->load(std::memory_order_relaxed) <= options_.spare_cpus;
    };
    // A receive whose sender is writing it (direct.cpp) polls until the write
    // should be over for the same reason, bounded in case the sender is gone.
    std::optional<std::chrono::steady_clock::time_point> delivery_spin_until;
    // A send counts as waiting since its RTS left. Until the grace is over the
    // rank only polls: yielding would hand its core to a helper at once.
    const std::uint64_t waiting_since =
        lead != nullptr && lead->kind == Request::Kind::send &&
                lead->phase == Request::Phase::awaiting_fin
            ? lead->rts_sent_ns
            : monotonic_ns();
    const std::uint64_t blocked_from_ns = waiting_since + kBlockedGraceNs;
    bool blocked = false;
    int empty_passes = 0;
    bool timed_out = false;
    // The observer woke a thread onto this core: yield at every empty pass so
    // that it runs, but sleep no sooner than otherwise. Sleeping at once cost
    // a 64 KiB MPI_Ialltoall 17 -> 33 us whenever the woken thread came too
    // late and the FIN came from the peer's own CPU: its wake-up costs the
    // sender ~10 us and the sleeper ~8 us on a virtual machine.
    bool handed_over = false;
    auto next_probe = entered + kProbePeriod;
    constexpr unsigned kPassesPerClockRead = 16;
    unsigned passes_unblocked = 0;
    while (!done()) {
        const int events = progress_locked();
        // Other threads of the rank may be waiting for what this pass completed.
        if (events != 0 && options_.concurrent_threads) lock_.wake_pollers();
        // Work found right after a sleep that timed out arrived while we slept
        // and did not ring: a lost wake-up (a sleep that merely outlasted a
        // slow peer finds nothing).
        if (timed_out && events != 0) ++stats_.lost_wakeups;
        timed_out = false;
        if (events != 0) {
            empty_passes = 0;
            continue;
        }
        // The clock is read every kPassesPerClockRead empty passes: a read
        // costs about as much as a pass, and each one delays seeing the
        // message that ends the wait.
        if (!blocked && ++passes_unblocked % kPassesPerClockRead == 0)
            blocked = monotonic_ns() >= blocked_from_ns;
        if (blocked && observer_ != nullptr && empty_passes % kPassesBeforeYield == 0) {
            if (lead != nullptr && try_direct_write(lead)) break;
            handed_over = observer_->rank_blocked();
        }
        if (lock_.wanted_by_workers()) {
            lock_.yield_to_workers(maybe_done);
        } else if (!blocked || (++empty_passes % kPassesBeforeYield != 0 && !handed_over) ||
                   (!handed_over && std::chrono::steady_clock::now() < transfer_until)) {
            cpu_relax();
        } else {
            probe_due(next_probe);
            if (!may_sleep || !peers_with_queue_.empty() ||
                std::chrono::steady_clock::now() < spin_until || cpus_to_spare() ||
                awaiting_delivery(lead, delivery_spin_until) || activities_poll_memory()) {
                // Queued sends wait for a peer to free a slot, and one-sided
                // epoch counters are written by peers: neither rings a bell.
                sched_yield();
            } else {
                ++stats_.wait_sleeps;
                // The re-check of the protocol is one more progress pass.
                // Transports arm after the doorbell and before the last pass, so
                // that an event in between is seen by the pass or rings the bell;
                // the barrier covers senders that ring it with a plain load
                // (wake::wake_if_sleeping_plain).
                const wake::SleepResult result =
                    wake::sleep(*wake_backend_, *doorbell_, kSleepLimit, [&] {
                        if (lock_.wanted_by_workers() || done() || !arm_transports() ||
                            !wake::barrier_for_plain_wakers())
                            return false;
                        if (progress_locked() == 0) return true;
                        if (options_.concurrent_threads) lock_.wake_pollers();
                        return false;
                    });
                if (result == wake::SleepResult::timed_out) {
                    ++stats_.wait_timeouts;
                    timed_out = true;
                }
            }
        }
    }
    if (observer_ != nullptr) observer_->wait_ends();
    trace::record(trace::Event::wait_left);
}

void Engine::probe_due(std::chrono::steady_clock::time_point& next) {
    const auto now = std::chrono::steady_clock::now();
    if (now < next) return;
    next = now + kProbePeriod;
    // Every peer an unfinished request waits for (a collective's or an
    // epoch's as well as the caller's); a transport probes each at most once
    // at a time.
    pool_.for_each_in_use([&](Request* request) {
        if (request->peer >= 0 && request->peer != world_rank_ &&
            !request->complete.load(std::memory_order_relaxed))
            transport_to(request->peer).probe(request->peer);
    });
}

bool Engine::awaiting_delivery(const Request* request,
                               std::optional<std::chrono::steady_clock::time_point>& until) const {
    if (request == nullptr) return false;
    const bool pending = std::any_of(delivering_.begin(), delivering_.end(),
                                     [&](const Delivering& d) { return d.request == request; });
    if (!pending) return false;
    const auto now = std::chrono::steady_clock::now();
    if (!until) until = now + kLongestTransferSpin;
    return now < *until;
}

std::chrono::steady_clock::time_point Engine::expected_end(const Request* request) const {
    const auto now = std::chrono::steady_clock::now();
    if (request == nullptr || request->kind != Request::Kind::send || request->phase != Request::Phase::awaiting_fin ||
        rendezvous_ns_per_byte_ == 0)
        return now;
    const double total_ns = rendezvous_ns_per_byte_ * static_cast<double>(request->bytes);
    const double left_ns =
        static_cast<double>(request->rts_sent_ns) + total_ns - static_cast<double>(monotonic_ns());
    if (left_ns <= 0) return now;
    return now +
           std::min<std::chrono::steady_clock::duration>(
               std::chrono::nanoseconds(static_cast<std::int64_t>(left_ns)), kLongestTransferSpin);
}

bool Engine::test(Request* request) {
    if (request->complete.load(std::memory_order_acquire)) return true;
    progress();
    return request->complete.load(std::memory_order_acquire);
}

void Engine::wait(Request* request) {
    const auto done = [request] { return request->complete.load(std::memory_order_acquire); };
    if (done() || !lock_.lock_unless(done)) return;
    ProgressGuard guard(lock_, std::adopt_lock);
    block_until(done, done, request);
}

void Engine::run(Activity& activity) {
    ProgressGuard guard(lock_);
    if (!activity.advance(*this))
        // Whether it is over needs the lock: any pass may have finished it.
        block_until([&] { return activity.advance(*this); }, [] { return true; }, nullptr);
}

Completion Engine::receive(void* buffer, std::size_t capacity, int source, int tag,
                           const CommRef& comm, std::uint16_t context) {
    ProgressGuard guard(lock_);
    Request* request = irecv_locked(buffer, capacity, source, tag, comm, context, true);
    const auto done = [request] { return request->complete.load(std::memory_order_acquire); };
    if (!done()) block_until(done, done, request);
    const Completion result = request->result;
    release_locked(request);
    return result;
}

void Engine::wait_all(std::span<Request* const> requests) {
    const auto first_pending = [requests](std::size_t from) {
        while (from < requests.size() && (requests[from] == nullptr ||
                                          requests[from]->complete.load(std::memory_order_acquire)))
            ++from;
        return from;
    };
    std::size_t pending = first_pending(0);
    if (pending == requests.size()) return;
    const auto all_done = [&] { return (pending = first_pending(pending)) == requests.size(); };
    if (!lock_.lock_unless(all_done)) return;
    ProgressGuard guard(lock_, std::adopt_lock);
    while (!all_done()) {
        Request* lead = requests[pending];
        const auto done = [lead] { return lead->complete.load(std::memory_order_acquire); };
        block_until(done, done, lead);
    }
}

void Engine::wait_any(std::span<Request* const> requests) {
    const auto any_done = [requests] {
        return std::any_of(requests.begin(), requests.end(), [](const Request* r) {
            return r != nullptr && r->complete.load(std::memory_order_acquire);
        });
    };
    if (any_done()) return;
    // The policy follows the first request still in flight.
    const auto lead = std::find_if(requests.begin(), requests.end(),
                                   [](const Request* r) { return r != nullptr; });
    if (!lock_.lock_unless(any_done)) return;
    ProgressGuard guard(lock_, std::adopt_lock);
    block_until(any_done, any_done, lead == requests.end() ? nullptr : *lead);
}

Completion Engine::probe(int source, int tag, const CommRef& comm, std::uint16_t context) {
    if (source == kProcNull) return Completion{kProcNull, kAnyTag, 0, 0};
    Unexpected* found = nullptr;
    ProgressGuard guard(lock_);
    // Whether a message arrived needs the lock: any pass may have brought it.
    block_until([&] { return (found = find_unexpected(source, tag, comm, context)) != nullptr; },
                [] { return true; }, nullptr);
    return found->completion();
}

std::pair<Engine::Unexpected*, Completion> Engine::mprobe(int source, int tag,
                                                          const CommRef& comm,
                                                          std::uint16_t context) {
    if (source == kProcNull) return {kNoProcMessage, Completion{kProcNull, kAnyTag, 0, 0}};
    Unexpected* found = nullptr;
    ProgressGuard guard(lock_);
    // Whether a message arrived needs the lock: any pass may have brought it.
    block_until([&] { return (found = find_unexpected(source, tag, comm, context)) != nullptr; },
                [] { return true; }, nullptr);
    unexpected_.erase(found);
    return {found, found->completion()};
}

}  // namespace si::p2p
