// The progress pass a signal handler makes (SI_PROGRESS=pef,
// progress/pef.hpp): it interrupted the application thread outside MPI, at
// any instruction, perhaps inside malloc, so it must allocate nothing and
// take no lock but the progress lock the handler try_locked. It takes from
// the signal_safe transports what it can complete in place and refuses the
// rest, which the transport keeps for the next pass inside MPI.
#include "p2p/engine.hpp"

#include <algorithm>
#include <cstring>

#include "p2p/wire.hpp"

namespace si::p2p {

int Engine::progress_in_signal_handler() {
    signal_pass_ = true;
    int events = 0;
    for (transport::Transport* transport : transports_)
        if (transport->capabilities().signal_safe)
            events += transport->progress_in_signal_handler(*this);
    signal_pass_ = false;
    return events;
}

bool Engine::background_reads_pay(int world_peer) const {
    const auto moves_alone = [](const transport::Transport* t) {
        return !t->capabilities().copies_on_caller;
    };
    if (options_.copy_in_signal_handler) return true;
    if (world_peer >= 0) return moves_alone(transport_of_[world_peer]);
    return std::any_of(transports_.begin(), transports_.end(), moves_alone);
}

void Engine::prepare_for_signal_pass(Request& request) {
    // Only a rendezvous reads, and only a message larger than its sender's
    // eager limit comes as one (a smaller receive would only be truncated).
    const std::size_t limit = request.peer >= 0 ? eager_limit(request.peer) : smallest_eager_limit_;
    if (request.registered_with != nullptr || request.bytes <= limit) return;
    transport::Transport* transport = nullptr;
    if (request.peer >= 0) {
        transport = transport_of_[request.peer];
    } else {  // MPI_ANY_SOURCE: the transport of the remote peers (verbs)
        for (transport::Transport* candidate : transports_)
            if (candidate->capabilities().pins_memory) transport = candidate;
    }
    if (transport == nullptr || !transport->capabilities().pins_memory ||
        !transport->capabilities().signal_safe)
        return;
    transport::Registration registration =
        transport->register_memory(request.buffer, request.bytes);
    if (registration.address == nullptr) return;  // the transport said why
    request.registration = registration;
    request.registered_with = transport;
}

// A FIN completes its send in place unless a hook would run or the send's
// registration would be unpinned.
bool Engine::fin_safe_in_signal(const ControlHeader& control) {
    if (control.type != ControlType::fin) return false;
    const Request* request = pool_.find(static_cast<std::uint32_t>(control.request));
    return request != nullptr && request->wire_id() == control.request &&
           request->phase == Request::Phase::awaiting_fin && !request->hook &&
           (request->registered_with == nullptr ||
            !request->registered_with->capabilities().pins_memory);
}

bool Engine::receive_safe_in_signal(const Request* request, ReceiveClaim claim,
                                    MessageKind kind, int peer, const std::byte* body) const {
    // An unexpected message needs an entry, a hook may do anything, and
    // taking a receive out of an indexed queue may free one of its bins.
    if (request == nullptr || request->hook || claim != ReceiveClaim::taken || posted_.indexed())
        return false;
    // A detached receive is released when it completes, registration and all.
    if (request->detached && request->registered_with != nullptr) return false;
    if (kind == MessageKind::eager) return true;
    // A sender still packing (or copying into its staging memory) is
    // followed by a pass inside MPI, not here; one that has finished is read
    // as any other.
    RtsHeader rts;
    std::memcpy(&rts, body, sizeof rts);
    if (rts.ready != 0) {
        // Only a transport that reads synchronously streams (Engine::streams_with).
        std::uint64_t ready = 0;
        if (!transport_of_[peer]->capabilities().vectored ||
            transport_of_[peer]->rdma_read(peer, &ready, sizeof ready,
                                           transport::RemoteKey{rts.ready, rts.key},
                                           0) != transport::Result::done ||
            ready < rts.bytes)
            return false;
    }
    // An RTS is read into the buffer (registered beforehand where reads pin
    // it) and ends with a FIN, which needs room to be set aside if the
    // sender's slots are full (send_or_queue). A read that would be a copy
    // on this core gains nothing on the wait's and takes the core from the
    // computation: it waits for MPI (background_reads_pay).
    const transport::Transport* transport = transport_of_[peer];
    return (options_.copy_in_signal_handler || !transport->capabilities().copies_on_caller) &&
           (!transport->capabilities().pins_memory || request->registered_with == transport) &&
           room_to_set_aside();
}

}  // namespace si::p2p
