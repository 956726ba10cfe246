// A point-to-point operation in flight. Owned by the engine's RequestPool;
// the API layer refers to it by index (its MPI_Request handle).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "p2p/match_queue.hpp"
#include "p2p/tuple.hpp"
#include "transport/transport.hpp"

namespace si::p2p {

// Result of a completed receive (and of a send: error only).
struct Completion {
    std::int32_t source = 0;
    std::int32_t tag = 0;
    int error = 0;  // MPI error class, MPI_SUCCESS = 0
    std::size_t bytes = 0;
    bool cancelled = false;  // MPI_Cancel took the operation back
};

// Work the layer above hands over with an operation, run once when it
// completes: under the progress lock, in whichever of the rank's threads
// completes it, before the completion is visible. The API layer unpacks a
// receive of a non-contiguous datatype there and frees a send's packed copy.
class CompletionHook {
  public:
    virtual ~CompletionHook() = default;
    virtual void completed(const Completion& result) = 0;
    // A receive's room as pieces of the user's memory (p2p/segments.hpp)
    // rather than one run at Request::buffer, which is then null. Read once
    // when the receive is posted; the hook keeps the list alive.
    virtual std::span<const transport::Segment> segments() const { return {}; }
    // A send whose data is still being packed when the engine takes it:
    // the count of bytes packed so far, which the receiver follows
    // (p2p/segments.hpp). Null when all are. Read once at the send.
    virtual const std::atomic<std::uint64_t>* bytes_ready() const { return nullptr; }
    // A receive into a scratch copy that it unpacks when it completes: may
    // it instead unpack the data part by part, in order, from memory the
    // transport exposes (Transport::view)? Then it unpacks the next `bytes`
    // and answers true, and unpacks nothing more when it completes.
    virtual bool unpack_part(const std::byte* /*data*/, std::size_t /*bytes*/) { return false; }
};

// Aligned so that the fields a queue scan reads (up to `links`) share a line.
struct alignas(64) Request {
    enum class Kind : std::uint8_t { send, receive };
    enum class Phase : std::uint8_t {
        idle,          // in the pool, or acquired and not started yet
        queued,        // send waiting for a transport slot
        posted,        // receive in the posted-receive queue
        awaiting_fin,  // rendezvous send: RTS out, waiting for FIN
        reading,       // rendezvous receive: RDMA Read in flight
        running,       // an Activity's (Engine::start) in progress
        transferring,  // one-sided transfer (Engine::rdma_locked) in flight
        done,
    };

    Kind kind = Kind::send;
    Phase phase = Phase::idle;
    // Set last, with release order, once every other field is final; readers
    // that see true may read the rest without the progress lock.
    std::atomic<bool> complete{false};

    // Index and generation in one word: what the wire carries to name a request.
    std::uint64_t wire_id() const { return static_cast<std::uint64_t>(generation) << 32 | index; }
    // MPI_Request_free on an active request: the engine recycles it on completion.
    bool in_use = false;
    bool detached = false;
    bool synchronous = false;
    bool cancel_asked = false;  // rendezvous send: a cancel_send is on its way

    MatchSpec match{};          // receive
    MatchLinks<Request> links;  // in the posted-receive queue
    Tuple tuple{};              // send
    int peer = -1;              // world rank of the other side (a receive's once known)
    void* buffer = nullptr;     // receive buffer or send buffer
    std::span<const transport::Segment> segments;  // receive: instead of buffer
    const std::atomic<std::uint64_t>* ready = nullptr;  // send: CompletionHook::bytes_ready
    std::size_t bytes = 0;      // send size or receive capacity
    Completion result{};
    // Opaque to this layer: the API's communicator handle, for error reporting.
    std::int32_t owner = 0;
    std::unique_ptr<CompletionHook> hook;

    // Rendezvous receive: the sender's request, named in the RTS and the FIN.
    std::uint64_t remote_request = 0;
    // The buffer's registration with `registered_with`: a rendezvous send's,
    // held until the FIN; a receive's when a signal handler may read into it
    // (Engine::prepare_for_signal_pass), held until the request is completed
    // or released outside the handler. Then when the RTS left (base/clock.hpp).
    transport::Registration registration{};
    transport::Transport* registered_with = nullptr;
    std::uint64_t rts_sent_ns = 0;
    // Posted receive: its entry in the rank's interrupt request buffer, or -1;
    // and whether eager data for it is worth waking the rank for (a receive
    // that serves peers, as an RMA window's: lock requests, accumulates),
    // not only an RTS.
    int irb_entry = -1;
    bool wake_for_eager = false;

    std::uint32_t index = 0;       // position in the pool
    std::uint32_t generation = 0;  // bumped on reuse, so a stale FIN is detected
};

// Requests live in stable chunks and are found again by index.
// acquire() and release() need the progress lock; find() does not: a chunk,
// once published, stays where it is until the pool goes, so a completion call
// resolves its handles without taking the lock.
class RequestPool {
  public:
    // Indices stay below this (the API's handles have 20 bits for index + 1,
    // and keep the largest for the shared request of sends that left at once).
    static constexpr std::uint32_t kMaxRequests = (1u << 20) - 2;

    RequestPool();
    RequestPool(const RequestPool&) = delete;
    RequestPool& operator=(const RequestPool&) = delete;
    ~RequestPool();

    // Ends the process, saying why, when kMaxRequests are in use. Inline:
    // every message's request comes from here.
    Request* acquire(Request::Kind kind) {
        if (free_.empty()) [[unlikely]]
            grow();
        const std::uint32_t index = free_.back();
        free_.pop_back();
        Request* r = &chunks_[index / kChunk].load(std::memory_order_relaxed)[index % kChunk];
        r->kind = kind;
        r->phase = Request::Phase::idle;
        r->complete.store(false, std::memory_order_relaxed);
        r->in_use = true;
        r->detached = false;
        r->synchronous = false;
        r->cancel_asked = false;
        r->match = {};
        r->tuple = {};
        r->peer = -1;
        r->buffer = nullptr;
        r->segments = {};
        r->ready = nullptr;
        r->bytes = 0;
        r->result = {};
        r->remote_request = 0;
        r->registration = {};
        r->registered_with = nullptr;
        r->owner = 0;
        r->wake_for_eager = false;
        r->links = {};
        ++r->generation;
        ++in_use_;
        return r;
    }
    void release(Request* request) {
        request->hook.reset();
        request->phase = Request::Phase::idle;
        request->in_use = false;
        ++request->generation;
        free_.push_back(request->index);
        --in_use_;
    }
    // nullptr if index is out of range or not in use.
    Request* find(std::uint32_t index) const {
        if (index >= kMaxRequests) return nullptr;
        Request* chunk = chunks_[index / kChunk].load(std::memory_order_acquire);
        if (chunk == nullptr) return nullptr;
        Request* r = &chunk[index % kChunk];
        return r->in_use ? r : nullptr;
    }
    std::size_t in_use() const { return in_use_; }
    // Calls visit(Request*) for every request in use; visit may release it.
    template <typename Visit>
    void for_each_in_use(Visit visit) const {
        for (std::uint32_t c = 0; c < chunk_count_; ++c) {
            Request* chunk = chunks_[c].load(std::memory_order_relaxed);
            for (std::uint32_t i = 0; i < kChunk; ++i)
                if (chunk[i].in_use) visit(&chunk[i]);
        }
    }

  private:
    // A chunk more of free requests.
    void grow();

    static constexpr std::uint32_t kChunk = 1024;
    static constexpr std::uint32_t kMaxChunks = (kMaxRequests + kChunk - 1) / kChunk;
    std::array<std::atomic<Request*>, kMaxChunks> chunks_{};
    std::uint32_t chunk_count_ = 0;
    std::vector<std::uint32_t> free_;
    std::size_t in_use_ = 0;
};

}  // namespace si::p2p
