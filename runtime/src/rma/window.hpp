// One-sided communication on one window: the nonblocking-epoch design of
// seed 002 (NewRMA) over the point-to-point engine.
//
// Epochs are objects in a per-window list, in the order the program opened
// them. Opening never waits: an epoch that cannot be activated yet is
// deferred, and the operations the program issues in it are recorded and
// replayed when it activates. Closing makes a request the program may wait
// on later (MPIX_Win_i*) or at once (the blocking calls). Activation is
// serial: an epoch activates once every earlier one has completed or is
// still open and active itself (what MPI lets a program hold open together:
// post + start, several locks), so by default a closed epoch completes before
// the next one starts, as the paper's default (no reordering flags).
//
// Matching is O(1) per peer (seed 002 section VII-B): each process keeps, for
// every peer, counters that only grow, and peers write theirs one-sidedly
// (RDMA Write, or cross-memory attach on shared memory) into this window's
// counter block: the fences a peer has passed, the exposures it opened to us
// (PSCW grants), the accesses it finished towards us (PSCW completion), the
// locks it granted us, and the last of our messages it applied. An access
// epoch towards t is the A-th one of this process and may transfer once t's
// grant counter reaches A; no list of pending grants is ever kept.
//
// Contiguous Put and Get are RDMA Write and Read into the target's window,
// without its CPU. Everything the target must do itself (accumulates, whose
// per-element atomicity comes from its progress engine applying them in
// arrival order; transfers of non-contiguous target layouts; lock requests
// and releases) travels as a message on the window's own communicator, which
// each process keeps a receive posted on while the window exists.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/shm_segment.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"
#include "p2p/engine.hpp"
#include "transport/transport.hpp"

namespace si::rma {

enum class LockType : std::uint8_t { exclusive = 1, shared = 2 };

// What one process published about its window when it was created.
struct PeerWindow {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::uint64_t disp_unit = 1;
    std::uint64_t key = 0;       // its registration's key, for a transport that pins
    std::uint64_t counters = 0;  // address of its counter block
    std::uint64_t counters_key = 0;
    // Its shared-memory segment (Window::Memory): the window's memory is in
    // it at this offset when `memory_in_segment`.
    std::uint64_t segment_bytes = 0;
    std::uint64_t memory_offset = 0;
    std::uint64_t memory_in_segment = 0;
    // Its one-sided SmartInterrupts flags (ProgressObserver::signal_flags),
    // which a signal from another host raises with an RDMA Write; 0: none.
    std::uint64_t signal_flags = 0;
    std::uint64_t signal_flags_key = 0;
};

// The counters a peer writes into this process's block, one row per peer.
enum class Counter : std::uint8_t {
    fence,    // fences it has closed (each closes one fence epoch)
    grant,    // PSCW exposures it opened to us
    done,     // PSCW access epochs towards us it finished
    lock,     // locks it granted us
    applied,  // sequence number of the last of our messages it applied
    count_,
};
inline constexpr int kCounters = static_cast<int>(Counter::count_);

// Seed 002's per-window reordering flags (section VI-B): whether an epoch
// may activate while an earlier one, closed but not complete, still runs.
// Access epochs are the origin side (PSCW access, locks), exposure epochs
// the target side; fence epochs never reorder. All off by default: with one
// on, a later epoch's transfers may overtake an earlier one's, which is
// safe only when the two touch disjoint memory (the program's promise).
struct Reordering {
    bool access_after_access = false;      // A_A_A_R
    bool access_after_exposure = false;    // A_A_E_R
    bool exposure_after_exposure = false;  // E_A_E_R
    bool exposure_after_access = false;    // E_A_A_R
};

struct Epoch;
struct Operation;

// Rule 4 of seed 002 with the flags: whether `epoch` may activate after
// `earlier`, which the program opened before it. Activation keeps the
// opening order (the per-peer counters number epochs as they activate), so
// an earlier epoch not active yet always holds a later one back.
bool may_activate_after(const Epoch& earlier, const Epoch& epoch, const Reordering& reordering);

class Window final : public p2p::Activity {
  public:
    // Collective over the window's communicator (its own, duplicated by the
    // API layer): registers memory, and the caller exchanges describe()
    // of every member and passes them to connect(). A dynamic window
    // (MPI_Win_create_dynamic) has no memory of its own: displacements are
    // addresses in the target, reached directly only by a transport with
    // direct_write (cross-memory attach), otherwise through the target.
    //
    // Each process keeps its counter block (and, when the window allocates
    // its memory, that memory) in a shared-memory segment of its own, which
    // the members on its node map: towards them a counter is an atomic
    // store and a contiguous Put or Get a memcpy, with no system call.
    // `segment_name` names that segment (SharedSegment::name_for).
    struct Memory {
        void* base = nullptr;  // ignored when `allocate`
        std::size_t size = 0;
        std::size_t disp_unit = 1;
        bool dynamic = false;
        bool allocate = false;  // MPI_Win_allocate: base() is the memory made here
    };
    Window(p2p::Engine& engine, std::vector<int> world_of, int rank, std::uint16_t context,
           Memory memory, const std::string& segment_name);
    ~Window() override;
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    PeerWindow describe() const;
    // Every member's description, by window rank: maps the segments of the
    // members on this node and starts the window's activity (the engine's
    // lock must not be held). Then, after a barrier of every member (all
    // have mapped what they map), unlink_segment().
    void connect(std::vector<PeerWindow> peers, const std::vector<std::string>& segment_names);
    void unlink_segment() { segment_.unlink(); }
    // MPI_Win_allocate_shared: every member's memory, mapped here at these
    // addresses, so Put and Get to it are copies.
    void map_memory(std::vector<std::byte*> bases) { mapped_memory_ = std::move(bases); }
    // Whether every epoch completed and nothing is in flight (MPI_Win_free
    // may go on), ignoring a fence epoch left open with nothing in it: every
    // message this process sent to a target was served there too, so none
    // can reach the window's communicator after it is gone.
    bool idle_locked() const;
    // Stops serving the window (after a barrier of every member: nobody
    // sends to it any more); the engine's lock must not be held.
    void disconnect();

    int size() const { return static_cast<int>(world_of_.size()); }
    int rank() const { return rank_; }
    void* base() const { return base_; }
    const PeerWindow& peer(int rank) const { return peers_[static_cast<std::size_t>(rank)]; }
    p2p::Engine& engine() { return engine_; }

    // ---- epochs (with the engine's lock held) -------------------------------
    // Each opening returns at once; each closing returns the epoch whose
    // completion its request waits for (closing_request()).
    // Fence: closes the open fence epoch (an empty one on the first fence) and
    // opens the next unless `last` (MPI_MODE_NOSUCCEED).
    std::shared_ptr<Epoch> fence_locked(bool last);
    void start_locked(const std::vector<int>& targets);
    void post_locked(const std::vector<int>& origins);
    void lock_locked(int target, LockType type);
    void lock_all_locked();
    // nullptr if no such epoch is open: the caller reports MPI_ERR_RMA_SYNC.
    std::shared_ptr<Epoch> complete_locked();
    std::shared_ptr<Epoch> wait_locked();
    std::shared_ptr<Epoch> unlock_locked(int target);
    std::shared_ptr<Epoch> unlock_all_locked();
    // MPI_Win_test: closes the open exposure epoch if it is complete.
    // Returns -1 if none is open, else 1 (completed and closed) or 0.
    int test_locked();
    // MPI_Win_set_info's reordering hints; an epoch they release activates.
    void set_reordering_locked(const Reordering& reordering);
    const Reordering& reordering() const { return reordering_; }
    bool exposure_open() const;
    bool access_open_to(int target) const;
    bool lock_open_to(int target) const;
    bool lock_all_open() const;
    bool passive_open() const;
    bool pscw_access_open() const;

    // ---- operations (with the engine's lock held) -----------------------------
    // What the program asked for; records it in the access epoch open
    // towards `target` (the caller checked there is one) and issues it when
    // that epoch may transfer.
    struct Request {
        enum class Kind : std::uint8_t { put, get, accumulate, get_accumulate, compare_and_swap };
        Kind kind = Kind::put;
        int target = 0;
        const void* origin = nullptr;  // put / accumulate data; CAS: the new value
        std::size_t origin_count = 0;
        const datatype::Type* origin_type = nullptr;
        void* result = nullptr;  // get / get_accumulate / CAS destination
        std::size_t result_count = 0;
        const datatype::Type* result_type = nullptr;
        const void* compare = nullptr;  // CAS
        std::uint64_t target_disp = 0;  // in disp units
        std::size_t target_count = 0;
        const datatype::Type* target_type = nullptr;
        const datatype::Op* op = nullptr;  // accumulates; nullptr = MPI_REPLACE
        bool no_op = false;                // MPI_NO_OP
    };
    std::shared_ptr<Operation> issue_locked(const Request& request);
    // A Put or Get that issue_locked would copy at once (a contiguous
    // target in a member's window mapped here, its epoch granted with
    // nothing recorded ahead): copied now, with no Operation to track.
    // False: nothing was done (use issue_locked).
    bool copy_at_once_locked(const Request& request);
    // MPI_Win_flush(target) (or every target, `target` < 0): the operations
    // issued so far towards it; the returned predicate says when they are done.
    struct FlushMark {
        int target;
        std::vector<std::uint64_t> ages;  // per target: the last age to wait for
    };
    FlushMark flush_mark_locked(int target) const;
    bool flushed_locked(const FlushMark& mark) const;

    // p2p::Activity: one per window, from connect() to disconnect().
    bool advance(p2p::Engine& engine) override;
    int result() const override { return 0; }
    bool polls_memory() const override { return polls_memory_; }

  private:
    friend struct Epoch;
    // Counter blocks.
    std::uint64_t inbox(int peer, Counter counter) const;
    // Writes `value` into the peer's row for us, one-sidedly.
    void signal(int peer, Counter counter, std::uint64_t value);
    // Tells the peer's asynchronous progress that we signalled it (after
    // the counter, so that whoever it wakes sees the counter).
    void raise_flag(int peer, bool through_memory);
    // The peers whose signals this window waits for with operations
    // recorded (bit: world rank % 64), published to asynchronous progress.
    p2p::AwaitedSignals awaited_signals() const;
    void publish_awaited();
    transport::RemoteKey window_key(int peer, std::uint64_t offset) const;
    p2p::CommRef comm() const { return p2p::CommRef{context_, rank_, world_of_}; }

    // Epochs (epochs.cpp).
    std::shared_ptr<Epoch> open(std::shared_ptr<Epoch> epoch);
    // Takes completed epochs off the list, keeping those nobody holds any
    // more for new ones; one a request still holds stays until let go.
    void drop_completed_epochs();
    void activate_ready();
    void activate(Epoch& epoch);
    // Every origin of an exposure epoch finished its access.
    bool exposure_done(const Epoch& epoch) const;
    void advance_epoch(Epoch& epoch);
    Epoch* access_epoch_to(int target) const;

    // Origin side (ops.cpp).
    void start_transfer(std::shared_ptr<Operation> op);
    bool copy_on_node(const Request& r);
    void send_to_target(Operation& op);
    void send_lock_message(int target, bool release, LockType type);
    // Sends a message to a target's window; `buffer` stays alive until it left.
    void send_message(int target, int tag, std::vector<std::byte> buffer);
    bool reap(Operation& op);
    void finish(Operation& op);
    std::uint32_t next_sequence(int target);

    // Target side (target.cpp).
    void post_service_receive();
    // The size the owner checks messages against (rma/wire.hpp); none for a
    // dynamic window.
    std::optional<std::uint64_t> window_bytes() const;
    void serve(int origin, std::span<const std::byte> message);
    void apply(int origin, std::span<const std::byte> message, std::span<const std::byte> data);
    // Applies an operation whose data (and perhaps layout) came on the data tag.
    void apply_follow_up();
    void lock_requested(int origin, LockType type);
    void lock_released(int origin);
    void grant_waiting_locks();
    void reap_sends();

    p2p::Engine& engine_;
    std::vector<int> world_of_;  // window rank -> world rank
    int rank_;
    std::uint16_t context_;
    void* base_;
    std::size_t bytes_;
    std::size_t disp_unit_;
    bool dynamic_;
    std::vector<PeerWindow> peers_;
    // Registrations of the window and of the counter block, with every
    // transport that pins memory.
    struct Registered {
        transport::Transport* transport;
        transport::Registration window;
        transport::Registration counters;
        transport::Registration flags;
    };
    std::vector<Registered> registered_;
    // Counter block, at the start of the segment: inbox rows (peers write
    // them), then outbox rows (the values we write into peers' inboxes,
    // kept until the write is done).
    SharedSegment segment_;
    std::uint64_t* counters_ = nullptr;
    std::uint64_t& outbox(int peer, Counter counter);
    void* private_memory_ = nullptr;  // MPI_Win_allocate's, if no segment could hold it
    bool memory_in_segment_ = false;
    // Members on this node: their segments mapped here, their counter
    // blocks, and their window memory if it is in the segment (else null).
    std::vector<SharedSegment> mapped_;
    std::vector<std::uint64_t*> mapped_counters_;
    std::vector<std::byte*> mapped_memory_;

    // Per peer, this process's own counts (seed 002's a, e, and the others).
    std::vector<std::uint64_t> accesses_requested_;
    std::vector<std::uint64_t> exposures_opened_;
    std::vector<std::uint64_t> locks_requested_;
    std::vector<std::uint32_t> sequence_;  // messages sent to each target
    std::uint64_t fences_ = 0;

    std::vector<std::shared_ptr<Epoch>> epochs_;  // opened, not completed, in order
    // Completed epochs nobody holds any more, which new ones are made of
    // (an epoch per step, as in a PSCW loop, then allocates nothing).
    std::vector<std::shared_ptr<Epoch>> spare_epochs_;
    std::vector<int> all_ranks_;                        // 0..size-1: a fence's members
    Reordering reordering_;
    p2p::AwaitedSignals awaited_;                 // last publish_awaited()
    // Per target, every operation not yet done, by age (MPI_Win_flush).
    std::vector<std::deque<std::shared_ptr<Operation>>> unfinished_;
    std::vector<std::uint64_t> ages_;
    std::vector<std::shared_ptr<Operation>> in_flight_;
    // Counter writes and messages whose requests are released when done.
    std::vector<p2p::Request*> fire_and_forget_;

    // Target side: the posted receive for messages to this window, one
    // message served at a time (so that its follow-up data is taken before
    // the next message), and the locks.
    p2p::Request* service_ = nullptr;
    std::vector<std::byte> service_buffer_;
    p2p::Request* follow_up_ = nullptr;
    int follow_up_origin_ = -1;
    std::vector<std::byte> follow_up_header_;
    std::vector<std::byte> follow_up_data_;
    // Messages this process sent (to targets, or replies as a target),
    // with their buffers, until they left.
    struct Outgoing {
        p2p::Request* request;
        std::vector<std::byte> data;
    };
    std::vector<Outgoing> outgoing_;
    int exclusive_holder_ = -1;
    int shared_holders_ = 0;
    std::deque<std::pair<int, LockType>> lock_queue_;
    std::vector<std::uint64_t> locks_granted_;

    p2p::Request* activity_ = nullptr;
    bool stopping_ = false;
    bool polls_memory_ = false;
};

// An epoch of one window (see the file comment).
struct Epoch {
    enum class Kind : std::uint8_t { fence, access, exposure, lock, lock_all };
    Kind kind = Kind::fence;
    std::vector<int> members;    // targets (access, locks), origins (exposure), all (fence)
    std::vector<int> member_of;  // window rank -> index in members, or -1
    LockType lock_type = LockType::shared;
    bool active = false;
    bool closed = false;
    bool completed = false;
    int error = 0;
    std::uint64_t fence_number = 0;  // fence: the count its closing writes
    // Per member: the access / exposure / lock number of this epoch, whether
    // that target granted it, operations recorded or in flight towards it,
    // and whether the closing signal left.
    std::vector<std::uint64_t> number;
    std::vector<std::uint8_t> granted;
    std::vector<std::uint32_t> pending;
    std::vector<std::uint8_t> signalled;
    std::deque<std::shared_ptr<Operation>> deferred;  // recorded before activation or grant

    Epoch(Kind kind_, const std::vector<int>& members_, int window_size) {
        reset(kind_, members_, window_size);
    }
    // As new, keeping the containers' memory.
    void reset(Kind kind_, const std::vector<int>& members_, int window_size);
    bool covers(int rank) const {
        return rank >= 0 && rank < static_cast<int>(member_of.size()) && member_of[rank] >= 0;
    }
    bool is_access() const { return kind != Kind::exposure; }
    // Nothing of it recorded or in flight.
    bool quiet() const {
        return deferred.empty() &&
               std::all_of(pending.begin(), pending.end(), [](std::uint32_t p) { return p == 0; });
    }
};

// One RMA operation of this process as origin.
struct Operation {
    Window::Request request;
    // Copies of the datatypes: the program may free them before the
    // operation completes.
    datatype::Type origin_type, result_type, target_type;
    Epoch* epoch = nullptr;  // kept alive by the window until it completes
    int member = -1;
    std::uint64_t age = 0;
    std::vector<p2p::Request*> transfers;
    std::uint32_t sequence = 0;     // of its message to the target, if it sent one
    std::vector<std::byte> packed;  // packed origin data, or fetched data to unpack
    bool unpack_result = false;
    bool done = false;
    int error = 0;
};

// The request a closing call returns waits for this activity.
class EpochCompletion final : public p2p::Activity {
  public:
    explicit EpochCompletion(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) {}
    bool advance(p2p::Engine&) override { return epoch_->completed; }
    int result() const override { return epoch_->error; }
    bool polls_memory() const override { return !epoch_->completed; }

  private:
    std::shared_ptr<Epoch> epoch_;
};

// MPI_Rput and its kin.
class OperationCompletion final : public p2p::Activity {
  public:
    explicit OperationCompletion(std::shared_ptr<Operation> op) : op_(std::move(op)) {}
    bool advance(p2p::Engine&) override { return op_->done; }
    int result() const override { return op_->error; }
    bool polls_memory() const override { return !op_->done; }

  private:
    std::shared_ptr<Operation> op_;
};

}  // namespace si::rma
