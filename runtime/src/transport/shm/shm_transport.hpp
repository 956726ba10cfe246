// The shared-memory transport: ranks of one host.
//
// Messages travel through one ring per ordered pair of local ranks, in a
// segment shared by the host (init.cpp); a cell's tuple goes to the
// receiver's ICB slot in the node region, its body stays in the cell
// (msg.cpp). RDMA Read and Write are cross-memory attach system calls
// (process_vm_readv / process_vm_writev) on the peer's memory (rma.cpp).
#pragma once

#include <memory>
#include <vector>

#include "base/shm_segment.hpp"
#include "node/locality.hpp"
#include "node/region.hpp"
#include "transport/shm/ring.hpp"
#include "transport/transport.hpp"
#include "wake/backends.hpp"

namespace si::transport::shm {

struct Layout {
    int local_size = 1;
    int cells = 32;             // per ordered pair of ranks
    std::size_t max_body = 0;   // largest message body

    std::size_t cell_bytes() const;
    std::size_t ring_bytes() const;
    std::size_t segment_bytes() const;
    // ICB slots each rank needs in the node region: one per receive cell.
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
    Result rdma_readv(int peer, std::span<const Segment> local, std::uint64_t remote) override;
    std::size_t messages_in_flight(int peer) const override;
    bool last_message_untaken(int peer) const override;
    int progress(Events& events) override;
    // Every send rings the receiver's doorbell itself.
    Armed arm() override { return Armed::ok; }
    // SI_PROGRESS=interrupt: every send also rings the receiver's interrupt
    // thread (node::RankBlock::interrupt_word), whatever the message.
    void ring_interrupt_threads() { ring_interrupt_threads_ = true; }

    // Publishes this process's probe word so peers can test cross-memory attach.
    static void publish_probe(node::RankBlock& block);

private:
    RingView ring(int receiver, int sender) const;
    void check_cross_memory_attach() const;

    Capabilities capabilities_;
    Layout layout_;
    SharedSegment segment_;
    std::byte* base_ = nullptr;
    const node::Region& region_;
    const node::Locality& locality_;
    int me_ = 0;                          // my local index
    std::vector<RingProducer> outbound_;  // by receiver's local index
    std::vector<RingConsumer> inbound_;   // by sender's local index
    std::atomic<std::uint64_t>* my_icb_ = nullptr;
    std::vector<pid_t> pid_of_;           // by local index
    std::unique_ptr<wake::Backend> doorbell_backend_;
    bool ring_interrupt_threads_ = false;
};

}  // namespace si::transport::shm
