#include "p2p/engine.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/clock.hpp"
#include "base/cpu.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

namespace {

// MPI error classes used here (values of mpi.h; this layer does not include it).
constexpr int kErrTruncate = 15;
constexpr int kErrOther = 16;

// Rendezvous sends at least this large teach the engine how long a transfer
// takes per byte; smaller ones are dominated by fixed costs.
constexpr std::size_t kLearnFromBytes = 64 * 1024;
// A blocked call never polls longer than this for a transfer to end.
constexpr auto kLongestTransferSpin = std::chrono::milliseconds(5);
// How long a rank must have waited before it acts for a peer that seems to
// compute (writes the data of its send itself, scans for sleeping interrupt
// threads). A peer inside MPI takes an RTS within 0.5 us (90th percentile on
// the 2-vCPU VM); acting sooner races with it, and a copy or scan that wins
// the race costs the latency it was meant to save (a copy into a buffer hot
// in the other core's cache runs at half the speed of that core's own read at
// 64 KiB). Each microsecond more delays the copy for a peer that computes:
// 2 us cost about 8 points of overlap at 64 KiB at T_syn = T_lat.
constexpr std::uint64_t kBlockedGraceNs = 1000;

template <typename T>
std::span<const std::byte> bytes_of(const T& value) {
    return std::as_bytes(std::span<const T, 1>(&value, 1));
}

}  // namespace

// An arrival that found no posted receive, kept in arrival order.
struct Engine::Unexpected {
    Tuple tuple;
    int peer;
    RtsHeader rts;                // kind == rts
    std::vector<std::byte> data;  // kind == eager
    Unexpected* prev = nullptr;
    Unexpected* next = nullptr;
};

// A message waiting for a free slot at its peer.
struct Engine::Outgoing {
    int peer;
    std::uint64_t tuple;
    Request* request;  // eager or RTS: the send; nullptr for control messages
    ControlHeader control;
};

Engine::Engine(int world_rank, std::vector<transport::Transport*> transport_of, ProgressLock& lock,
               Options options)
    : world_rank_(world_rank),
      transport_of_(std::move(transport_of)),
      lock_(lock),
      options_(options),
      queued_(transport_of_.size()) {
    for (transport::Transport* transport : transport_of_)
        if (std::find(transports_.begin(), transports_.end(), transport) == transports_.end())
            transports_.push_back(transport);
}

Engine::~Engine() {
    while (!unexpected_.empty()) {
        Unexpected* entry = unexpected_.front();
        unexpected_.erase(entry);
        delete entry;
    }
}

// ---- starting operations ------------------------------------------------------

Request* Engine::isend(const void* buffer, std::size_t bytes, int dest, int tag,
                       const CommRef& comm, std::uint16_t context, SendMode mode) {
    ProgressGuard guard(lock_);
    Request* request = pool_.acquire(Request::Kind::send);
    if (dest == kProcNull) {
        request->result = Completion{kProcNull, kAnyTag, 0, 0};
        complete(request);
        return request;
    }
    // Synchronous sends always use the rendezvous: its FIN is the proof that
    // the receive was matched, which is what MPI_Ssend must wait for.
    const bool eager = mode == SendMode::standard && bytes <= options_.eager_limit;
    request->synchronous = mode == SendMode::synchronous;
    request->peer = comm.world_of[dest];
    request->buffer = const_cast<void*>(buffer);
    request->bytes = bytes;
    request->tuple = Tuple{eager ? MessageKind::eager : MessageKind::rts, context, comm.rank, tag};
    start_send(request);
    return request;
}

void Engine::start_send(Request* request) {
    if (request->tuple.kind == MessageKind::eager) {
        ++stats_.eager_sent;
        stats_.eager_bytes += request->bytes;
    } else {
        ++stats_.rendezvous_sent;
        stats_.rendezvous_bytes += request->bytes;
    }
    request->phase = Request::Phase::queued;
    if (request->tuple.kind == MessageKind::rts) {
        // Registered once, not per retry: the transport's registrations are
        // counted and released by the FIN.
        request->registration =
            transport_of_[request->peer]->register_memory(request->buffer, request->bytes);
        if (request->registration.address == nullptr && request->bytes > 0) {
            request->result.error = kErrOther;  // the transport said why
            complete(request);
            return;
        }
    }
    send_or_queue(Outgoing{request->peer, request->tuple.pack(), request, {}});
}

Request* Engine::irecv(void* buffer, std::size_t capacity, int source, int tag, const CommRef& comm,
                       std::uint16_t context, bool blocking) {
    ProgressGuard guard(lock_);
    Request* request = pool_.acquire(Request::Kind::receive);
    request->buffer = buffer;
    request->bytes = capacity;
    if (source == kProcNull) {
        request->result = Completion{kProcNull, kAnyTag, 0, 0};
        complete(request);
        return request;
    }
    request->match = MatchSpec{context, source, tag};
    Unexpected* entry =
        unexpected_.find([&](const Unexpected& u) { return request->match.matches(u.tuple); });
    if (entry == nullptr) {
        request->phase = Request::Phase::posted;
        posted_.push_back(request);
        if (!blocking) trace::record(trace::Event::recv_posted, source, request->wire_id());
        if (observer_ != nullptr) observer_->receive_posted(*request, blocking);
        return request;
    }
    unexpected_.erase(entry);
    if (entry->tuple.kind == MessageKind::eager)
        receive_eager(request, entry->tuple, entry->data.data(), entry->data.size());
    else
        receive_rendezvous(request, entry->peer, entry->tuple,
                           reinterpret_cast<const std::byte*>(&entry->rts));
    delete entry;
    return request;
}

std::optional<Completion> Engine::iprobe(int source, int tag, const CommRef& comm,
                                         std::uint16_t context) {
    ProgressGuard guard(lock_);
    if (source == kProcNull) return Completion{kProcNull, kAnyTag, 0, 0};
    progress_locked();
    const MatchSpec spec{context, source, tag};
    const Unexpected* entry =
        unexpected_.find([&](const Unexpected& u) { return spec.matches(u.tuple); });
    if (entry == nullptr) return std::nullopt;
    const std::size_t bytes =
        entry->tuple.kind == MessageKind::eager ? entry->data.size() : entry->rts.bytes;
    return Completion{entry->tuple.source, entry->tuple.tag, 0, bytes};
}

// ---- sending ----------------------------------------------------------------

transport::Result Engine::try_send(const Outgoing& item) {
    transport::Transport& transport = *transport_of_[item.peer];
    if (item.request == nullptr)
        return transport.send(item.peer, item.tuple, bytes_of(item.control), {});
    Request* request = item.request;
    if (request->tuple.kind == MessageKind::eager)
        return transport.send(item.peer, item.tuple, {},
                              {static_cast<const std::byte*>(request->buffer), request->bytes});
    const transport::Registration& registration = request->registration;
    const RtsHeader rts{request->bytes, reinterpret_cast<std::uint64_t>(registration.address),
                        registration.key, request->wire_id(), monotonic_ns()};
    return transport.send(item.peer, item.tuple, bytes_of(rts), {});
}

void Engine::sent(const Outgoing& item, transport::Result result) {
    Request* request = item.request;
    if (result == transport::Result::failed) {
        // The peer is gone (the transport logged it): fail the send rather
        // than retry forever.
        if (request == nullptr) return;
        release_registration(request);
        request->result.error = kErrOther;
        complete(request);
        return;
    }
    if (request == nullptr) return;
    if (request->tuple.kind == MessageKind::eager) {
        complete(request);
    } else {
        request->phase = Request::Phase::awaiting_fin;
        request->rts_sent_ns = monotonic_ns();
        trace::record(trace::Event::rts_sent, item.peer, request->wire_id(),
                      static_cast<std::int64_t>(request->bytes));
        if (observer_ != nullptr) observer_->rts_sent(item.peer);
    }
}

void Engine::release_registration(Request* request) {
    if (request->registration.address != nullptr)
        transport_of_[request->peer]->deregister_memory(request->registration);
}

void Engine::send_or_queue(Outgoing item) {
    std::deque<Outgoing>& queue = queued_[item.peer];
    if (queue.empty()) {
        const transport::Result result = try_send(item);
        if (result != transport::Result::retry) {
            sent(item, result);
            return;
        }
        peers_with_queue_.push_back(item.peer);
    }
    ++stats_.send_retries;
    queue.push_back(item);
}

int Engine::flush_queued_sends() {
    int sent_count = 0;
    for (std::size_t i = 0; i < peers_with_queue_.size();) {
        const int peer = peers_with_queue_[i];
        std::deque<Outgoing>& queue = queued_[peer];
        while (!queue.empty()) {
            const transport::Result result = try_send(queue.front());
            if (result == transport::Result::retry) break;
            const Outgoing item = queue.front();
            queue.pop_front();
            ++sent_count;
            sent(item, result);
        }
        if (queue.empty()) {
            peers_with_queue_[i] = peers_with_queue_.back();
            peers_with_queue_.pop_back();
        } else {
            ++i;
        }
    }
    return sent_count;
}

// ---- receiving ----------------------------------------------------------------

void Engine::message_arrived(const transport::Arrival& arrival) {
    const Tuple tuple = Tuple::unpack(arrival.tuple);
    if (tuple.kind == MessageKind::control) {
        ControlHeader control;
        std::memcpy(&control, arrival.body, sizeof control);
        transport_of_[arrival.peer]->repost(arrival);
        Request* request = pool_.find(static_cast<std::uint32_t>(control.request));
        if (request == nullptr || request->wire_id() != control.request ||
            request->phase != Request::Phase::awaiting_fin) {
            log::error("internal: FIN from rank {} names no waiting send ({:#x})", arrival.peer,
                       control.request);
            return;
        }
        trace::record(trace::Event::fin_seen, arrival.peer, control.request);
        if (request->bytes >= kLearnFromBytes) {
            const double per_byte = static_cast<double>(monotonic_ns() - request->rts_sent_ns) /
                                    static_cast<double>(request->bytes);
            rendezvous_ns_per_byte_ = rendezvous_ns_per_byte_ == 0
                                          ? per_byte
                                          : 0.875 * rendezvous_ns_per_byte_ + 0.125 * per_byte;
        }
        release_registration(request);
        complete(request);
        return;
    }

    ReceiveClaim claim = ReceiveClaim::taken;
    Request* request = posted_.find([&](Request& r) {
        if (!r.match.matches(tuple)) return false;
        if (observer_ != nullptr) claim = observer_->take_receive(r, arrival.peer);
        return claim != ReceiveClaim::claimed_by_other;
    });
    if (request != nullptr) {
        posted_.erase(request);
        if (claim == ReceiveClaim::delivered_by_sender)
            await_delivery(request, arrival.peer, tuple, arrival.body);
        else if (tuple.kind == MessageKind::eager)
            receive_eager(request, tuple, arrival.body, arrival.bytes);
        else
            receive_rendezvous(request, arrival.peer, tuple, arrival.body);
    } else {
        ++stats_.unexpected;
        auto* entry = new Unexpected{tuple, arrival.peer, {}, {}};
        if (tuple.kind == MessageKind::eager)
            entry->data.assign(arrival.body, arrival.body + arrival.bytes);
        else
            std::memcpy(&entry->rts, arrival.body, sizeof entry->rts);
        unexpected_.push_back(entry);
    }
    transport_of_[arrival.peer]->repost(arrival);
}

void Engine::receive_eager(Request* request, const Tuple& tuple, const std::byte* data,
                           std::size_t bytes) {
    const std::size_t copied = std::min(bytes, request->bytes);
    if (copied > 0) std::memcpy(request->buffer, data, copied);
    request->result =
        Completion{tuple.source, tuple.tag, bytes > request->bytes ? kErrTruncate : 0, copied};
    complete(request);
}

void Engine::receive_rendezvous(Request* request, int peer, const Tuple& tuple,
                                const std::byte* rts_bytes) {
    RtsHeader rts;
    std::memcpy(&rts, rts_bytes, sizeof rts);
    // A receive buffer that is too small takes what fits; the sender is still
    // released with a FIN so that it does not hang on our error.
    const std::size_t bytes = std::min<std::size_t>(rts.bytes, request->bytes);
    request->peer = peer;
    request->remote_request = rts.request;
    request->result =
        Completion{tuple.source, tuple.tag, rts.bytes > request->bytes ? kErrTruncate : 0, bytes};
    request->phase = Request::Phase::reading;
    if (bytes == 0) {
        finish_rendezvous(request);
        return;
    }
    ++stats_.rdma_reads;
    stats_.rdma_read_bytes += bytes;
    if (transport_of_[peer]->capabilities().shared_clock) {
        const std::uint64_t now = monotonic_ns();
        const std::uint64_t delay = now > rts.sent_ns ? now - rts.sent_ns : 0;
        ++stats_.rts_to_read_count;
        stats_.rts_to_read_ns_total += delay;
        stats_.rts_to_read_ns_max = std::max(stats_.rts_to_read_ns_max, delay);
    }
    trace::record(trace::Event::read_issued, peer, rts.request, static_cast<std::int64_t>(bytes));
    const transport::Result result = transport_of_[peer]->rdma_read(
        peer, request->buffer, bytes, transport::RemoteKey{rts.address, rts.key},
        request->wire_id());
    if (result == transport::Result::posted) return;
    if (result != transport::Result::done) request->result.error = kErrOther;
    finish_rendezvous(request);
}

void Engine::rdma_completed(std::uint64_t cookie, int error) {
    Request* request = pool_.find(static_cast<std::uint32_t>(cookie));
    if (request == nullptr || request->wire_id() != cookie ||
        request->phase != Request::Phase::reading) {
        log::error("internal: RDMA completion {:#x} names no reading receive", cookie);
        return;
    }
    if (error != 0) request->result.error = kErrOther;
    finish_rendezvous(request);
}

void Engine::peer_failed(int peer) {
    // A rendezvous send waits for the peer's FIN, which will not come. (Its
    // reads of our memory, and our reads of its, end with errors by themselves.)
    pool_.for_each_in_use([&](Request* request) {
        if (request->kind != Request::Kind::send || request->peer != peer ||
            request->phase != Request::Phase::awaiting_fin)
            return;
        release_registration(request);
        request->result.error = kErrOther;
        complete(request);
    });
}

void Engine::finish_rendezvous(Request* request) {
    trace::record(trace::Event::read_done, request->peer, request->remote_request);
    const Tuple fin{MessageKind::control, 0, 0, 0};
    send_or_queue(Outgoing{request->peer, fin.pack(), nullptr,
                           ControlHeader{ControlType::fin, 0, request->remote_request}});
    complete(request);
}

// ---- completion and progress ----------------------------------------------------

void Engine::complete(Request* request) {
    request->phase = Request::Phase::done;
    if (request->detached) {
        pool_.release(request);
        return;
    }
    request->complete.store(true, std::memory_order_release);
}

int Engine::progress_locked() {
    ++stats_.progress_calls;
    int events = peers_with_queue_.empty() ? 0 : flush_queued_sends();
    if (!delivering_.empty()) events += finish_deliveries();
    for (transport::Transport* transport : transports_) events += transport->progress(*this);
    stats_.progress_events += static_cast<std::uint64_t>(events);
    return events;
}

void Engine::set_progress_observer(ProgressObserver* observer) {
    ProgressGuard guard(lock_);
    observer_ = observer;
}

void Engine::set_doorbell(std::atomic<std::uint32_t>& doorbell, wake::Backend& backend) {
    ProgressGuard guard(lock_);
    doorbell_ = &doorbell;
    wake_backend_ = &backend;
}

bool Engine::arm_transports() {
    for (transport::Transport* transport : transports_)
        if (transport->arm() == transport::Armed::busy) return false;
    return true;
}

int Engine::progress() {
    ProgressGuard guard(lock_);
    return progress_locked();
}

void Engine::wait(Request* request) {
    if (request->complete.load(std::memory_order_acquire)) return;
    // The lock stays held for the whole wait, so helpers and background
    // threads see a rank that progresses by itself and leave it alone; an
    // application thread that wants the lock gets it between passes.
    // Once blocked longer than kBlockedGraceNs the rank acts for peers that
    // compute (the observer), after each run of empty passes it yields its
    // core, and after options_.wait_spin it sleeps on the doorbell (still holding the
    // lock: the rank is blocked in MPI and needs no helper), so that on an
    // oversubscribed node the threads that can make progress (peers, helpers,
    // interrupt threads) get the core.
    constexpr int kPassesBeforeYield = 64;
    // Only a bug could leave a sleeper without its wake-up (counted as a lost
    // wake-up); this bounds the damage. A peer that computes longer ends the
    // sleep too, harmlessly.
    constexpr auto kSleepLimit = std::chrono::milliseconds(200);
    trace::record(trace::Event::wait_entered);
    ProgressGuard guard(lock_);
    const bool may_sleep = doorbell_ != nullptr && options_.wait_spin.count() >= 0;
    // A send whose data is being read polls until the transfer should be over,
    // not only SI_WAIT_SPIN_US: falling asleep just before its FIN would make
    // the reader pay for a wake-up (tens of microseconds on a virtual machine)
    // before it can return.
    // Until then it does not even yield: with a transfer about to end, a
    // yield hands the core to whatever else is runnable there (a helper at
    // SCHED_IDLE, another rank) for longer than the transfer has left.
    const auto transfer_until = expected_end(request);
    const auto spin_until =
        std::max(std::chrono::steady_clock::now() + options_.wait_spin, transfer_until);
    // A receive whose sender is writing it (direct.cpp) polls until the write
    // should be over for the same reason, bounded in case the sender is gone.
    std::optional<std::chrono::steady_clock::time_point> delivery_spin_until;
    // A send counts as waiting since its RTS left. Until the grace is over the
    // rank only polls: yielding would hand its core to a helper at once.
    const std::uint64_t waiting_since =
        request->kind == Request::Kind::send && request->phase == Request::Phase::awaiting_fin
            ? request->rts_sent_ns
            : monotonic_ns();
    const std::uint64_t blocked_from_ns = waiting_since + kBlockedGraceNs;
    bool blocked = false;
    int empty_passes = 0;
    bool timed_out = false;
    bool handed_over = false;  // the observer gave this core to other work: do not spin
    while (!request->complete.load(std::memory_order_acquire)) {
        const int events = progress_locked();
        // Work found right after a sleep that timed out arrived while we slept
        // and did not ring: a lost wake-up (a sleep that merely outlasted a
        // slow peer finds nothing).
        if (timed_out && events != 0) ++stats_.lost_wakeups;
        timed_out = false;
        if (events != 0) {
            empty_passes = 0;
            continue;
        }
        blocked = blocked || monotonic_ns() >= blocked_from_ns;
        if (blocked && observer_ != nullptr && empty_passes % kPassesBeforeYield == 0) {
            if (try_direct_write(request)) break;
            handed_over = observer_->rank_blocked();
        }
        if (lock_.wanted()) {
            lock_.unlock();
            cpu_relax();
            lock_.lock();
        } else if (!blocked || (++empty_passes % kPassesBeforeYield != 0 && !handed_over) ||
                   (!handed_over && std::chrono::steady_clock::now() < transfer_until)) {
            cpu_relax();
        } else if (!may_sleep || !peers_with_queue_.empty() ||
                   (!handed_over && std::chrono::steady_clock::now() < spin_until) ||
                   awaiting_delivery(request, delivery_spin_until)) {
            // Queued sends wait for a peer to free a slot, which rings no bell.
            sched_yield();
        } else {
            ++stats_.wait_sleeps;
            // The re-check of the protocol is one more progress pass.
            // Transports arm after the doorbell and before the last pass, so
            // that an event in between is seen by the pass or rings the bell.
            const wake::SleepResult result =
                wake::sleep(*wake_backend_, *doorbell_, kSleepLimit, [&] {
                    return !lock_.wanted() && !request->complete.load(std::memory_order_acquire) &&
                           arm_transports() && progress_locked() == 0;
                });
            if (result == wake::SleepResult::timed_out) {
                ++stats_.wait_timeouts;
                timed_out = true;
            }
        }
    }
    trace::record(trace::Event::wait_left);
}

bool Engine::awaiting_delivery(const Request* request,
                               std::optional<std::chrono::steady_clock::time_point>& until) const {
    const bool pending = std::any_of(delivering_.begin(), delivering_.end(),
                                     [&](const Delivering& d) { return d.request == request; });
    if (!pending) return false;
    const auto now = std::chrono::steady_clock::now();
    if (!until) until = now + kLongestTransferSpin;
    return now < *until;
}

std::chrono::steady_clock::time_point Engine::expected_end(const Request* request) const {
    const auto now = std::chrono::steady_clock::now();
    if (request->kind != Request::Kind::send || request->phase != Request::Phase::awaiting_fin ||
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

void Engine::release(Request* request) {
    ProgressGuard guard(lock_);
    if (request->phase == Request::Phase::done) {
        pool_.release(request);
        return;
    }
    request->detached = true;
}

Request* Engine::find(std::uint32_t index) {
    ProgressGuard guard(lock_);
    return pool_.find(index);
}

std::size_t Engine::active_requests() {
    ProgressGuard guard(lock_);
    return pool_.in_use();
}

}  // namespace si::p2p
