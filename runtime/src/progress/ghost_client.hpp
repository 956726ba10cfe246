// Progression mode `ghost`, one rank's side (ghost.hpp describes the mode):
// hands the application's point-to-point sends and receives to the ghost
// that serves their receiver, as engine requests that complete when the
// ghost says so, and on a node's first rank starts the node's ghosts at
// MPI_Init and stops them at MPI_Finalize.
//
// A send of at most SI_GHOST_THRESHOLD bytes copies its data into a payload
// slot of its post cell and completes at once (without a free slot, it goes
// as a large one); a larger one, or a synchronous one, completes
// when the ghost has copied it (or, synchronous, matched it). A receive
// completes when the ghost has copied its message. Receives, and sends, hold
// at most three quarters of the rank's cells until the ghost answers; beyond
// that they travel in overflow cells, which the ghost gives back at once and
// answers in a completion ring (node/ghost_area.hpp), so a rank may have any
// number outstanding. Only with every cell in transit does an operation wait
// in the rank, in order, for the ghost to take one. If a ghost dies, the
// operations waiting for it fail with MPI_ERR_OTHER.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "node/ghost_area.hpp"
#include "node/locality.hpp"
#include "node/region.hpp"
#include "p2p/engine.hpp"
#include "progress/counter.hpp"
#include "progress/ghost_layout.hpp"

namespace si::progress {

struct GhostStats {
    std::uint64_t posts = 0;           // cells handed to ghosts
    std::uint64_t inline_sends = 0;    // sends whose data went in the cell
    std::uint64_t cell_waits = 0;      // operations that found every cell in use
    std::uint64_t overflow_posts = 0;  // ... or their kind's share: overflow cells
};

class GhostOperation;

class GhostClient {
  public:
    // Starts the domain's ghosts on its first rank; `verbs_credits` for
    // their connections to other domains' ghosts.
    GhostClient(p2p::Engine& engine, const node::Region& region, const node::GhostArea& area,
                const node::Locality& locality, GhostLayout layout, int verbs_credits);
    // With several domains: connects the ghosts of every domain (every rank
    // calls it: it fences with the job). Throws si::Error.
    void connect(bootstrap::Bootstrap& bootstrap);
    // Stops the ghosts (first rank of a node): every rank of the node must
    // be done communicating.
    ~GhostClient();
    GhostClient(const GhostClient&) = delete;
    GhostClient& operator=(const GhostClient&) = delete;

    // As Engine::isend and Engine::irecv (a communicator rank, not
    // MPI_PROC_NULL; MPI_ANY_SOURCE and MPI_ANY_TAG as the engine's).
    p2p::Request* isend(const void* data, std::size_t bytes, int dest, int tag,
                        const p2p::CommRef& comm, std::uint16_t context, p2p::SendMode mode,
                        std::unique_ptr<p2p::CompletionHook>&& hook);
    p2p::Request* irecv(void* buffer, std::size_t capacity, int source, int tag,
                        const p2p::CommRef& comm, std::uint16_t context,
                        std::unique_ptr<p2p::CompletionHook>&& hook);

    // Asks the ghost whether a receive would match a message now (MPI_Iprobe):
    // its status if so. Blocks for the ghost's answer.
    std::optional<p2p::Completion> iprobe(int source, int tag, const p2p::CommRef& comm,
                                          std::uint16_t context);
    // MPI_Improbe: the same, and the ghost takes the message out of matching
    // under the number returned, which only imrecv receives.
    std::optional<std::pair<std::int32_t, p2p::Completion>> improbe(int source, int tag,
                                                                    const p2p::CommRef& comm,
                                                                    std::uint16_t context);
    p2p::Request* imrecv(std::int32_t message, void* buffer, std::size_t capacity,
                         std::unique_ptr<p2p::CompletionHook>&& hook);

    // MPI_Alloc_mem and MPI_Free_mem: memory the ghosts can map (a memory
    // file listed in the ghost area), so that they copy messages into and out
    // of it directly. Null when it cannot be had (all entries in use, no
    // memory file): the caller allocates as usual. free_shared: false if
    // `base` is not such memory. Any thread.
    void* allocate_shared(std::size_t bytes);
    bool free_shared(void* base);

    // Stops the node's ghosts (first rank of a node); idempotent.
    void stop();
    // This rank's counters, and on a node's first rank its ghosts' (after stop()).
    std::vector<Counter> counters() const;

  private:
    friend class GhostOperation;
    // With the progress lock held (an Activity's advance).
    // `transient`: the ghost gives the cell back once it took the operation
    // (a small standard send, a cancel); otherwise the operation holds it
    // until answered, or gets an overflow cell once held cells reach their
    // share.
    struct CellGrant {
        std::uint32_t index = 0;
        bool overflow = false;
    };
    std::optional<CellGrant> acquire_cell(bool transient);
    // Hands the answers in this rank's completion rings to their operations.
    void collect_completions();
    void release_cell(std::uint32_t index);  // and its payload slot
    // A cell no operation waits on (a completed send's, an overflow or a
    // cancel cell), free once the ghost is done with it.
    void detach_cell(std::uint32_t index) { detached_cells_.push_back(index); }
    void reclaim_detached_cells();  // before acquire_cell
    void post(std::uint32_t index, int ghost);
    // Posts a probe of `kind` and waits for the ghost's answer.
    std::optional<std::pair<std::int32_t, p2p::Completion>> ask(node::CellKind kind, int source,
                                                                int tag, const p2p::CommRef& comm,
                                                                std::uint16_t context);
    // False once a ghost of the node has died (checked now and then).
    bool ghosts_alive();

    // The area block of the ghost that matches for world rank `rank`, or
    // that carries this rank's messages to it.
    int serving_block(int rank) const { return layout_.block_of(layout_.serving_ghost(rank)); }

    p2p::Engine& engine_;
    const node::GhostArea& area_;
    const int local_index_;
    const int world_rank_;
    const node::GhostArea::Shape shape_;
    const GhostLayout layout_;
    std::vector<int> domain_blocks_;   // this rank's domain's ghosts
    std::vector<int> local_of_world_;  // world rank -> local index
    std::vector<std::uint32_t> free_cells_;
    std::vector<std::int32_t> free_payloads_;
    std::vector<std::uint32_t> detached_cells_;
    std::uint32_t held_cells_ = 0;  // by operations until the ghost answers
    std::vector<bool> cell_held_;   // by cell
    // Operations waiting for a cell, in the order they started.
    std::deque<GhostOperation*> sends_waiting_;
    std::deque<GhostOperation*> receives_waiting_;
    // Operations in overflow cells, by token, until the ghost answers.
    std::unordered_map<std::uint64_t, GhostOperation*> overflow_operations_;
    std::uint64_t last_token_ = 0;
    std::vector<std::uint64_t> queue_heads_;          // per ghost, this rank's queue
    std::vector<int> ghost_pidfds_;                   // -1: not opened yet
    std::chrono::nanoseconds last_liveness_check_{};  // CLOCK_MONOTONIC_COARSE
    std::mutex shared_mutex_;                         // the rank's shared blocks
    std::uint64_t shared_generation_ = 0;
    bool ghost_lost_ = false;
    GhostStats stats_;
    std::vector<std::pair<int, int>> started_ghosts_;  // (block, pid); pid < 0 once reaped
};

}  // namespace si::progress
