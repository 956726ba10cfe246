// The verbs transport: ranks on other nodes (real or simulated), through
// libibverbs RC queue pairs, one per peer, on one completion queue.
//
// init.cpp      device, port and GID choice; memory; queue pairs; the
//               connection data exchanged through the bootstrap.
// msg.cpp       two-element sends and receives, credits.
// rma.cpp       memory registration (reg_cache.hpp), RDMA Read and Write.
// progress.cpp  completion polling, also from a signal handler
//               (SI_PROGRESS=pef); arming for blocking waits.
//
// Messages are laid out as the thesis does: every receive is pre-posted with
// two scatter elements, the first the 8-byte tuple into this rank's slot of
// its helper-visible ICB (the node region, registered with the NIC), the
// second the body into a receive buffer; every send gathers the tuple and the
// body (copied into a registered bounce buffer). So a helper sees an RTS the
// moment the NIC has written it, without the rank polling its queue.
//
// Flow control: a peer's pre-posted receives are credits. A sender spends one
// per message and sends only while it holds more than one (the last is kept
// for credit messages, below), otherwise send() says retry. The receiver
// counts the receives it reposts and returns them in the immediate data of
// its next message to that peer; when a threshold T of them (half, at least
// 2) is owed and no message carried them, it sends a credit message (a
// zero-byte send, which needs no bounce buffer and delivers nothing to the
// engine). Why that cannot deadlock: normal sends never take the last credit,
// so a sender is left without credits only after a credit message, which
// carried at least T credits to its peer; and a sender stuck at its reserve
// has credits - 1 >= T receives used at its peer, which therefore owes at
// least T once it reposted them and sends a credit message, with a credit of
// its own: it has one unless its last send was a credit message to us, which
// gave us T. Why credit messages do not ping-pong: one takes a single receive,
// and 1 < T. Receiver-not-ready therefore never happens, and the queue
// pairs are set up with rnr_retry = 0 so a flaw would show as an error, not
// as a slowdown.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "transport/transport.hpp"
#include "transport/verbs/reg_cache.hpp"
#include "wake/backends.hpp"

namespace si::transport::verbs {

struct Options {
    int credits = 32;          // receives pre-posted per peer
    std::size_t max_body = 0;  // largest message body
    std::string why;           // who asked for verbs, for error messages
};

// The port this rank uses and how peers address it.
struct Device {
    ibv_context* context = nullptr;
    std::string name;
    std::uint8_t port = 0;
    ibv_port_attr port_attr{};
    ibv_device_attr device_attr{};
    bool ethernet = false;  // RoCE: addressed by GID, not by LID
    int gid_index = -1;
    ibv_gid gid{};
    // RoCE: what the GID is, as open_device ranks it: 1 RoCE v1, 2 RoCE v2
    // over IPv6, 3 RoCE v2 over IPv4 (0 on InfiniBand).
    int gid_kind = 0;
};

// Why a port addressed as `theirs` (rank `peer`'s) cannot carry a connection
// from one addressed as `mine`: another link layer, or another kind of GID,
// whose packets the other side drops; nothing when they match.
std::optional<std::string> address_mismatch(const Device& mine, bool their_ethernet,
                                            int their_gid_kind, int their_gid_index,
                                            const std::string& their_device, int peer);

// Opens the first RDMA device with an ACTIVE port and picks its address
// (on RoCE the RoCE v2 GID of an IPv4 address if there is one). Throws
// si::Error saying what is missing and what to do; `why` names who asked.
Device open_device(const std::string& why);
void close_device(Device& device);

// Whether some RDMA device has an ACTIVE port, without complaining when none has.
bool device_available();

// Whether this process may lock any amount of memory (CAP_IPC_LOCK, bit 14
// of its effective capabilities, lifts RLIMIT_MEMLOCK).
bool can_lock_any_memory();

// What the transport pins for `peers` peers (receive and send-bounce slots,
// ICB slots, a page for the rest): what RLIMIT_MEMLOCK must allow.
std::uint64_t pinned_bytes(const Options& options, std::size_t peers);

// The complaint about a locked-memory limit too low for `needed` bytes, or
// nullopt when it is enough (or the process may lock any amount).
std::optional<std::string> memlock_problem(std::uint64_t limit, std::uint64_t needed,
                                           bool can_lock_any);

class VerbsTransport final : public Transport {
  public:
    // ICB slots (8 bytes each) this transport fills per peer.
    static std::size_t icb_slots_per_peer(const Options& options) {
        return static_cast<std::size_t>(options.credits);
    }

    // Opens the device, creates a queue pair per peer (world ranks), pre-posts
    // the receives, and puts this rank's connection data in the bootstrap.
    // `icb` has icb_slots_per_peer() slots per peer; `doorbell` is this
    // rank's. Throws si::Error.
    VerbsTransport(bootstrap::Bootstrap& bootstrap, std::vector<int> peers,
                   std::atomic<std::uint64_t>* icb, std::atomic<std::uint32_t>& doorbell,
                   const Options& options);
    // After a fence: reads the peers' connection data and connects.
    void connect(bootstrap::Bootstrap& bootstrap);
    // Waits (bounded) until the messages this rank sent have left, then
    // frees everything.
    ~VerbsTransport() override;
    VerbsTransport(const VerbsTransport&) = delete;
    VerbsTransport& operator=(const VerbsTransport&) = delete;

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
    int progress(Events& events) override;
    // A zero-length RDMA Write (no key or address is checked for one): its
    // acknowledgement proves the peer's port reachable; after the retries
    // (init.cpp) it fails and the peer is reported.
    void probe(int peer) override;
    std::vector<Counter> counters() const override { return {{"verbs_probes", probes_}}; }
    int progress_in_signal_handler(Events& events) override;
    Armed arm() override;
    // SI_PROGRESS=interrupt: the notifier rings `word` (the rank's interrupt
    // thread) as well as the doorbell. Before the first arm().
    void also_ring(std::atomic<std::uint32_t>& word) { also_ring_ = &word; }
    // Verbs writes only into registered memory: no direct delivery.
    std::size_t messages_in_flight(int) const override { return 0; }
    bool last_message_untaken(int) const override { return false; }

    static constexpr std::size_t kTupleBytes = sizeof(std::uint64_t);
    // A bounce slot holds the tuple, then (64-byte aligned) the body.
    static constexpr std::size_t kBounceHeaderBytes = 64;

  private:

    enum class Work : std::uint64_t { receive = 1, send = 2, credit = 3, rdma = 4, probe = 5 };
    static std::uint64_t work_id(Work kind, int peer, std::uint32_t low) {
        return static_cast<std::uint64_t>(kind) << 56 | static_cast<std::uint64_t>(peer) << 32 |
               low;
    }

    struct Peer {
        int rank = -1;
        ibv_qp* qp = nullptr;
        std::uint32_t psn = 0;
        int credits = 0;                 // receives free at the peer for us
        int owed = 0;                    // receives from it reposted and not yet returned
        bool credit_due = false;         // listed in credit_due_
        std::uint64_t sends_posted = 0;  // bounce slot of a send: sends_posted % credits
        std::uint64_t sends_done = 0;
        int sq_used = 0;  // work requests in its send queue
        bool failed = false;
        bool probing = false;  // a liveness probe in its send queue
        // The signal pass (signal_passes_) that left a message of it in stash_.
        std::uint32_t held_in_pass = 0;
    };

    struct RdmaOp {
        std::uint64_t cookie = 0;
        int peer = -1;  // index in peers_
        ibv_wr_opcode opcode = IBV_WR_RDMA_READ;
        std::byte* local = nullptr;
        std::uint64_t remote = 0;
        std::uint32_t rkey = 0;
        std::size_t bytes = 0;
        std::size_t posted_bytes = 0;
        int in_flight = 0;
        int error = 0;
        bool backlogged = false;
        RegistrationCache::Entry* registration = nullptr;
    };

    // Anonymous memory, page-aligned (receive and bounce buffers).
    struct Pages {
        std::byte* data = nullptr;
        std::size_t bytes = 0;
    };

    void set_up(bootstrap::Bootstrap& bootstrap, std::vector<int> peers);
    void tear_down();
    ibv_mr* register_or_fail(void* address, std::size_t bytes, int access, const char* what);
    void post_receive(int peer, std::uint32_t slot);
    void repost_receive(int peer, std::uint32_t slot);
    int send_credits();
    void mark_failed(Peer& peer, const char* what, const ibv_wc* wc);
    std::optional<PinnedRange> pin(std::uintptr_t begin, std::size_t bytes);
    void unpin(const PinnedRange& range);
    Result start_rdma(ibv_wr_opcode opcode, int peer, const void* local, std::size_t bytes,
                      RemoteKey remote, std::uint64_t cookie);
    // Room for `ops` RDMA operations in ops_, free_ops_ and backlog_, so that
    // starting one in a signal handler never allocates.
    void reserve_ops(std::size_t ops);
    void post_rdma(std::uint32_t op);
    int post_backlog(Events& events);
    void finish_rdma(std::uint32_t op, Events& events);
    int complete(const ibv_wc& wc, Events& events);
    bool complete_in_signal_handler(const ibv_wc& wc, Events& events);
    int handle_stash(Events& events);
    void drain_sends();
    void run_notifier();

    std::atomic<std::uint64_t>& icb_slot(int peer, std::uint32_t slot) const {
        return icb_[static_cast<std::size_t>(peer) * options_.credits + slot];
    }
    std::byte* receive_slot(int peer, std::uint32_t slot) const {
        return receive_pages_.data +
               (static_cast<std::size_t>(peer) * options_.credits + slot) * receive_slot_bytes_;
    }
    std::byte* bounce_slot(int peer, std::uint64_t slot) const {
        return bounce_pages_.data +
               (static_cast<std::size_t>(peer) * options_.credits + slot) * bounce_slot_bytes_;
    }

    Options options_;
    Capabilities capabilities_;
    Device device_;
    ibv_pd* pd_ = nullptr;
    ibv_comp_channel* channel_ = nullptr;
    ibv_cq* cq_ = nullptr;
    int sq_depth_ = 0;
    int rd_atomic_ = 1;
    int credit_threshold_ = 1;
    std::uint64_t probes_ = 0;  // liveness probes posted
    bool mtu_named_ = false;    // a peer's other MTU was reported (once per rank)
    std::size_t max_chunk_ = 0;  // largest message the port carries (an RDMA is split)

    std::vector<Peer> peers_;
    std::vector<int> index_of_;  // world rank -> index in peers_, or -1

    std::atomic<std::uint64_t>* icb_ = nullptr;
    ibv_mr* icb_mr_ = nullptr;
    Pages receive_pages_;
    std::size_t receive_slot_bytes_ = 0;
    ibv_mr* receive_mr_ = nullptr;
    Pages bounce_pages_;
    std::size_t bounce_slot_bytes_ = 0;
    ibv_mr* bounce_mr_ = nullptr;

    std::unique_ptr<RegistrationCache> cache_;
    std::vector<RdmaOp> ops_;
    std::vector<std::uint32_t> free_ops_;
    std::vector<std::uint32_t> backlog_;  // ops with chunks left to post
    std::vector<int> credit_due_;         // peers owed a credit message
    std::vector<int> failed_to_report_;   // world ranks, for Events::peer_failed

    // SI_PROGRESS=pef: completions a pass in a signal handler polled and
    // could not handle there, in the order polled; progress() handles them
    // before it polls again.
    static constexpr int kStashCapacity = 64;
    std::array<ibv_wc, kStashCapacity> stash_{};
    int stashed_ = 0;
    std::uint32_t signal_passes_ = 0;
    bool in_signal_handler_ = false;

    // Blocking waits (progress.cpp): a thread that sleeps on the completion
    // channel and rings the doorbell, started by the first arm().
    std::atomic<std::uint32_t>& doorbell_;
    std::unique_ptr<wake::Backend> doorbell_backend_;
    std::atomic<std::uint32_t>* also_ring_ = nullptr;
    int stop_fd_ = -1;
    std::thread notifier_;
    bool arm_failed_ = false;
};

}  // namespace si::transport::verbs
