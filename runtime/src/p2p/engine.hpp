// The point-to-point engine of one rank: matching, the eager and RDMA-Read
// rendezvous protocols, and the progress engine that drives the transports.
//
// Every entry point takes the rank's ProgressLock itself, so the engine is
// safe under MPI_THREAD_MULTIPLE. Completion flags (Request::complete) are
// readable without the lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "p2p/activity.hpp"
#include "p2p/match_queue.hpp"
#include "p2p/progress_lock.hpp"
#include "p2p/request.hpp"
#include "p2p/stats.hpp"
#include "p2p/wire.hpp"
#include "transport/transport.hpp"
#include "wake/wake_word.hpp"

namespace si::p2p {

inline constexpr int kProcNull = -1;  // MPI_PROC_NULL (api/pt2pt.cpp checks)
inline constexpr int kAnySource = MatchSpec::kAnySource;
inline constexpr int kAnyTag = MatchSpec::kAnyTag;
inline constexpr int kNoPeer = -3;  // no world rank

// A communicator as this layer sees it.
struct CommRef {
    std::uint16_t context = 0;      // point-to-point context; collectives use their own
    int rank = 0;                   // my rank in the communicator
    std::span<const int> world_of;  // communicator rank -> world rank
    int size() const { return static_cast<int>(world_of.size()); }
};

enum class SendMode : std::uint8_t { standard, synchronous };

// How an arrival from a peer may take a posted receive that matches it.
enum class ReceiveClaim : std::uint8_t {
    taken,                // as usual
    delivered_by_sender,  // this peer claimed it and writes the data itself
    claimed_by_other,     // another sender claimed it: look further
};

// Where a sender may write a receive's data directly (p2p/direct.cpp).
struct DirectTarget {
    std::uint64_t address = 0;
    std::size_t capacity = 0;
    int peer = -1;   // world rank of the receiver
    int entry = -1;  // the observer's handle of the claimed receive
};

// What a receive delivered by its sender has come to.
struct Delivery {
    enum class State : std::uint8_t { pending, delivered, abandoned } state;
    std::size_t bytes = 0;  // delivered
};

// The one-sided signals (the RMA layer's grants, locks, fences) a window
// awaits, as bits world rank % 64 of the peers that send them: each of `any`
// lets recorded operations go, those of `all` only together (a fence).
struct AwaitedSignals {
    std::uint64_t any = 0;
    std::uint64_t all = 0;
    std::uint64_t peers() const { return any | all; }
    friend bool operator==(const AwaitedSignals&, const AwaitedSignals&) = default;
};

// What asynchronous progress (SmartInterrupts) is told about the rank's own
// MPI calls, and asked. Called with the progress lock held.
class ProgressObserver {
  public:
    // A receive waits in the posted-receive queue. `blocking`: its caller
    // waits for it at once (MPI_Recv, collectives) and needs no help.
    virtual void receive_posted(Request& request, bool blocking) = 0;
    // An arrival from world rank `peer` matches posted `request`; with peer
    // kNoPeer the rank takes it back itself (MPI_Cancel).
    virtual ReceiveClaim take_receive(Request& request, int peer) = 0;
    // A receive its sender delivers (ReceiveClaim::delivered_by_sender).
    virtual Delivery delivery_of(Request& request) = 0;
    // A blocking call found nothing to do (called again at each yield point):
    // this rank's core mostly waits, and may serve someone else's progress.
    // True if it handed its core to such work: the caller then yields at
    // each pass instead of spinning.
    virtual bool rank_blocked() = 0;
    // An RTS of this rank left for world rank `peer`.
    virtual void rts_sent(int peer) = 0;
    // A rendezvous send of this rank waits for its FIN: claims the receive its
    // RTS will match at `peer`, if that rank computes and has it posted.
    virtual std::optional<DirectTarget> claim_receive(int peer, std::uint64_t tuple) = 0;
    virtual void finish_claim(const DirectTarget& target, std::size_t written, bool ok) = 0;
    // A blocking call of the calling thread (MPI_Wait and its kin, a
    // blocking collective) begins to wait, for `lead` (may be null) among
    // others: the rank progresses by itself until wait_ends().
    virtual void wait_begins(Request* lead) = 0;
    virtual void wait_ends() = 0;

    // A window of this rank now awaits the signals `after` instead of
    // `before`. True if the caller must look at its counters again: a peer's
    // signal may have come before the await was published.
    virtual bool signals_awaited(AwaitedSignals before, AwaitedSignals after) { return false; }
    // This rank just sent world rank `peer` what its helper may act on: a
    // one-sided signal, through memory both map (`raise_signal`: raise its
    // flag for us) or by RDMA Writes of the counter and the flag about to
    // land; or a message to a receive that wakes for eager data. Rings the
    // peer's helper if it shares this host and sleeps.
    virtual void ring_peer(int peer, bool raise_signal) {}
    // Where a peer on another host raises its flag with an RDMA Write (64
    // bytes, byte world rank % 64), or null if nobody listens.
    virtual std::uint8_t* signal_flags() { return nullptr; }

  protected:
    ~ProgressObserver() = default;
};

class Engine final : private transport::Events {
  public:
    struct Options {
        std::size_t eager_limit = 16384;
        // How long wait() polls before it sleeps on the doorbell; negative: never.
        std::chrono::microseconds wait_spin{50};
        // SI_WAIT_SPIN_US=auto on a host with CPUs to spare: wait() polls
        // past wait_spin, without limit, while the threads of the host's
        // ranks that wait for their rank's progress lock (`lock_waiters`)
        // fit in those `spare_cpus`. Negative: no such policy.
        int spare_cpus = -1;
        const std::atomic<std::int32_t>* lock_waiters = nullptr;
        // A blocked rendezvous send may write its receive's data itself when
        // the observer lets it (direct.cpp).
        bool direct_write = true;
        // Non-contiguous rendezvous may stream (segments.hpp).
        bool stream_noncontiguous = true;
        // Background passes (progress_in_background) advance activities too
        // (SI_BACKGROUND_ROUNDS).
        bool background_rounds = true;
        // A pass in a signal handler reads an RTS whose read is a copy on
        // the caller's core too (SI_PEF_SHARED_MEMORY=copy).
        bool copy_in_signal_handler = false;
        // MPI_THREAD_MULTIPLE: other threads may wait in MPI while one
        // blocks, and must hear of what its passes complete. Otherwise a
        // blocked thread skips that (a full fence per completion).
        bool concurrent_threads = true;
        // The largest eager message to each world rank, indexed like
        // transport_of (each transport has its own); empty: eager_limit.
        std::vector<std::size_t> eager_limit_of{};
    };

    // transport_of[world rank] reaches that rank; the engine does not own them.
    Engine(int world_rank, std::vector<transport::Transport*> transport_of, ProgressLock& lock,
           Options options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Start operations; dest/source are communicator ranks (or kProcNull,
    // kAnySource), context selects point-to-point or collective traffic.
    // `hook`, if given, runs when the operation completes (request.hpp).
    // An eager message of at most eager_limit(peer) bytes to world rank `peer`
    // that leaves now if nothing waits ahead of it and the transport has
    // room, needing no request. False: nothing was sent (use isend).
    [[gnu::always_inline]] bool send_at_once(const void* buffer, std::size_t bytes, int peer,
                                             const Tuple& tuple) {
        ProgressGuard guard(lock_);
        return send_eager_at_once(buffer, bytes, peer, tuple);
    }
    // The same for an Activity's advance(), which runs with the lock held.
    bool send_at_once_locked(const void* buffer, std::size_t bytes, int peer, const Tuple& tuple) {
        return eager_to(peer, bytes) && send_eager_at_once(buffer, bytes, peer, tuple);
    }
    // `share_if_sent`: a standard send without a hook that leaves at once
    // (eager, nothing queued ahead of it) needs no request of its own: it
    // returns sent_at_once(), which release() ignores and the caller must
    // not write to.
    Request* isend(const void* buffer, std::size_t bytes, int dest, int tag, const CommRef& comm,
                   std::uint16_t context, SendMode mode,
                   std::unique_ptr<CompletionHook>&& hook = nullptr, bool share_if_sent = false);
    // `blocking`: the caller waits for the receive at once (MPI_Recv, blocking
    // collectives), so it is progressed by its own thread and no helper need
    // watch it: the ProgressObserver is not told.
    Request* irecv(void* buffer, std::size_t capacity, int source, int tag, const CommRef& comm,
                   std::uint16_t context, bool blocking = false,
                   std::unique_ptr<CompletionHook>&& hook = nullptr);
    // MPI_Recv: posts a blocking receive, waits for it and returns its
    // completion, under one hold of the lock; the request never leaves the
    // engine.
    Completion receive(void* buffer, std::size_t capacity, int source, int tag, const CommRef& comm,
                       std::uint16_t context);
    // Matches an unexpected message without receiving it.
    std::optional<Completion> iprobe(int source, int tag, const CommRef& comm,
                                     std::uint16_t context);
    // The same, blocking (the wait policy of wait()).
    Completion probe(int source, int tag, const CommRef& comm, std::uint16_t context);

    // A matched probe (MPI_Mprobe) takes the message out of the unexpected
    // queue: no other receive can match it, only imrecv. A message from
    // MPI_PROC_NULL is represented by kNoProcMessage.
    struct Unexpected;
    std::optional<std::pair<Unexpected*, Completion>> improbe(int source, int tag,
                                                              const CommRef& comm,
                                                              std::uint16_t context);
    std::pair<Unexpected*, Completion> mprobe(int source, int tag, const CommRef& comm,
                                              std::uint16_t context);
    // Receives a message improbe took; the message is consumed.
    Request* imrecv(Unexpected* message, void* buffer, std::size_t capacity,
                    std::unique_ptr<CompletionHook>&& hook = nullptr);
    static inline Unexpected* const kNoProcMessage = nullptr;

    // MPI_Cancel: takes back a receive no message has matched yet, or a send
    // still queued here, completing it as cancelled; asks the receiver of a
    // rendezvous send to drop its RTS if unmatched, which completes the send
    // as cancelled when the answer comes (otherwise the FIN completes it as
    // usual). Eager sends that left complete as sent.
    void cancel(Request* request);

    // Progresses until the request completes: polls, then yields, then
    // sleeps on the doorbell (Options::wait_spin).
    void wait(Request* request);
    // The same for every request (nullptr entries ignored), one after the
    // other as wait() would, under one hold of the lock.
    void wait_all(std::span<Request* const> requests);
    // The same until any of the requests (nullptr entries ignored, at least
    // one not) completes.
    void wait_any(std::span<Request* const> requests);
    // One progress pass if the request is not complete yet; true if it is.
    bool test(Request* request);
    // Returns a request to the pool; an active one is recycled when it completes.
    void release(Request* request) {
        if (request == &sent_at_once_) return;
        ProgressGuard guard(lock_);
        release_locked(request);
    }
    // The same for every request (nullptr entries ignored), under one hold of the lock.
    void release_all(std::span<Request* const> requests);
    // The complete request every send that left at once shares (isend's
    // share_if_sent); its index is RequestPool::kMaxRequests.
    const Request* sent_at_once() const { return &sent_at_once_; }

    // Starts a background operation (activity.hpp): the request completes,
    // with the activity's completion(), once advance() says it is over; the
    // hook (if any) runs then, as for a send or a receive. `kind` receive:
    // its status reports the completion's source, tag and count.
    Request* start(std::unique_ptr<Activity> activity,
                   Request::Kind kind = Request::Kind::send,
                   std::unique_ptr<CompletionHook>&& hook = nullptr);
    // The same for an activity the caller keeps alive until the request
    // completes.
    Request* start(Activity& activity);
    // Advances an activity from the calling thread until it is over, with
    // the wait policy of wait(): a blocking collective's schedule, which
    // needs no request and is not among the activities every pass advances
    // (other threads' passes leave it to its caller). It must not poll
    // memory (Activity::polls_memory): only doorbells end its sleeps.
    void run(Activity& activity);
    // isend, irecv and release for an Activity's advance(), which runs with
    // the lock held. Receives are never `blocking`: a helper may watch them.
    Request* isend_locked(const void* buffer, std::size_t bytes, int dest, int tag,
                          const CommRef& comm, std::uint16_t context, SendMode mode,
                          std::unique_ptr<CompletionHook>&& hook = nullptr);
    Request* irecv_locked(void* buffer, std::size_t capacity, int source, int tag,
                          const CommRef& comm, std::uint16_t context, bool blocking = false,
                          std::unique_ptr<CompletionHook>&& hook = nullptr,
                          bool wake_for_eager = false);
    void release_locked(Request* request);
    // A one-sided transfer for the RMA layer, with the lock held: writes
    // `bytes` from `local` to the peer's registered memory, or reads them
    // into `local`. The request completes when the transport says the data
    // arrived (error MPI_ERR_OTHER if it failed); `local` must stay valid
    // until then.
    enum class Direction : std::uint8_t { write, read };
    Request* rdma_locked(int world_peer, Direction direction, void* local, std::size_t bytes,
                         transport::RemoteKey remote);
    // Inside progress_in_background() (the progress or an interrupt thread).
    bool in_background_pass() const { return background_pass_; }
    // Counts something of a layer above (the RMA layer's Stats fields).
    void add_stat(std::uint64_t Stats::*field, std::uint64_t amount = 1) {
        stats_.*field += amount;
    }
    // The transport that reaches world rank `peer` (to register memory a
    // peer will reach, and to know its capabilities).
    transport::Transport& transport_to(int world_peer) { return *transport_of_[world_peer]; }
    // Every transport once.
    std::span<transport::Transport* const> transports() const { return transports_; }
    // Whether a rendezvous with world rank `peer` (kAnySource: any rank)
    // may stream (p2p/segments.hpp): the send packed while the receiver
    // reads it (CompletionHook::bytes_ready), the receive in pieces of the
    // user's memory (CompletionHook::segments). Options::stream_noncontiguous
    // and transports that read synchronously (Capabilities::vectored).
    bool streams_with(int world_peer) const;
    std::size_t eager_limit(int world_peer) const {
        return options_.eager_limit_of[static_cast<std::size_t>(world_peer)];
    }
    // The most bytes any rank may send eagerly (a receive from MPI_ANY_SOURCE).
    std::size_t smallest_eager_limit() const { return smallest_eager_limit_; }
    // Whether a standard send of `bytes` to world rank `world_peer` is eager:
    // a small message is under every transport's limit, which costs no
    // lookup on the message-rate path.
    bool eager_to(int world_peer, std::size_t bytes) const {
        return bytes <= smallest_eager_limit_ || bytes <= eager_limit(world_peer);
    }
    // Finds a live request by pool index (the API's handle), or nullptr;
    // without the lock (RequestPool::find).
    Request* find(std::uint32_t index) {
        if (index == RequestPool::kMaxRequests) return &sent_at_once_;
        return pool_.find(index);
    }

    // One pass over the transports; returns events handled.
    int progress();
    // The same, for a caller already holding the lock.
    int progress_locked();
    // The same, for a progress thread or an interrupt thread: what it
    // advances is counted as advanced in the background.
    int progress_in_background();
    // For a background thread about to sleep until the transports ring
    // (SI_PROGRESS=interrupt): arms them, so that what arrives from now on
    // rings, then makes that pass. `armed` false: a transport could not arm,
    // and the caller must not sleep long.
    int progress_before_sleep(bool& armed);
    // For a signal handler that interrupted the application thread outside
    // MPI and took the lock (SI_PROGRESS=pef): a pass over the signal_safe
    // transports that takes only what it can without allocating: eager data
    // and RTSs for posted receives without a CompletionHook (their RDMA Read
    // done, their FIN sent or set aside in room reserved for it) and FINs of
    // such sends. Anything else stays with the transport for the next pass
    // made inside MPI.
    int progress_in_signal_handler();
    // Whether a rendezvous read from world rank `peer` (kAnySource: from
    // some rank) would move while the thread that issued it computes on
    // (a NIC's RDMA Read): on a transport whose reads are copies on the
    // caller's core (shared memory), a pass in a signal handler leaves the
    // RTS to MPI, and watching the receive for one would only cost signals.
    // Always true with Options::copy_in_signal_handler.
    bool background_reads_pay(int world_peer) const;
    // A posted receive such a pass may complete (called with the lock held):
    // its buffer is registered now with the transport that pins memory
    // (Capabilities::pins_memory) and reaches its source, which the handler
    // could not do. Without it the pass leaves the receive's RTS for MPI.
    void prepare_for_signal_pass(Request& request);
    // What makes a background pass useful to the application, counted: a
    // request completed, an RDMA Read issued, a collective round started, a
    // recorded RMA operation started in the background. A thread woken for a
    // pass that changes none of them was woken in vain (an RTS whose receive
    // is not posted, a credit message, ...).
    std::uint64_t advances() const {
        return stats_.requests_completed + stats_.rdma_reads + stats_.collective_rounds +
               stats_.rma_started_in_background;
    }
    // An Activity started a round of a collective (Stats::collective_rounds).
    void count_collective_round() {
        ++stats_.collective_rounds;
        if (background_pass_) ++stats_.collective_rounds_in_background;
    }

    ProgressLock& lock() { return lock_; }
    // At most one; set before any receive is posted, cleared only when none waits.
    void set_progress_observer(ProgressObserver* observer);
    ProgressObserver* progress_observer() const { return observer_; }
    // Lets wait() sleep on `doorbell`, which every transport rings when it
    // delivers a message to this rank (see transport.hpp).
    void set_doorbell(std::atomic<std::uint32_t>& doorbell, wake::Backend& backend);
    // Called (with the progress lock held, never in a signal handler) when a
    // transport reports a peer unreachable, after the engine failed what
    // waited for it: receives, collectives and epochs that wait for the peer
    // would otherwise wait for ever, so the runtime ends the job there.
    void on_peer_unreachable(std::function<void(int peer)> handler) {
        peer_unreachable_ = std::move(handler);
    }
    // Whether a blocked call may sleep on the doorbell even while the host
    // has a CPU for each of its ranks' threads: false when it never sleeps
    // (no doorbell, Options::wait_spin negative) or polls as long as CPUs
    // suffice (Options::spare_cpus). Decided at MPI_Init from what every
    // rank of the host sees alike.
    bool sleeps_with_cpus_to_spare() const {
        return doorbell_ != nullptr && options_.wait_spin.count() >= 0 && options_.spare_cpus < 0;
    }
    const Stats& stats() const { return stats_; }
    std::size_t active_requests();

  private:
    // A message waiting for a free slot at its peer.
    struct Outgoing {
        int peer;
        std::uint64_t tuple;
        Request* request;  // eager or RTS: the send; nullptr for control messages
        ControlHeader control;
    };

    // transport::Events
    bool message_arrived(const transport::Arrival& arrival) override;
    void rdma_completed(std::uint64_t cookie, int error) override;
    void peer_failed(int peer) override;

    // An eager message sent now, if nothing waits ahead of it for `peer`
    // and the transport has room: isend's share_if_sent.
    bool send_eager_at_once(const void* buffer, std::size_t bytes, int peer, const Tuple& tuple);
    void start_send(Request* request);
    void send_or_queue(Outgoing item);
    transport::Result try_send(const Outgoing& item);
    void sent(const Outgoing& item, transport::Result result);
    void release_registration(Request* request);
    struct Running;
    Request* start(Running running, Request::Kind kind = Request::Kind::send,
                   std::unique_ptr<CompletionHook>&& hook = nullptr);
    void cancel_activity(Request* request);
    // Advances every activity a step; returns how many finished.
    int advance_activities();
    bool activities_poll_memory() const;
    bool arm_transports();
    int flush_queued_sends();
    // Blocks until done() holds (called with the lock held, after each
    // progress pass). maybe_done() says without the lock whether it may hold
    // (ProgressLock::yield_to_workers). `lead`, if any, is the request whose
    // protocol state shapes the policy: how long its transfer should take,
    // whether it may write its receive's data itself.
    template <typename Done, typename MaybeDone>
    void block_until(Done done, MaybeDone maybe_done, Request* lead);
    Request* new_receive(void* buffer, std::size_t capacity, bool from_proc_null,
                         std::unique_ptr<CompletionHook>&& hook);
    Unexpected* find_unexpected(int source, int tag, const CommRef& comm, std::uint16_t context);
    void receive_unexpected(Request* request, Unexpected* entry);
    // Unexpected entries come from and go back to spare_unexpected_.
    Unexpected* new_unexpected(const Tuple& tuple, int peer);
    void recycle(Unexpected* entry);
    void control_arrived(int peer, const ControlHeader& control);
    // Whether a pass in a signal handler can take an arrival without
    // allocating (progress_in_signal_handler).
    bool fin_safe_in_signal(const ControlHeader& control);
    bool receive_safe_in_signal(const Request* request, ReceiveClaim claim, MessageKind kind,
                                int peer, const std::byte* body) const;
    bool room_to_set_aside() const;
    void receive_eager(Request* request, const Tuple& tuple, const std::byte* data,
                       std::size_t bytes);
    void receive_rendezvous(Request* request, int peer, const Tuple& tuple, const std::byte* rts);
    // The rendezvous read of a streamed send or into a receive in pieces
    // (segments.cpp).
    transport::Result read_streamed(const Request& request, int peer, const RtsHeader& rts,
                                    std::size_t bytes);
    void finish_rendezvous(Request* request);
    void complete(Request* request);
    std::chrono::steady_clock::time_point expected_end(const Request* request) const;
    // Once per kProbePeriod (wait.cpp) of a blocked call: asks the transport
    // of every peer an unfinished request waits for to probe it.
    void probe_due(std::chrono::steady_clock::time_point& next);
    // True while `request` is being written by its sender, for at most
    // kLongestTransferSpin from the first call (`until` remembers it).
    bool awaiting_delivery(const Request* request,
                           std::optional<std::chrono::steady_clock::time_point>& until) const;
    // Direct delivery on shared memory (direct.cpp).
    bool try_direct_write(Request* send);
    void await_delivery(Request* request, int peer, const Tuple& tuple, const std::byte* rts);
    int finish_deliveries();

    int world_rank_;
    std::vector<transport::Transport*> transport_of_;
    std::vector<transport::Transport*> transports_;  // each once, shared memory first
    std::function<void(int)> peer_unreachable_;
    ProgressLock& lock_;
    Options options_;
    RequestPool pool_;
    Request sent_at_once_;
    // Bin keys: a receive's, unless it has a wildcard; an arrival's.
    struct PostedKey {
        std::optional<std::uint64_t> operator()(const Request& r) const { return r.match.key(); }
    };
    struct UnexpectedKey {
        std::optional<std::uint64_t> operator()(const Unexpected& u) const;  // unexpected.hpp
    };
    MatchQueue<Request, PostedKey> posted_;
    MatchQueue<Unexpected, UnexpectedKey> unexpected_;
    // Entries to reuse, so that a message that finds no receive allocates
    // nothing (an eager payload's buffer keeps its capacity).
    std::vector<Unexpected*> spare_unexpected_;
    struct Running {
        Request* request;
        Activity* activity;
        std::unique_ptr<Activity> owned;  // null if the caller keeps it
    };
    std::vector<Running> activities_;
    bool background_pass_ = false;  // inside progress_in_background()
    bool signal_pass_ = false;      // inside progress_in_signal_handler()
    // What a pass in a signal handler sends and the peer has no slot for:
    // capacity reserved up front, sent by the next pass inside MPI; an RTS
    // that would need more room waits for a pass inside MPI.
    static constexpr std::size_t kSetAsideInSignal = 32;
    std::vector<Outgoing> set_aside_;
    // Sends that found no free slot at their peer, per peer in order, so that
    // nothing behind them overtakes them.
    std::vector<std::deque<Outgoing>> queued_;
    // Per peer, the wire id of the send whose message went to it last (0 for
    // a control message): a direct write is only for the send whose RTS is
    // that message (direct.cpp).
    std::vector<std::uint64_t> last_sent_;
    // The least of Options::eager_limit_of: a receive from MPI_ANY_SOURCE of
    // more bytes may come as a rendezvous.
    std::size_t smallest_eager_limit_ = 0;
    std::vector<int> peers_with_queue_;
    Stats stats_;
    // What a rendezvous send has taken from its RTS to its FIN, per byte
    // (moving average): how long a sender waiting for a FIN may expect to.
    double rendezvous_ns_per_byte_ = 0;
    ProgressObserver* observer_ = nullptr;
    // Receives their senders are writing, with the RTS to fall back on.
    struct Delivering {
        Request* request;
        int peer;
        Tuple tuple;
        RtsHeader rts;
    };
    std::vector<Delivering> delivering_;
    std::atomic<std::uint32_t>* doorbell_ = nullptr;
    wake::Backend* wake_backend_ = nullptr;
};

}  // namespace si::p2p
