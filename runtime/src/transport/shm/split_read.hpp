// A large RDMA Read on shared memory, copied by both ends when both are
// inside MPI: the reader offers the transfer in chunks, and the owner of the
// data, if a progress pass of its own meets the offer (it waits for its
// send's FIN, say), claims chunks and writes them into the reader's buffer
// (process_vm_writev) while the reader reads others (process_vm_readv). One
// core copying a 1 MiB message runs at about half the speed of two.
//
// Protocol, per reader (one offer at a time: a read is finished before
// rdma_read returns, and one thread progresses a rank at a time):
//   reader: closes the offer (below), fills its addresses and sizes, zeroes
//           `done`, then publishes `claim` = (generation << 32 | 0) with
//           release order;
//           counts the offer in the owner's `pending` (a read-modify-write),
//           then rings the owner's doorbell if it sleeps. It claims chunks
//           with fetch_add on `claim` until none is left, copying each; the
//           chunks it did not take the owner took, and it waits until `done`
//           counts them all; then it withdraws the count from `pending`.
//   owner:  while `pending` is not 0, looks at every reader's offer naming
//           it: loads `claim` (acquire), reads the offer, and claims chunk k
//           with a compare-and-swap from the value it loaded, so that a
//           claim can only land on the offer it read: the reader closes an
//           offer (a claim no chunk of which can be taken) before it
//           rewrites it for the next read, storing the fields with release
//           order, so an owner that read (acquire) any rewritten field finds
//           `claim` changed; the reader's own claims change the chunk. It
//           copies the chunk, then adds 1 to `done` (release), or sets
//           `failed` if the copy failed, in which case the reader copies the
//           whole read again itself.
// The reader does not touch the offer again until `done` counts every chunk
// the owner claimed, so an offer's fields never change under an owner that
// holds a claim on it. (Without the closing, an owner that loaded `claim`
// with every chunk taken and then read the next offer's larger size claimed
// a chunk past the old end before the reader published: the protocol test
// counted 64 KiB twice.)
#pragma once

#include <atomic>
#include <cstdint>

namespace si::transport::shm {

// The fields are atomics because an owner may read them while the reader
// rewrites them for its next offer; its claim then fails, and what it read is
// dropped.
struct alignas(64) ReadOffer {
    std::atomic<std::uint64_t> claim;           // generation << 32 | next chunk
    std::atomic<std::uint64_t> reader_address;  // where the bytes go, in the reader's memory
    std::atomic<std::uint64_t> owner_address;   // where they are, in the owner's memory
    std::atomic<std::uint64_t> bytes;
    std::atomic<std::uint64_t> chunk_bytes;
    std::atomic<std::int32_t> owner;  // local index
    // Written by the owner only.
    alignas(64) std::atomic<std::uint64_t> done;
    std::atomic<std::uint32_t> failed;
};

// Offers naming one rank as owner, so that its progress passes look at the
// offers only when there are some.
struct alignas(64) OwnerLine {
    std::atomic<std::uint32_t> pending;
    // Not 0 while the rank makes a large read of its own: a peer that reads
    // from it then copies alone, since each would only help the other in
    // turn (osu_bibw 4 MiB: 30 GB/s with no split, 24 offering each other).
    // A hint: two reads that start together may still offer each other.
    std::atomic<std::uint32_t> reading;
};

constexpr std::uint32_t chunk_of(std::uint64_t claim) {
    return static_cast<std::uint32_t>(claim);
}
// The chunk of an offer being rewritten: none can be claimed.
inline constexpr std::uint32_t kClosed = 0xFFFF'FFFF;
constexpr std::uint64_t generation_of(std::uint64_t claim) {
    return claim >> 32;
}

// Reads smaller than this (SI_SHM_SPLIT_READ_BYTES' default) are copied by
// the reader alone: below it, a copy takes little longer than the offer's
// round trip of cache lines.
inline constexpr std::uint64_t kSplitReadFrom = std::uint64_t{128} * 1024;
// Chunks are at least this large, and a read has at most kMaxChunks of them.
inline constexpr std::uint64_t kMinChunkBytes = std::uint64_t{64} * 1024;
inline constexpr std::uint64_t kMaxChunks = 32;

constexpr std::uint64_t chunk_bytes_for(std::uint64_t bytes) {
    const std::uint64_t even = (bytes + kMaxChunks - 1) / kMaxChunks;
    return even > kMinChunkBytes ? even : kMinChunkBytes;
}

// The protocol above, apart from how bytes move (the transport copies with
// cross-memory attach; a test with threads and memcpy). A copy takes the
// offset and length of a chunk and returns 0 or an errno value.

// Reader: publishes the offer of `bytes` from local rank `owner`.
inline void publish_offer(ReadOffer& offer, std::uint64_t generation, std::uint64_t reader_address,
                          std::uint64_t owner_address, std::uint64_t bytes, int owner) {
    // Closed first: an owner that reads one of the fields below (acquire:
    // they are stored with release order) sees the closing too, and its
    // claim with the `claim` it read before fails.
    offer.claim.store(generation << 32 | kClosed, std::memory_order_relaxed);
    offer.reader_address.store(reader_address, std::memory_order_release);
    offer.owner_address.store(owner_address, std::memory_order_release);
    offer.bytes.store(bytes, std::memory_order_release);
    offer.chunk_bytes.store(chunk_bytes_for(bytes), std::memory_order_release);
    offer.owner.store(owner, std::memory_order_release);
    offer.done.store(0, std::memory_order_relaxed);
    offer.failed.store(0, std::memory_order_relaxed);
    offer.claim.store(generation << 32, std::memory_order_release);
}

// What the reader took of its offer.
struct ReaderShare {
    std::uint64_t chunks = 0;
    std::uint64_t bytes = 0;
    int error = 0;  // of its first failed copy
};

// Reader: claims chunks until none is left, copying each.
template <typename Copy>
ReaderShare take_chunks(ReadOffer& offer, Copy copy) {
    const std::uint64_t bytes = offer.bytes.load(std::memory_order_relaxed);
    const std::uint64_t chunk = offer.chunk_bytes.load(std::memory_order_relaxed);
    ReaderShare share;
    for (;;) {
        const std::uint64_t at =
            chunk_of(offer.claim.fetch_add(1, std::memory_order_acq_rel)) * chunk;
        if (at >= bytes) return share;
        const std::uint64_t n = bytes - at < chunk ? bytes - at : chunk;
        ++share.chunks;
        share.bytes += n;
        if (share.error == 0) share.error = copy(at, n);
    }
}

// Reader, once take_chunks returned: whether the owner finished every chunk
// it claimed (copied, or failed: then `failed` is set).
inline bool owner_finished(const ReadOffer& offer, const ReaderShare& mine) {
    const std::uint64_t bytes = offer.bytes.load(std::memory_order_relaxed);
    const std::uint64_t chunk = offer.chunk_bytes.load(std::memory_order_relaxed);
    return offer.done.load(std::memory_order_acquire) == (bytes + chunk - 1) / chunk - mine.chunks;
}

// Owner `me`: claims and copies chunks of the offer while it names `me` and
// has some left; returns the bytes it copied.
template <typename Copy>
std::uint64_t help_offer(ReadOffer& offer, int me, Copy copy) {
    std::uint64_t copied = 0;
    std::uint64_t claim = offer.claim.load(std::memory_order_acquire);
    for (;;) {
        // Read before the claim: a successful compare-and-swap from `claim`
        // proves they belong to the offer it claims on.
        // A field written after the reader closed the offer makes the claim
        // below fail (see publish_offer).
        const int owner = offer.owner.load(std::memory_order_acquire);
        const std::uint64_t bytes = offer.bytes.load(std::memory_order_acquire);
        const std::uint64_t chunk = offer.chunk_bytes.load(std::memory_order_acquire);
        const std::uint64_t to = offer.reader_address.load(std::memory_order_acquire);
        const std::uint64_t from = offer.owner_address.load(std::memory_order_acquire);
        if (chunk_of(claim) == kClosed || owner != me || chunk == 0) return copied;
        const std::uint64_t at = chunk_of(claim) * chunk;
        if (at >= bytes) return copied;
        if (!offer.claim.compare_exchange_weak(claim, claim + 1, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
            continue;
        const std::uint64_t n = bytes - at < chunk ? bytes - at : chunk;
        if (copy(to + at, from + at, n) != 0) offer.failed.store(1, std::memory_order_relaxed);
        copied += n;
        offer.done.fetch_add(1, std::memory_order_release);
        claim = offer.claim.load(std::memory_order_acquire);
    }
}

}  // namespace si::transport::shm
