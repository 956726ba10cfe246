// The transport contract: RDMA semantics behind a dozen operations.
//
// A transport moves two kinds of traffic between ranks:
//  - messages: a two-element send (the 8-byte matching tuple, then the body)
//    into receive slots the receiver has pre-posted. The tuple lands in the
//    receiver's helper-visible ICB slot, the body in the slot's buffer;
//  - RDMA Read and Write on memory the owner registered.
// Transports never decide which peers they serve; the p2p layer does.
// After a message is delivered, the transport rings the receiver's doorbell
// (node::RankBlock::doorbell, a wake/wake_word.hpp word) if it sleeps. A
// transport whose deliveries cannot ring it (a NIC writes memory, it does not
// call futex_wake) arranges for that in arm(), called before the rank sleeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace si::transport {

enum class [[nodiscard]] Result : std::uint8_t {
    done,    // finished now
    posted,  // will be reported through Events::rdma_completed
    retry,   // no resources now (no receive slot at the peer); try again after progress
    failed,  // the peer is gone or the kernel refused; the transport logged why
};

// Answer of Transport::arm().
enum class [[nodiscard]] Armed : std::uint8_t {
    ok,    // the doorbell will ring when the next event arrives
    busy,  // could not arm; the caller must not sleep
};

struct Capabilities {
    std::string name;
    std::size_t max_body_bytes = 0;  // largest body of one message
    bool rdma_read = false;
    bool rdma_write = false;
    // Both ends read the same CLOCK_MONOTONIC (same host), so a timestamp
    // taken by the sender means something to the receiver.
    bool shared_clock = false;
    // rdma_write reaches any address of the peer's process, registered or
    // not (cross-memory attach), and messages_in_flight() knows its answer.
    bool direct_write = false;
    // progress_in_signal_handler() may run in a signal handler that
    // interrupted the application outside MPI (SI_PROGRESS=pef): it
    // allocates nothing and takes no lock the interrupted code may hold, and
    // an arrival the Events refuse stays where it is.
    bool signal_safe = false;
    // register_memory pins pages (system calls and allocations, so never in
    // a signal handler), and rdma_read pins its local buffer unless a
    // registration covers it: a read issued from progress_in_signal_handler()
    // must land in memory registered beforehand, and a registration cannot
    // be dropped there.
    bool pins_memory = false;
    // rdma_readv works: into pieces of local memory, finished before it
    // returns (done or failed), no registration needed.
    bool vectored = false;
    // rdma_read and rdma_write are copies the calling thread makes before
    // they return (cross-memory attach): nothing moves while it computes,
    // so a read issued from a thread that interrupted a computation only
    // takes that computation's core.
    bool copies_on_caller = false;
};

// What the owner of a memory range hands to peers so they can read or write it.
struct RemoteKey {
    std::uint64_t address = 0;
    std::uint64_t key = 0;
};

// A piece of memory in one process: a message of a non-contiguous datatype
// is a list of them (laid out as struct iovec on Linux).
struct Segment {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
};
// Most segments one rdma_readv takes: enough to amortise a system call, few
// enough for the stack of any thread that progresses.
inline constexpr std::size_t kMaxSegmentsPerCall = 64;

struct Registration {
    void* address = nullptr;
    std::size_t bytes = 0;
    std::uint64_t key = 0;
    void* handle = nullptr;  // transport's own bookkeeping
};

// A received message. Valid until Transport::repost(arrival).
struct Arrival {
    int peer = -1;             // world rank of the sender
    std::uint64_t tuple = 0;   // read from the ICB slot
    const std::byte* body = nullptr;
    std::size_t bytes = 0;
    std::uint64_t slot = 0;    // transport's handle of the receive slot
};

// A transport's own counter for SI_STATS.
struct Counter {
    const char* name;
    std::uint64_t value;
};

// Implemented by the p2p layer; called from Transport::progress.
class Events {
public:
    // False: not now (a pass in a signal handler that could only take the
    // message by allocating). The transport then keeps it, and everything
    // after it from the same peer, for a later progress call; only a
    // signal_safe transport is asked in such a pass.
    virtual bool message_arrived(const Arrival& arrival) = 0;
    virtual void rdma_completed(std::uint64_t cookie, int error) = 0;
    // The connection to a peer broke (it died, or its link did): what waits
    // on a message from it must fail rather than wait forever. Sends to it
    // return Result::failed from now on.
    virtual void peer_failed(int peer) = 0;

protected:
    ~Events() = default;
};

class Transport {
public:
    virtual ~Transport() = default;

    virtual const Capabilities& capabilities() const = 0;

    virtual Registration register_memory(const void* address, std::size_t bytes) = 0;
    virtual void deregister_memory(Registration& registration) = 0;

    // Two-element send: the tuple, then header + payload gathered into one body.
    // Copies everything before returning done; retry when the peer has no free slot.
    virtual Result send(int peer, std::uint64_t tuple, std::span<const std::byte> header,
                        std::span<const std::byte> payload) = 0;
    // Hands the receive slot of an arrival back to its sender; arrivals from one
    // peer are reposted in the order they arrived.
    virtual void repost(const Arrival& arrival) = 0;

    // One-sided transfers; the cookie comes back with rdma_completed when posted.
    virtual Result rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                             std::uint64_t cookie) = 0;
    virtual Result rdma_write(int peer, const void* local, std::size_t bytes, RemoteKey remote,
                              std::uint64_t cookie) = 0;

    // rdma_read into pieces of local memory, at most kMaxSegmentsPerCall
    // (Capabilities::vectored; a transport without it refuses): the bytes
    // they hold, from the peer's run at `remote`.
    virtual Result rdma_readv(int /*peer*/, std::span<const Segment> /*local*/,
                              RemoteKey /*remote*/) {
        return Result::failed;
    }

    // Staging: memory of this process that its peers of this transport read
    // as plain memory, not through a system call (shared memory: a part of
    // the host's segment). A sender that must copy its data anyway (packing
    // a non-contiguous type) copies into it, and registering a range of it
    // gives a key that makes the peer's reads memory copies. Null when the
    // transport has none or none is free; thread-safe, no progress lock.
    virtual std::byte* acquire_staging(std::size_t /*bytes*/) { return nullptr; }
    virtual void release_staging(std::byte* /*staging*/, std::size_t /*bytes*/) {}
    // The peer's `bytes` at `remote` as memory of this process, where its
    // registration allows (staging): the reader may copy from it in any
    // way, unpacking included. Null otherwise.
    virtual const std::byte* view(int /*peer*/, RemoteKey /*remote*/, std::size_t /*bytes*/) {
        return nullptr;
    }

    // Messages sent to `peer` that it has not handed back yet (meaningful
    // only with Capabilities::direct_write). A message may be matched, and
    // its receive long complete, before it is handed back.
    virtual std::size_t messages_in_flight(int peer) const = 0;
    // Whether `peer` has not yet taken the last message sent to it: it marks
    // a message taken, in a sequentially consistent store, before it matches
    // it (meaningful only with Capabilities::direct_write).
    virtual bool last_message_untaken(int peer) const = 0;

    // Delivers arrivals and completions; returns how many events it handled.
    virtual int progress(Events& events) = 0;
    // The same from a signal handler (only when Capabilities::signal_safe):
    // what cannot be handled there waits for the next progress().
    virtual int progress_in_signal_handler(Events& events) { return progress(events); }
    // What it counted, for SI_STATS at MPI_Finalize.
    virtual std::vector<Counter> counters() const { return {}; }
    // The rank has waited long on `peer`: check that it can still be reached,
    // so that a peer behind a dead link ends the wait (Events::peer_failed)
    // instead of leaving it for ever. A transport that learns of a dead peer
    // by other means does nothing.
    virtual void probe(int /*peer*/) {}
    // The rank is about to sleep on its doorbell: make the next event ring it.
    // Call after arming the doorbell and before the last progress pass of the
    // sleep protocol (wake/wake_word.hpp), so an event in between is seen by
    // that pass or rings the bell.
    virtual Armed arm() = 0;
};

}  // namespace si::transport
