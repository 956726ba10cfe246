// Non-contiguous rendezvous that stream, on transports that read
// synchronously (Capabilities::vectored: shared memory):
//  - the sender sends its RTS before it packs, then packs a part at a time,
//    publishing how many bytes are ready (RtsHeader::ready); the receiver
//    reads behind it, so that the two copies run at once on two cores
//    instead of one after the other;
//  - a receive whose type has long runs gives the engine the pieces of the
//    user's memory (CompletionHook::segments) instead of a scratch copy:
//    eager data is copied from the receive slot into them, a rendezvous
//    read into them with vectored reads, which saves the unpack.
// The sender's pieces are never read in place: that costs the kernel a page
// walk per piece, and in measurements (README, "Derived datatypes") lost to
// packing. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "transport/transport.hpp"

namespace si::p2p {

using transport::Segment;

// A streamed send publishes its progress every this many bytes, and its
// receiver reads at least this many at a time until the end.
inline constexpr std::size_t kStreamPart = std::size_t{128} * 1024;

// Reads `bytes` from the peer's run at `remote` into `pieces`, from `skip`
// bytes into them, kMaxSegmentsPerCall pieces a call. Returns done or failed.
transport::Result read_into(transport::Transport& transport, int peer,
                            std::span<const Segment> pieces, std::size_t skip,
                            transport::RemoteKey remote, std::size_t bytes);

// Copies `bytes` of contiguous data into the first of `pieces`.
void scatter(std::span<const Segment> pieces, const std::byte* data, std::size_t bytes);

}  // namespace si::p2p
