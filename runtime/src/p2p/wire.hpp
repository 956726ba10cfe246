// Bodies of the protocol's own messages. Eager messages carry the user's data
// with no header at all: the tuple says everything a receive matches on.
#pragma once

#include <cstdint>

namespace si::p2p {

// Request-to-send of the RDMA-Read rendezvous: where the receiver reads from,
// and which send request its FIN releases.
struct RtsHeader {
    std::uint64_t bytes;
    std::uint64_t address;
    std::uint64_t key;
    std::uint64_t request;  // Request::wire_id() of the send
    std::uint64_t sent_ns;  // sender's CLOCK_MONOTONIC when the RTS left
    // While the sender still packs the data: the address of its count of
    // bytes packed so far (Request::ready), which the receiver reads behind
    // (p2p/segments.hpp); 0 when all are.
    std::uint64_t ready;
};

enum class ControlType : std::uint32_t {
    fin = 1,            // the receiver has read the data: the send completes
    cancel_send = 2,    // the sender asks to take back the RTS of `request`
    cancel_reply = 3,   // the receiver's answer: `cancelled` = 1 if it was unmatched
};

struct ControlHeader {
    ControlType type;
    std::uint32_t cancelled;  // cancel_reply
    std::uint64_t request;    // Request::wire_id() of the send
};

}  // namespace si::p2p
