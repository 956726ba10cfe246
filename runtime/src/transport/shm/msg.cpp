#include <atomic>
#include <cstring>

#include "base/copy.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {

namespace {

// Arrivals handed up per peer in one progress call, so that one chatty peer
// cannot starve the others.
constexpr int kBurstPerPeer = 16;

}  // namespace

// Flattened: the ring's steps inline (copy_message, reserve, publish).
[[gnu::flatten]] Result ShmTransport::send(int peer, std::uint64_t tuple,
                                           std::span<const std::byte> header,
                                           std::span<const std::byte> payload) {
    Receiver& receiver = outbound_[locality_.local_index_of[peer]];
    const std::size_t bytes = header.size() + payload.size();
    std::byte* body = receiver.ring.reserve(bytes, record_limit_);
    if (body == nullptr) return Result::retry;
    copy_message(body, header.data(), header.size());
    copy_message(body + header.size(), payload.data(), payload.size());
    // Before the record is published (ring invariant 4 orders it), so that
    // whoever sees the record sees the ICB slot filled.
    if (tuples_published())
        icb_slot(receiver.icb, me_, receiver.ring.records_sent())
            .store(tuple, std::memory_order_relaxed);
    receiver.ring.publish(static_cast<std::uint32_t>(bytes), tuple);
    // Publish, then ring: a receiver going to sleep cannot miss it (its
    // sleep in Engine::block_until makes the barrier of plain wakers,
    // wake/wake_word.hpp).
    wake::wake_if_sleeping_plain(*doorbell_backend_, *receiver.doorbell);
    if (ring_interrupt_threads_)
        wake::wake_if_sleeping(*doorbell_backend_, *receiver.interrupt_word);
    return Result::done;
}

void ShmTransport::repost(const Arrival& arrival) {
    const int sender = locality_.local_index_of[arrival.peer];
    RingConsumer& ring = inbound_[sender];
    // Empty the slot before the producer may reuse it; the release of the
    // ring's counters orders this store before the producer's next write.
    if (tuples_published())
        icb_slot(my_icb_, sender, ring.oldest_unreleased()).store(0, std::memory_order_relaxed);
    ring.release(arrival.slot);
}

std::size_t ShmTransport::messages_in_flight(int peer) const {
    return outbound_[locality_.local_index_of[peer]].ring.records_in_flight();
}

bool ShmTransport::last_message_untaken(int peer) const {
    const Receiver& receiver = outbound_[locality_.local_index_of[peer]];
    const std::uint64_t sent = receiver.ring.records_sent();
    if (!tuples_published() || sent == 0) return false;
    return icb_slot(receiver.icb, me_, sent - 1).load(std::memory_order_seq_cst) != 0;
}

int ShmTransport::progress(Events& events) {
    if (owners_[static_cast<std::size_t>(me_)].pending.load(std::memory_order_acquire) != 0)
        help_split_reads();
    return take_arrivals(events);
}

int ShmTransport::take_arrivals(Events& events) {
    int handled = 0;
    for (int sender = 0; sender < layout_.local_size; ++sender) {
        RingConsumer& ring = inbound_[sender];
        for (int burst = 0; burst < kBurstPerPeer; ++burst) {
            std::uint64_t number = 0;
            std::uint64_t end = 0;
            const RecordHeader* record = ring.next(number, end);
            if (record == nullptr) break;
            Arrival arrival;
            arrival.peer = locality_.host_ranks[sender];
            arrival.tuple = record->tuple;
            arrival.body = reinterpret_cast<const std::byte*>(record + 1);
            arrival.bytes = record->bytes;
            arrival.slot = end;
            // Taken before it is matched, so that a sender writing a receive
            // directly can tell a receive it claimed from one posted after its
            // message was matched elsewhere (last_message_untaken, p2p/direct.cpp).
            std::atomic<std::uint64_t>* slot =
                tuples_published() ? &icb_slot(my_icb_, sender, number) : nullptr;
            if (slot != nullptr) slot->store(0, std::memory_order_seq_cst);
            if (!events.message_arrived(arrival)) {
                if (slot != nullptr) slot->store(arrival.tuple, std::memory_order_relaxed);
                ring.put_back();
                break;
            }
            ++handled;
        }
    }
    return handled;
}

}  // namespace si::transport::shm
