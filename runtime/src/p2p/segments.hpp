// Receives in pieces: a receive of a non-contiguous datatype that the API
// layer did not give a scratch copy (api/packing.hpp) but described as a
// list of pieces of the user's memory. Eager data is copied from the
// receive slot into the pieces; a rendezvous reads the sender's run into
// them with the transport's vectored read (Capabilities::vectored), which
// saves the unpack. Nothing here allocates.
//
// Sends stay packed: reading the sender's pieces remotely costs the kernel
// a page walk per piece, and in measurements (README, "Derived datatypes")
// lost to packing at 4 KiB runs and gained nothing when the receive was in
// pieces too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "transport/transport.hpp"

namespace si::p2p {

using transport::Segment;

// Reads `bytes` from the peer's run at `remote` into the first of `pieces`,
// in calls of at most kMaxSegmentsPerCall. Returns done or failed.
transport::Result read_into(transport::Transport& transport, int peer,
                            std::span<const Segment> pieces, std::uint64_t remote,
                            std::size_t bytes);

// Copies `bytes` of contiguous data into the first of `pieces`.
void scatter(std::span<const Segment> pieces, const std::byte* data, std::size_t bytes);

}  // namespace si::p2p
