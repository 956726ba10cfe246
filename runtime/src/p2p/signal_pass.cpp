// The progress pass a signal handler makes (SI_PROGRESS=pef,
// progress/pef.hpp): it interrupted the application thread outside MPI, at
// any instruction, perhaps inside malloc, so it must allocate nothing and
// take no lock but the progress lock the handler try_locked. It takes from
// the signal_safe transports what it can complete in place and refuses the
// rest, which the transport keeps for the next pass inside MPI.
#include "p2p/engine.hpp"

namespace si::p2p {

int Engine::progress_in_signal_handler() {
    signal_pass_ = true;
    int events = 0;
    for (transport::Transport* transport : transports_)
        if (transport->capabilities().signal_safe) events += transport->progress(*this);
    signal_pass_ = false;
    return events;
}

// A FIN completes its send in place unless a hook would run.
bool Engine::fin_safe_in_signal(const ControlHeader& control) {
    if (control.type != ControlType::fin) return false;
    const Request* request = pool_.find(static_cast<std::uint32_t>(control.request));
    return request != nullptr && request->wire_id() == control.request &&
           request->phase == Request::Phase::awaiting_fin && !request->hook;
}

bool Engine::receive_safe_in_signal(const Request* request, ReceiveClaim claim,
                                    MessageKind kind) const {
    // An unexpected message needs an entry, a hook may do anything, and
    // taking a receive out of an indexed queue may free one of its bins.
    if (request == nullptr || request->hook || claim != ReceiveClaim::taken || posted_.indexed())
        return false;
    // An RTS ends with a FIN, which needs room to be set aside if the
    // sender's slots are full (send_or_queue).
    return kind == MessageKind::eager || room_to_set_aside();
}

}  // namespace si::p2p
