// The shared-memory transport: ranks of one host.
//
// Messages travel through one ring per ordered pair of local ranks, in a
// segment shared by the host (init.cpp): a record holds the message's tuple
// and body (msg.cpp, ring.hpp). With SmartInterrupts the sender also puts the
// tuple into the receiver's ICB slot in the node region, where helpers look.
// RDMA Read and Write are cross-memory attach system calls
// (process_vm_readv / process_vm_writev) on the peer's memory (rma.cpp); a
// large read is split with the owner of the data when it is inside MPI too
// (split_read.hpp).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "base/shm_segment.hpp"
#include "node/locality.hpp"
#include "node/region.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/split_read.hpp"
#include "transport/shm/staging.hpp"
#include "transport/transport.hpp"
#include "wake/backends.hpp"

namespace si::transport::shm {

struct Layout {
    int local_size = 1;
    // ICB slots per ordered pair of ranks: with the ICB in use
    // (ShmTransport::publish_tuples), the most messages in flight from one
    // rank to another.
    int cells = 64;
    std::size_t max_body = 0;    // largest message body
    std::size_t ring_bytes = 0;  // per ordered pair; at least min_ring_bytes(max_body)
    std::size_t staging_bytes = 0;  // per rank (staging.hpp); 0: none

    // ring_bytes as the ring uses it: raised to min_ring_bytes(max_body),
    // then to a power of two.
    std::size_t ring_capacity() const;
    std::size_t ring_stride() const;  // control line and records
    std::size_t rings_bytes() const;  // every ordered pair's
    // Where the ranks' staging areas start, page-aligned, and one's size:
    // staging_bytes in whole pages, and a page for the senders' count lines.
    std::size_t staging_offset() const;
    std::size_t staging_area_bytes() const;
    std::size_t segment_bytes() const;
    // ICB slots each rank needs in the node region.
    std::size_t icb_slots() const { return static_cast<std::size_t>(local_size) * cells; }
};

// What a rank's probe word holds, so a peer can tell it read the right process.
constexpr std::uint64_t probe_value(pid_t pid) {
    return 0x5349'0000'0000'0000ULL ^ static_cast<std::uint64_t>(pid);
}

class ShmTransport final : public Transport {
public:
    // The first rank of a host creates the segment; the others open it after a fence.
    static SharedSegment create_segment(const std::string& job_id, const Layout& layout);
    static SharedSegment open_segment(const std::string& job_id);

    // Requires every local rank to have filled its rank block (pid) in the region.
    // Throws si::Error if the kernel forbids cross-memory attach.
    ShmTransport(SharedSegment segment, const node::Region& region,
                 const node::Locality& locality, const Layout& layout);

    const Capabilities& capabilities() const override { return capabilities_; }
    Registration register_memory(const void* address, std::size_t bytes) override;
    void deregister_memory(Registration& registration) override;
    Result send(int peer, std::uint64_t tuple, std::span<const std::byte> header,
                std::span<const std::byte> payload) override;
    void repost(const Arrival& arrival) override;
    Result rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                     std::uint64_t cookie) override;
    Result rdma_write(int peer, const void* local, std::size_t bytes, RemoteKey remote,
                      std::uint64_t cookie) override;
    Result rdma_readv(int peer, std::span<const Segment> local, RemoteKey remote) override;
    std::byte* acquire_staging(std::size_t bytes) override { return staging_.acquire(bytes); }
    void release_staging(std::byte* staging, std::size_t bytes) override {
        staging_.release(staging, bytes);
    }
    const std::byte* view(int peer, RemoteKey remote, std::size_t bytes) override;
    std::size_t messages_in_flight(int peer) const override;
    bool last_message_untaken(int peer) const override;
    // Helps peers' split reads of this rank's memory, then takes arrivals.
    int progress(Events& events) override;
    // Takes arrivals only: a copy for a peer would run on the core the
    // interrupted application computes on.
    int progress_in_signal_handler(Events& events) override { return take_arrivals(events); }
    std::vector<Counter> counters() const override;
    // Every send rings the receiver's doorbell itself.
    Armed arm() override { return Armed::ok; }
    // SI_PROGRESS=interrupt: every send also rings the receiver's interrupt
    // thread (node::RankBlock::interrupt_word), whatever the message.
    void ring_interrupt_threads() { ring_interrupt_threads_ = true; }
    // SmartInterrupts: every message's tuple also goes to the receiver's ICB
    // slot (Layout::cells per pair, which then bounds the messages in
    // flight), where helpers see it; the receiver clears the slot when it
    // takes the message (last_message_untaken). Every rank of a job must
    // call it, or none: it decides which ICB slots are in use.
    void publish_tuples() { record_limit_ = static_cast<std::uint64_t>(layout_.cells); }

    // This rank's reads of at least `bytes` are offered to the data's owner
    // (split_read.hpp); 0: never (SI_SHM_SPLIT_READ_BYTES). A per-rank choice:
    // an owner helps whatever offer it meets.
    void split_reads_from(std::size_t bytes) { split_reads_from_ = bytes; }

    // Publishes this process's probe word so peers can test cross-memory attach.
    static void publish_probe(node::RankBlock& block);

private:
  // What a send to one local rank touches, found once.
  struct Receiver {
      RingProducer ring;
      std::atomic<std::uint64_t>* icb = nullptr;
      std::atomic<std::uint32_t>* doorbell = nullptr;
      std::atomic<std::uint32_t>* interrupt_word = nullptr;
  };

    RingView ring(int receiver, int sender) const;
    static void prefault(const RingView& ring);
    void check_cross_memory_attach() const;
    int take_arrivals(Events& events);
    // A read of `bytes` at least split_reads_from_ from local rank `owner`,
    // shared with it when it helps (split_read.hpp): 0 or an errno value.
    int split_read(int owner, std::byte* local, std::size_t bytes, std::uint64_t remote);
    // The owner's side: chunks of peers' offers naming this rank.
    void help_split_reads();
    // The ICB slot of record `number` from local rank `sender`.
    std::atomic<std::uint64_t>& icb_slot(std::atomic<std::uint64_t>* icb, int sender,
                                         std::uint64_t number) const {
        return icb[static_cast<std::size_t>(sender) * static_cast<std::size_t>(layout_.cells) +
                   number % static_cast<std::uint64_t>(layout_.cells)];
    }
    bool tuples_published() const { return record_limit_ != kNoRecordLimit; }
    // This process's view of `bytes` at `remote` in the staging area of
    // local rank `owner` (its registration's key is its mapping's address),
    // or null if they are not inside it.
    const std::byte* staged(int owner, RemoteKey remote, std::size_t bytes) const;
    Result staging_refused(int peer, RemoteKey remote, std::size_t bytes) const;

    Capabilities capabilities_;
    Layout layout_;
    SharedSegment segment_;
    std::byte* base_ = nullptr;
    const node::Region& region_;
    const node::Locality& locality_;
    int me_ = 0;                          // my local index
    StagingArea staging_;                 // mine
    std::vector<Receiver> outbound_;      // by receiver's local index
    std::vector<RingConsumer> inbound_;   // by sender's local index
    static constexpr std::uint64_t kNoRecordLimit = ~std::uint64_t{0};
    std::atomic<std::uint64_t>* my_icb_ = nullptr;
    std::vector<pid_t> pid_of_;           // by local index
    std::unique_ptr<wake::Backend> doorbell_backend_;
    bool ring_interrupt_threads_ = false;
    std::uint64_t record_limit_ = kNoRecordLimit;  // publish_tuples()
    std::size_t split_reads_from_ = kSplitReadFrom;  // 0: never
    std::span<ReadOffer> offers_;                  // by reader's local index
    std::span<OwnerLine> owners_;                  // by owner's local index
    std::uint64_t read_generation_ = 0;
    // Reads of this rank offered for splitting, those the owner helped with,
    // and the bytes it copied; bytes this rank copied into peers' reads.
    std::uint64_t split_reads_ = 0;
    std::uint64_t split_reads_helped_ = 0;
    std::uint64_t split_bytes_by_owner_ = 0;
    std::uint64_t split_bytes_for_peers_ = 0;
    // Reads of peers' staging areas (memory copies) and their bytes.
    std::uint64_t staged_reads_ = 0;
    std::uint64_t staged_bytes_ = 0;
};

}  // namespace si::transport::shm
