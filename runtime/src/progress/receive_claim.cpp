#include "progress/receive_claim.hpp"

#include <limits>

namespace si::progress {

using node::DeliveryState;
using node::DeliveryWord;

ReceiverLook look_at_receiver(const node::RankBlock& receiver) {
    // The count first: a receive posted after this load changes it.
    const std::uint32_t posted = receiver.receives_posted.load(std::memory_order_acquire);
    // Only a receiver that computes: one inside MPI progresses by itself.
    const bool claimable = receiver.progress_lock.load(std::memory_order_acquire) == 0 &&
                           receiver.irb_in_use.load(std::memory_order_acquire) != 0 &&
                           receiver.posted_outside_irb.load(std::memory_order_acquire) == 0;
    return {claimable, posted};
}

std::optional<p2p::DirectTarget> claim_first_match(const node::Region& region, int local,
                                                   const ReceiverLook& look, std::uint64_t tuple,
                                                   int claimant, int receiver_world) {
    if (!look.claimable) return std::nullopt;
    // The first posted receive this message matches: the open matching entry
    // with the lowest sequence. Any entry read inconsistently (changing under
    // us) ends the attempt: skipping it could pick a later receive.
    node::InterruptRequest* irb = region.irb(local);
    int best = -1;
    std::uint64_t best_word = 0, address = 0, capacity = 0;
    std::uint64_t best_sequence = std::numeric_limits<std::uint64_t>::max();
    for (int e = 0; e < static_cast<int>(region.irb_entries()); ++e) {
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
    const std::uint64_t claimed = DeliveryWord{best_sequence, claimant, DeliveryState::claimed}.pack();
    if (!irb[best].delivery.compare_exchange_strong(best_word, claimed, std::memory_order_seq_cst))
        return std::nullopt;
    return p2p::DirectTarget{address, capacity, receiver_world, best};
}

bool posted_since(const node::RankBlock& receiver, const ReceiverLook& look) {
    return receiver.receives_posted.load(std::memory_order_acquire) != look.receives_posted;
}

}  // namespace si::progress
