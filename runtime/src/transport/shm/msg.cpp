#include <atomic>
#include <cstring>

#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {

namespace {

// Arrivals handed up per peer in one progress call, so that one chatty peer
// cannot starve the others.
constexpr int kBurstPerPeer = 16;

}  // namespace

Result ShmTransport::send(int peer, std::uint64_t tuple, std::span<const std::byte> header,
                          std::span<const std::byte> payload) {
    const int receiver = locality_.local_index_of[peer];
    RingProducer& ring = outbound_[receiver];
    std::uint64_t position = 0;
    std::byte* cell = ring.reserve(position);
    if (cell == nullptr) return Result::retry;

    const std::size_t bytes = header.size() + payload.size();
    auto* cell_header = reinterpret_cast<CellHeader*>(cell);
    cell_header->bytes = static_cast<std::uint32_t>(bytes);
    std::byte* body = cell + kCellHeaderBytes;
    if (!header.empty()) std::memcpy(body, header.data(), header.size());
    if (!payload.empty()) std::memcpy(body + header.size(), payload.data(), payload.size());

    // The tuple goes to the receiver's ICB slot for this cell before the cell is
    // published (ring invariant 3), so whoever sees the cell sees the tuple.
    std::atomic<std::uint64_t>* icb = region_.icb(receiver);
    icb[static_cast<std::size_t>(me_) * layout_.cells + position % layout_.cells].store(
        tuple, std::memory_order_relaxed);
    ring.publish();
    // Publish, then ring: a receiver going to sleep cannot miss it
    // (wake/wake_word.hpp).
    node::RankBlock& block = region_.rank_block(receiver);
    wake::wake_if_sleeping(*doorbell_backend_, block.doorbell);
    if (ring_interrupt_threads_) wake::wake_if_sleeping(*doorbell_backend_, block.interrupt_word);
    return Result::done;
}

void ShmTransport::repost(const Arrival& arrival) {
    const int sender = static_cast<int>(arrival.slot >> 32);
    const auto cell = static_cast<std::uint32_t>(arrival.slot);
    // Empty the slot before the producer may reuse it; the release of the ring
    // head orders this store before the producer's next write of the slot.
    my_icb_[static_cast<std::size_t>(sender) * layout_.cells + cell].store(0, std::memory_order_relaxed);
    inbound_[sender].release();
}

std::size_t ShmTransport::messages_in_flight(int peer) const {
    const RingView& ring = outbound_[locality_.local_index_of[peer]].view();
    return ring.control->tail.load(std::memory_order_relaxed) -
           ring.control->head.load(std::memory_order_acquire);
}

bool ShmTransport::last_message_untaken(int peer) const {
    const int receiver = locality_.local_index_of[peer];
    const RingView& ring = outbound_[receiver].view();
    const std::uint64_t last = ring.control->tail.load(std::memory_order_relaxed) - 1;
    const std::atomic<std::uint64_t>* icb = region_.icb(receiver);
    return icb[static_cast<std::size_t>(me_) * layout_.cells + last % layout_.cells].load(
               std::memory_order_seq_cst) != 0;
}

int ShmTransport::progress(Events& events) {
    int handled = 0;
    for (int sender = 0; sender < layout_.local_size; ++sender) {
        RingConsumer& ring = inbound_[sender];
        for (int burst = 0; burst < kBurstPerPeer; ++burst) {
            std::uint64_t position = 0;
            const std::byte* cell = ring.next(position);
            if (cell == nullptr) break;
            const auto index = static_cast<std::uint32_t>(position % layout_.cells);
            Arrival arrival;
            arrival.peer = locality_.host_ranks[sender];
            std::atomic<std::uint64_t>& tuple =
                my_icb_[static_cast<std::size_t>(sender) * layout_.cells + index];
            arrival.tuple = tuple.load(std::memory_order_relaxed);
            // Taken before it is matched, so that a sender writing a receive
            // directly can tell a receive it claimed from one posted after its
            // message was matched elsewhere (last_message_untaken, p2p/direct.cpp).
            tuple.store(0, std::memory_order_seq_cst);
            arrival.body = cell + kCellHeaderBytes;
            arrival.bytes = reinterpret_cast<const CellHeader*>(cell)->bytes;
            arrival.slot = static_cast<std::uint64_t>(sender) << 32 | index;
            if (!events.message_arrived(arrival)) {
                tuple.store(arrival.tuple, std::memory_order_relaxed);
                ring.put_back();
                break;
            }
            ++handled;
        }
    }
    return handled;
}

}  // namespace si::transport::shm
