// Sending: starting sends, the eager message that leaves at once, and the
// queue of messages that wait for a free slot at their peer.
#include <algorithm>
#include <cstring>

#include "base/clock.hpp"
#include "base/error_class.hpp"
#include "base/trace.hpp"
#include "p2p/engine.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

namespace {

constexpr int kErrOther = error_class::kOther;

template <typename T>
std::span<const std::byte> bytes_of(const T& value) {
    return std::as_bytes(std::span<const T, 1>(&value, 1));
}

}  // namespace

Request* Engine::isend(const void* buffer, std::size_t bytes, int dest, int tag,
                       const CommRef& comm, std::uint16_t context, SendMode mode,
                       std::unique_ptr<CompletionHook>&& hook, bool share_if_sent) {
    ProgressGuard guard(lock_);
    if (share_if_sent && !hook && mode == SendMode::standard && dest != kProcNull &&
        eager_to(comm.world_of[dest], bytes) &&
        send_eager_at_once(buffer, bytes, comm.world_of[dest],
                           Tuple{MessageKind::eager, context, comm.rank, tag}))
        return &sent_at_once_;
    return isend_locked(buffer, bytes, dest, tag, comm, context, mode, std::move(hook));
}

bool Engine::send_eager_at_once(const void* buffer, std::size_t bytes, int peer,
                                const Tuple& tuple) {
    if (!queued_[peer].empty()) return false;
    const transport::Result result = transport_of_[peer]->send(
        peer, tuple.pack(), {}, {static_cast<const std::byte*>(buffer), bytes});
    if (result != transport::Result::done) return false;  // the usual path retries or fails
    ++stats_.eager_sent;
    stats_.eager_bytes += bytes;
    ++stats_.requests_completed;
    last_sent_[static_cast<std::size_t>(peer)] = 0;  // no send's RTS (direct.cpp)
    return true;
}

Request* Engine::isend_locked(const void* buffer, std::size_t bytes, int dest, int tag,
                              const CommRef& comm, std::uint16_t context, SendMode mode,
                              std::unique_ptr<CompletionHook>&& hook) {
    Request* request = pool_.acquire(Request::Kind::send);
    request->hook = std::move(hook);
    if (request->hook) request->ready = request->hook->bytes_ready();
    if (dest == kProcNull) {
        request->result = Completion{kProcNull, kAnyTag, 0, 0};
        complete(request);
        return request;
    }
    // Synchronous sends always use the rendezvous: its FIN is the proof that
    // the receive was matched, which is what MPI_Ssend must wait for.
    request->peer = comm.world_of[dest];
    const bool eager = mode == SendMode::standard && eager_to(request->peer, bytes);
    request->synchronous = mode == SendMode::synchronous;
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
        transport::Transport* transport = transport_of_[request->peer];
        request->registration = transport->register_memory(request->buffer, request->bytes);
        if (request->registration.address == nullptr && request->bytes > 0) {
            request->result.error = kErrOther;  // the transport said why
            complete(request);
            return;
        }
        request->registered_with = transport;
    }
    send_or_queue(Outgoing{request->peer, request->tuple.pack(), request, {}});
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
    const RtsHeader rts{request->bytes,   reinterpret_cast<std::uint64_t>(registration.address),
                        registration.key, request->wire_id(),
                        monotonic_ns(),   reinterpret_cast<std::uint64_t>(request->ready)};
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
    last_sent_[static_cast<std::size_t>(item.peer)] = request == nullptr ? 0 : request->wire_id();
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
    if (request->registered_with == nullptr) return;
    request->registered_with->deregister_memory(request->registration);
    request->registered_with = nullptr;
}

void Engine::send_or_queue(Outgoing item) {
    std::deque<Outgoing>& queue = queued_[item.peer];
    if (queue.empty()) {
        const transport::Result result = try_send(item);
        if (result != transport::Result::retry) {
            sent(item, result);
            return;
        }
        if (signal_pass_) {  // within the reserve: receive_safe_in_signal checked
            set_aside_.push_back(item);
            return;
        }
        peers_with_queue_.push_back(item.peer);
    } else if (signal_pass_) {
        set_aside_.push_back(item);
        return;
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

}  // namespace si::p2p
