#include "p2p/engine.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/clock.hpp"
#include "base/copy.hpp"
#include "base/cpu.hpp"
#include "base/error_class.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "p2p/segments.hpp"
#include "p2p/unexpected.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

namespace {

// MPI error classes used here (values of mpi.h; this layer does not include it).
constexpr int kErrTruncate = error_class::kTruncate;
constexpr int kErrOther = error_class::kOther;

// Rendezvous sends at least this large teach the engine how long a transfer
// takes per byte; smaller ones are dominated by fixed costs.
constexpr std::size_t kLearnFromBytes = std::size_t{64} * 1024;

}  // namespace

Engine::Engine(int world_rank, std::vector<transport::Transport*> transport_of, ProgressLock& lock,
               Options options)
    : world_rank_(world_rank),
      transport_of_(std::move(transport_of)),
      lock_(lock),
      options_(std::move(options)),
      queued_(transport_of_.size()),
      last_sent_(transport_of_.size(), 0) {
    set_aside_.reserve(kSetAsideInSignal);
    sent_at_once_.phase = Request::Phase::done;
    sent_at_once_.complete.store(true, std::memory_order_relaxed);
    sent_at_once_.in_use = true;
    sent_at_once_.index = RequestPool::kMaxRequests;
    if (options_.eager_limit_of.empty())
        options_.eager_limit_of.assign(transport_of_.size(), options_.eager_limit);
    smallest_eager_limit_ = options_.eager_limit;
    for (std::size_t limit : options_.eager_limit_of)
        smallest_eager_limit_ = std::min(smallest_eager_limit_, limit);
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
    for (Unexpected* entry : spare_unexpected_) delete entry;
}

// ---- starting operations ------------------------------------------------------

// A receive from MPI_PROC_NULL is complete at once, with an empty result.
Request* Engine::new_receive(void* buffer, std::size_t capacity, bool from_proc_null,
                             std::unique_ptr<CompletionHook>&& hook) {
    Request* request = pool_.acquire(Request::Kind::receive);
    request->hook = std::move(hook);
    if (request->hook) request->segments = request->hook->segments();
    request->buffer = buffer;
    request->bytes = capacity;
    if (from_proc_null) {
        request->result = Completion{kProcNull, kAnyTag, 0, 0};
        complete(request);
    }
    return request;
}

// Flattened (every call it makes inlined): posting a receive is a chain of
// small steps, whose calls cost about as much as the steps.
[[gnu::flatten]] Request* Engine::irecv(void* buffer, std::size_t capacity, int source, int tag,
                                        const CommRef& comm, std::uint16_t context, bool blocking,
                                        std::unique_ptr<CompletionHook>&& hook) {
    ProgressGuard guard(lock_);
    return irecv_locked(buffer, capacity, source, tag, comm, context, blocking, std::move(hook));
}

Request* Engine::irecv_locked(void* buffer, std::size_t capacity, int source, int tag,
                              const CommRef& comm, std::uint16_t context, bool blocking,
                              std::unique_ptr<CompletionHook>&& hook, bool wake_for_eager) {
    Request* request = new_receive(buffer, capacity, source == kProcNull, std::move(hook));
    if (source == kProcNull) return request;
    request->wake_for_eager = wake_for_eager;
    request->match = MatchSpec{context, source, tag};
    if (source != kAnySource) request->peer = comm.world_of[source];
    Unexpected* entry = find_unexpected(source, tag, comm, context);
    if (entry == nullptr) {
        request->phase = Request::Phase::posted;
        posted_.push_back(request);
        if (!blocking) trace::record(trace::Event::recv_posted, source, request->wire_id());
        if (observer_ != nullptr) observer_->receive_posted(*request, blocking);
        return request;
    }
    unexpected_.erase(entry);
    receive_unexpected(request, entry);
    return request;
}

Engine::Unexpected* Engine::find_unexpected(int source, int tag, const CommRef&,
                                            std::uint16_t context) {
    const MatchSpec spec{context, source, tag};
    return unexpected_.find(spec.key(), [&](const Unexpected& u) { return spec.matches(u.tuple); });
}

// Takes ownership of an entry already out of the queue.
void Engine::receive_unexpected(Request* request, Unexpected* entry) {
    if (entry->tuple.kind == MessageKind::eager)
        receive_eager(request, entry->tuple, entry->data.data(), entry->data.size());
    else
        receive_rendezvous(request, entry->peer, entry->tuple,
                           reinterpret_cast<const std::byte*>(&entry->rts));
    recycle(entry);
}

Engine::Unexpected* Engine::new_unexpected(const Tuple& tuple, int peer) {
    if (spare_unexpected_.empty()) return new Unexpected{tuple, {}, peer, {}, {}};
    Unexpected* entry = spare_unexpected_.back();
    spare_unexpected_.pop_back();
    entry->tuple = tuple;
    entry->links = {};
    entry->peer = peer;
    return entry;
}

void Engine::recycle(Unexpected* entry) {
    // Enough for a burst of early arrivals; eager payloads up to 16 KiB keep
    // their buffers, larger ones give them back.
    constexpr std::size_t kSpares = 64;
    constexpr std::size_t kKeptCapacity = std::size_t{16} * 1024;
    if (spare_unexpected_.size() == kSpares) {
        delete entry;
        return;
    }
    if (entry->data.capacity() > kKeptCapacity)
        std::vector<std::byte>().swap(entry->data);
    else
        entry->data.clear();
    spare_unexpected_.push_back(entry);
}

std::optional<Completion> Engine::iprobe(int source, int tag, const CommRef& comm,
                                         std::uint16_t context) {
    ProgressGuard guard(lock_);
    if (source == kProcNull) return Completion{kProcNull, kAnyTag, 0, 0};
    progress_locked();
    const Unexpected* entry = find_unexpected(source, tag, comm, context);
    if (entry == nullptr) return std::nullopt;
    return entry->completion();
}

std::optional<std::pair<Engine::Unexpected*, Completion>> Engine::improbe(int source, int tag,
                                                                          const CommRef& comm,
                                                                          std::uint16_t context) {
    ProgressGuard guard(lock_);
    if (source == kProcNull) return std::pair{kNoProcMessage, Completion{kProcNull, kAnyTag, 0, 0}};
    progress_locked();
    Unexpected* entry = find_unexpected(source, tag, comm, context);
    if (entry == nullptr) return std::nullopt;
    unexpected_.erase(entry);
    return std::pair{entry, entry->completion()};
}

Request* Engine::imrecv(Unexpected* message, void* buffer, std::size_t capacity,
                        std::unique_ptr<CompletionHook>&& hook) {
    ProgressGuard guard(lock_);
    Request* request = new_receive(buffer, capacity, message == kNoProcMessage, std::move(hook));
    if (message == kNoProcMessage) return request;
    receive_unexpected(request, message);
    return request;
}

void Engine::cancel(Request* request) {
    ProgressGuard guard(lock_);
    if (request->phase == Request::Phase::posted) {
        // A sender may have claimed the receive to write it directly: then
        // it is matched already, and too late to cancel.
        if (observer_ != nullptr &&
            observer_->take_receive(*request, kNoPeer) != ReceiveClaim::taken)
            return;
        posted_.erase(request);
    } else if (request->phase == Request::Phase::queued) {
        // Not a byte has left: the send can be withdrawn without a trace.
        std::deque<Outgoing>& queue = queued_[request->peer];
        const auto item = std::find_if(queue.begin(), queue.end(),
                                       [&](const Outgoing& o) { return o.request == request; });
        if (item == queue.end()) return;
        queue.erase(item);
        if (queue.empty()) std::erase(peers_with_queue_, request->peer);
        release_registration(request);
    } else {
        if (request->phase == Request::Phase::running) cancel_activity(request);
        if (request->phase == Request::Phase::awaiting_fin && !request->cancel_asked) {
            request->cancel_asked = true;
            const Tuple ask{MessageKind::control, 0, 0, 0};
            send_or_queue(Outgoing{request->peer, ask.pack(), nullptr,
                                   ControlHeader{ControlType::cancel_send, 0, request->wire_id()}});
        }
        return;
    }
    request->result = Completion{};
    request->result.cancelled = true;
    complete(request);
}

// ---- receiving ----------------------------------------------------------------

// Flattened as irecv is: every message of every transport comes through here.
[[gnu::flatten]] bool Engine::message_arrived(const transport::Arrival& arrival) {
    const Tuple tuple = Tuple::unpack(arrival.tuple);
    if (tuple.kind == MessageKind::control) {
        ControlHeader control;
        std::memcpy(&control, arrival.body, sizeof control);
        if (signal_pass_ && !fin_safe_in_signal(control)) return false;
        ++stats_.messages_received;
        transport_of_[arrival.peer]->repost(arrival);
        control_arrived(arrival.peer, control);
        return true;
    }

    ReceiveClaim claim = ReceiveClaim::taken;
    Request* request = posted_.find(match_key(tuple), [&](Request& r) {
        if (!r.match.matches(tuple)) return false;
        if (observer_ != nullptr) claim = observer_->take_receive(r, arrival.peer);
        return claim != ReceiveClaim::claimed_by_other;
    });
    if (signal_pass_ &&
        !receive_safe_in_signal(request, claim, tuple.kind, arrival.peer, arrival.body))
        return false;
    ++stats_.messages_received;
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
        Unexpected* entry = new_unexpected(tuple, arrival.peer);
        if (tuple.kind == MessageKind::eager)
            entry->data.assign(arrival.body, arrival.body + arrival.bytes);
        else
            std::memcpy(&entry->rts, arrival.body, sizeof entry->rts);
        unexpected_.push_back(entry);
    }
    transport_of_[arrival.peer]->repost(arrival);
    return true;
}

bool Engine::room_to_set_aside() const { return set_aside_.size() < set_aside_.capacity(); }

void Engine::control_arrived(int peer, const ControlHeader& control) {
    if (control.type == ControlType::cancel_send) {
        // Unmatched, the RTS is dropped; matched, its FIN is or will be on its way.
        Unexpected* entry = unexpected_.find([&](const Unexpected& u) {
            return u.peer == peer && u.tuple.kind == MessageKind::rts &&
                   u.rts.request == control.request;
        });
        const bool dropped = entry != nullptr;
        if (dropped) {
            unexpected_.erase(entry);
            recycle(entry);
        }
        const Tuple reply{MessageKind::control, 0, 0, 0};
        send_or_queue(Outgoing{peer, reply.pack(), nullptr,
                               ControlHeader{ControlType::cancel_reply, dropped ? 1u : 0u,
                                             control.request}});
        return;
    }
    Request* request = pool_.find(static_cast<std::uint32_t>(control.request));
    const bool waiting = request != nullptr && request->wire_id() == control.request &&
                         request->phase == Request::Phase::awaiting_fin;
    if (control.type == ControlType::cancel_reply) {
        // A reply that did not cancel, or that follows the FIN, changes nothing.
        if (!waiting || control.cancelled == 0) return;
        release_registration(request);
        request->result = Completion{};
        request->result.cancelled = true;
        complete(request);
        return;
    }
    if (!waiting) {
        log::error("internal: FIN from rank {} names no waiting send ({:#x})", peer,
                   control.request);
        return;
    }
    trace::record(trace::Event::fin_seen, peer, control.request);
    if (request->bytes >= kLearnFromBytes) {
        const double per_byte = static_cast<double>(monotonic_ns() - request->rts_sent_ns) /
                                static_cast<double>(request->bytes);
        rendezvous_ns_per_byte_ = rendezvous_ns_per_byte_ == 0
                                      ? per_byte
                                      : 0.875 * rendezvous_ns_per_byte_ + 0.125 * per_byte;
    }
    release_registration(request);
    complete(request);
}

void Engine::receive_eager(Request* request, const Tuple& tuple, const std::byte* data,
                           std::size_t bytes) {
    const std::size_t copied = std::min(bytes, request->bytes);
    if (!request->segments.empty())
        scatter(request->segments, data, copied);
    else
        copy_message(request->buffer, data, copied);
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
    if (background_pass_ || signal_pass_) stats_.rdma_read_bytes_in_background += bytes;
    if (transport_of_[peer]->capabilities().shared_clock) {
        const std::uint64_t now = monotonic_ns();
        const std::uint64_t delay = now > rts.sent_ns ? now - rts.sent_ns : 0;
        ++stats_.rts_to_read_count;
        stats_.rts_to_read_ns_total += delay;
        stats_.rts_to_read_ns_max = std::max(stats_.rts_to_read_ns_max, delay);
    }
    trace::record(trace::Event::read_issued, peer, rts.request, static_cast<std::int64_t>(bytes));
    const transport::Result result =
        rts.ready != 0 || !request->segments.empty()
            ? read_streamed(*request, peer, rts, bytes)
            : transport_of_[peer]->rdma_read(peer, request->buffer, bytes,
                                             transport::RemoteKey{rts.address, rts.key},
                                             request->wire_id());
    if (result == transport::Result::posted) return;
    if (result != transport::Result::done) request->result.error = kErrOther;
    finish_rendezvous(request);
}

void Engine::rdma_completed(std::uint64_t cookie, int error) {
    Request* request = pool_.find(static_cast<std::uint32_t>(cookie));
    if (request != nullptr && request->wire_id() == cookie &&
        request->phase == Request::Phase::transferring) {
        if (error != 0) request->result.error = kErrOther;
        complete(request);
        return;
    }
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
    if (peer_unreachable_) peer_unreachable_(peer);
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
    ++stats_.requests_completed;
    // A signal handler cannot unpin; the release does it then (release_locked).
    if (!signal_pass_) release_registration(request);
    request->phase = Request::Phase::done;
    if (request->hook) {
        request->hook->completed(request->result);
        request->hook.reset();
    }
    if (request->detached) {
        pool_.release(request);
        return;
    }
    request->complete.store(true, std::memory_order_release);
}

int Engine::progress_locked() {
    ++stats_.progress_calls;
    if (!set_aside_.empty()) {
        for (const Outgoing& item : set_aside_) send_or_queue(item);
        set_aside_.clear();  // keeps its capacity
    }
    int events = peers_with_queue_.empty() ? 0 : flush_queued_sends();
    if (!delivering_.empty()) events += finish_deliveries();
    for (transport::Transport* transport : transports_) events += transport->progress(*this);
    // After the transports: what they completed lets activities move on now.
    if (!activities_.empty() && (!background_pass_ || options_.background_rounds))
        events += advance_activities();
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

void Engine::release_all(std::span<Request* const> requests) {
    ProgressGuard guard(lock_);
    for (Request* request : requests)
        if (request != nullptr && request != &sent_at_once_) release_locked(request);
}

void Engine::release_locked(Request* request) {
    if (request->phase == Request::Phase::done) {
        release_registration(request);
        pool_.release(request);
        return;
    }
    request->detached = true;
}

std::size_t Engine::active_requests() {
    ProgressGuard guard(lock_);
    return pool_.in_use();
}

}  // namespace si::p2p
