// A large RDMA Read on shared memory, copied by both ends when both are
// inside MPI: the reader offers the transfer in chunks, and the owner of the
// data, if a progress pass of its own meets the offer (it waits for its
// send's FIN, say), claims chunks and writes them into the reader's buffer
// (process_vm_writev) while the reader reads others (process_vm_readv). One
// core copying a 1 MiB message runs at about half the speed of two.
//
// Protocol, per reader (one offer at a time: a read is finished before
// rdma_read returns, and one thread progresses a rank at a time):
//   reader: fills the offer's addresses and sizes, zeroes `done`, then
//           publishes `claim` = (generation << 32 | 0) with release order;
//           counts the offer in the owner's `pending` (a read-modify-write),
//           then rings the owner's doorbell if it sleeps. It claims chunks
//           with fetch_add on `claim` until none is left, copying each; the
//           chunks it did not take the owner took, and it waits until `done`
//           counts them all; then it withdraws the count from `pending`.
//   owner:  while `pending` is not 0, looks at every reader's offer naming
//           it: loads `claim` (acquire), reads the offer, and claims chunk k
//           with a compare-and-swap from the value it loaded, so that a
//           claim can only land on the offer it read (a new offer changes the
//           generation; the reader's own claims change the chunk). It copies
//           the chunk, then adds 1 to `done` (release), or sets `failed` if
//           the copy failed, in which case the reader copies the whole read
//           again itself.
// The reader does not touch the offer again until `done` counts every chunk
// the owner claimed, so an offer's fields never change under an owner that
// holds a claim on it.
#pragma once

#include <atomic>
#include <cstdint>

namespace si::transport::shm {

// The fields are atomics because an owner may read them while the reader
// rewrites them for its next offer; its claim then fails, and what it read is
// dropped. Relaxed order suffices for them: `claim` orders everything.
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
};

constexpr std::uint32_t chunk_of(std::uint64_t claim) { return static_cast<std::uint32_t>(claim); }
constexpr std::uint64_t generation_of(std::uint64_t claim) { return claim >> 32; }

// Reads smaller than this are copied by the reader alone: below it, a copy
// takes little longer than the offer's round trip of cache lines.
inline constexpr std::uint64_t kSplitReadFrom = std::uint64_t{128} * 1024;
// Chunks are at least this large, and a read has at most kMaxChunks of them.
inline constexpr std::uint64_t kMinChunkBytes = std::uint64_t{64} * 1024;
inline constexpr std::uint64_t kMaxChunks = 32;

constexpr std::uint64_t chunk_bytes_for(std::uint64_t bytes) {
    const std::uint64_t even = (bytes + kMaxChunks - 1) / kMaxChunks;
    return even > kMinChunkBytes ? even : kMinChunkBytes;
}

}  // namespace si::transport::shm
