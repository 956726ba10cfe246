// Direct delivery of a rendezvous on shared memory: a sender blocked in MPI
// whose receiver computes, with the matching receive posted, writes the data
// into the receive buffer itself (process_vm_writev) instead of waiting for
// the receiver, or a thread woken for it, to read it. The sender's core is the
// idle one, so the copy costs the computation nothing and no thread is woken.
//
// The protocol, with the receive's interrupt request (IRB entry) as the
// meeting point (the observer, progress/smart_delivery.cpp, owns it):
//   sender:   claims the entry with a compare-and-swap, only if its RTS is its
//             only message the receiver has not taken yet, none queued behind
//             a full ring (so no earlier message of its could match that
//             receive first), writes, then
//             publishes the byte count and completes its send. It sends no
//             other message.
//   receiver: when its progress meets the RTS, the matching receive is the
//             claimed one (claims go to the first posted receive that
//             matches; receives claimed by other senders are skipped); it
//             waits for the bytes to be published, completes, sends no FIN.
//             If the sender gave up (the write failed), it reads as usual.
#include <algorithm>
#include <cstring>

#include "base/error_class.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "p2p/engine.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

namespace {
constexpr int kErrTruncate = error_class::kTruncate;
}  // namespace

bool Engine::try_direct_write(Request* send) {
    if (!options_.direct_write || send->kind != Request::Kind::send ||
        send->phase != Request::Phase::awaiting_fin)
        return false;
    transport::Transport& transport = *transport_of_[send->peer];
    // The RTS must be the only message of ours the receiver has not taken:
    // nothing queued here behind a full ring (the RTS itself, or a message
    // another thread sent), one message in the ring, and that message this
    // send's RTS. (Otherwise it may be a later send's RTS while this one's is
    // already matched at the receiver: the claim would take the later send's
    // receive, and this send get a FIN besides; OSU 7.4's osu_bw -c hung so.)
    if (!transport.capabilities().direct_write || !queued_[send->peer].empty() ||
        transport.messages_in_flight(send->peer) != 1 ||
        last_sent_[static_cast<std::size_t>(send->peer)] != send->wire_id())
        return false;
    const std::optional<DirectTarget> target = observer_->claim_receive(send->peer, send->tuple.pack());
    if (!target) return false;
    // The receiver may have taken the RTS between the check above and the
    // claim, matched it to another receive, and posted this one afterwards
    // (a persistent receive restarted): then the claim is not ours to write.
    if (!transport.last_message_untaken(send->peer)) {
        observer_->finish_claim(*target, 0, false);
        ++stats_.direct_writes_abandoned;
        return false;
    }
    const std::size_t bytes = std::min(send->bytes, target->capacity);
    trace::record(trace::Event::write_issued, send->peer, send->wire_id(),
                  static_cast<std::int64_t>(bytes));
    const transport::Result result =
        bytes == 0 ? transport::Result::done
                   : transport.rdma_write(send->peer, send->buffer, bytes,
                                          transport::RemoteKey{target->address, 0}, 0);
    const bool ok = result == transport::Result::done;
    observer_->finish_claim(*target, bytes, ok);
    if (!ok) return false;  // the receiver reads it as usual
    trace::record(trace::Event::write_done, send->peer, send->wire_id());
    ++stats_.direct_writes;
    stats_.direct_write_bytes += bytes;
    release_registration(send);
    complete(send);
    return true;
}

void Engine::await_delivery(Request* request, int peer, const Tuple& tuple, const std::byte* rts) {
    if (tuple.kind != MessageKind::rts) {
        log::error("internal: a {} message from rank {} met a receive that rank claimed",
                   tuple.kind == MessageKind::eager ? "eager" : "control", peer);
        return;
    }
    Delivering delivering{request, peer, tuple, {}};
    std::memcpy(&delivering.rts, rts, sizeof delivering.rts);
    request->phase = Request::Phase::reading;
    delivering_.push_back(delivering);
    finish_deliveries();
}

int Engine::finish_deliveries() {
    int finished = 0;
    for (std::size_t i = 0; i < delivering_.size();) {
        const Delivering d = delivering_[i];
        const Delivery delivery = observer_->delivery_of(*d.request);
        if (delivery.state == Delivery::State::pending) {
            ++i;
            continue;
        }
        delivering_[i] = delivering_.back();
        delivering_.pop_back();
        ++finished;
        if (delivery.state == Delivery::State::abandoned) {
            receive_rendezvous(d.request, d.peer, d.tuple, reinterpret_cast<const std::byte*>(&d.rts));
            continue;
        }
        ++stats_.direct_deliveries;
        d.request->result = Completion{d.tuple.source, d.tuple.tag,
                                       d.rts.bytes > d.request->bytes ? kErrTruncate : 0,
                                       delivery.bytes};
        trace::record(trace::Event::read_done, d.peer, d.rts.request);
        complete(d.request);
    }
    return finished;
}

}  // namespace si::p2p
