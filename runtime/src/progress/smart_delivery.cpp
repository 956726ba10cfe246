// Direct delivery, the SmartInterrupts side (the protocol: p2p/direct.cpp).
// A receive's IRB entry is where a sender claims it; the entry's `delivery`
// word (node/region.hpp) moves, by compare-and-swap, from open to taken (the
// receiver matched it as usual) or to claimed, then delivered or failed (the
// sender wrote it, or could not). Every change the receiver makes to its IRB
// happens under its progress lock; a sender reads it without, and relies on
// the sequence number in `delivery` to tell a posting from a later one that
// reuses the entry.
#include "progress/receive_claim.hpp"
#include "progress/smart.hpp"

namespace si::progress {

using node::DeliveryState;
using node::DeliveryWord;

p2p::ReceiveClaim SmartProgress::take_receive(p2p::Request& request, int peer) {
    if (request.irb_entry == kOutsideIrb) {
        request.irb_entry = -1;
        add_to_own(block_.posted_outside_irb, -1);
        return p2p::ReceiveClaim::taken;
    }
    if (request.irb_entry < 0) return p2p::ReceiveClaim::taken;
    node::InterruptRequest& slot = region_.irb(local_index_)[request.irb_entry];
    std::uint64_t word = slot.delivery.load(std::memory_order_acquire);
    DeliveryWord seen = DeliveryWord::unpack(word);
    // A failed claim left nothing behind: the receive is anyone's again.
    if (seen.state == DeliveryState::open || seen.state == DeliveryState::failed) {
        const std::uint64_t taken = DeliveryWord{seen.sequence, -1, DeliveryState::taken}.pack();
        // Sequentially consistent, like the claim, and after the transport
        // marked the message taken: a sender that claims first sees the mark
        // (last_message_untaken), or this sees its claim.
        if (slot.delivery.compare_exchange_strong(word, taken, std::memory_order_seq_cst)) {
            withdraw(request);
            return p2p::ReceiveClaim::taken;
        }
        seen = DeliveryWord::unpack(word);  // a sender claimed it just now
    }
    return seen.claimant == peer ? p2p::ReceiveClaim::delivered_by_sender
                                 : p2p::ReceiveClaim::claimed_by_other;
}

p2p::Delivery SmartProgress::delivery_of(p2p::Request& request) {
    node::InterruptRequest& slot = region_.irb(local_index_)[request.irb_entry];
    const DeliveryWord seen = DeliveryWord::unpack(slot.delivery.load(std::memory_order_acquire));
    if (seen.state == DeliveryState::claimed) return {p2p::Delivery::State::pending, 0};
    const std::size_t bytes = slot.written.load(std::memory_order_relaxed);
    withdraw(request);
    if (seen.state == DeliveryState::delivered) return {p2p::Delivery::State::delivered, bytes};
    return {p2p::Delivery::State::abandoned, 0};
}

std::optional<p2p::DirectTarget> SmartProgress::claim_receive(int peer, std::uint64_t tuple) {
    const int local = local_of_world_[static_cast<std::size_t>(peer)];
    if (local < 0 || local == local_index_) return std::nullopt;
    const node::RankBlock& receiver = region_.rank_block(local);
    const ReceiverLook look = look_at_receiver(receiver);
    std::optional<p2p::DirectTarget> target =
        claim_first_match(region_, local, look, tuple, world_rank_, peer);
    if (target && posted_since(receiver, look)) {
        finish_claim(*target, 0, false);  // the receiver may wait for it already
        return std::nullopt;
    }
    return target;
}

void SmartProgress::finish_claim(const p2p::DirectTarget& target, std::size_t written, bool ok) {
    const int local = local_of_world_[static_cast<std::size_t>(target.peer)];
    node::InterruptRequest& slot = region_.irb(local)[target.entry];
    DeliveryWord word = DeliveryWord::unpack(slot.delivery.load(std::memory_order_relaxed));
    word.state = ok ? DeliveryState::delivered : DeliveryState::failed;
    slot.written.store(written, std::memory_order_relaxed);
    slot.delivery.store(word.pack(), std::memory_order_release);
    // The receiver may have met the RTS meanwhile and fallen asleep waiting for
    // this (Engine::finish_deliveries): no message follows to ring it.
    wake::wake_if_sleeping(*doorbell_backend_, region_.rank_block(local).doorbell);
}

}  // namespace si::progress
