// Direct delivery, the SmartInterrupts side (the protocol: p2p/direct.cpp).
// A receive's IRB entry is where a sender claims it; the entry's `delivery`
// word (node/region.hpp) moves, by compare-and-swap, from open to taken (the
// receiver matched it as usual) or to claimed, then delivered or failed (the
// sender wrote it, or could not). Every change the receiver makes to its IRB
// happens under its progress lock; a sender reads it without, and relies on
// the sequence number in `delivery` to tell a posting from a later one that
// reuses the entry.
#include <limits>

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
    node::RankBlock& receiver = region_.rank_block(local);
    // Only a receiver that computes: one inside MPI progresses by itself.
    if (receiver.progress_lock.load(std::memory_order_acquire) != 0 ||
        receiver.irb_in_use.load(std::memory_order_acquire) == 0 ||
        receiver.posted_outside_irb.load(std::memory_order_acquire) != 0)
        return std::nullopt;
    // The first posted receive this message matches: the open matching entry
    // with the lowest sequence. Any entry read inconsistently (changing under
    // us) ends the attempt: skipping it could pick a later receive.
    node::InterruptRequest* irb = region_.irb(local);
    int best = -1;
    std::uint64_t best_word = 0, address = 0, capacity = 0;
    std::uint64_t best_sequence = std::numeric_limits<std::uint64_t>::max();
    for (int e = 0; e < static_cast<int>(region_.irb_entries()); ++e) {
        node::InterruptRequest& slot = irb[e];
        const std::uint64_t value = slot.value.load(std::memory_order_acquire);
        if (value == 0) continue;
        const std::uint64_t word = slot.delivery.load(std::memory_order_acquire);
        const std::uint64_t mask = slot.mask.load(std::memory_order_acquire);
        const std::uint64_t slot_address = slot.address.load(std::memory_order_relaxed);
        const std::uint64_t slot_capacity = slot.capacity.load(std::memory_order_relaxed);
        if (slot.delivery.load(std::memory_order_acquire) != word ||
            slot.value.load(std::memory_order_acquire) != value)
            return std::nullopt;
        const DeliveryWord seen = DeliveryWord::unpack(word);
        if (seen.state != DeliveryState::open || !p2p::InterruptPattern{value, mask}.asked_by(tuple))
            continue;
        if (seen.sequence < best_sequence) {
            best = e;
            best_sequence = seen.sequence;
            best_word = word;
            address = slot_address;
            capacity = slot_capacity;
        }
    }
    // No address: the receive lies in pieces, which only its owner reads into.
    if (best < 0 || (address == 0 && capacity > 0)) return std::nullopt;
    const std::uint64_t claimed = DeliveryWord{best_sequence, world_rank_, DeliveryState::claimed}.pack();
    if (!irb[best].delivery.compare_exchange_strong(best_word, claimed, std::memory_order_seq_cst))
        return std::nullopt;
    return p2p::DirectTarget{address, capacity, peer, best};
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
