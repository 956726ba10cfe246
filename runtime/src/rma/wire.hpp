// Messages to a window's owner, on the window's own communicator: a header,
// the target layout (one block per run of bytes of the target datatype's
// item), then the data unless it follows in a message of its own.
#pragma once

#include <cstdint>

namespace si::rma {

enum class MessageType : std::uint8_t {
    put,  // non-contiguous target layout: the owner scatters the data
    get,  // ... the owner gathers and replies
    accumulate,
    get_accumulate,  // also MPI_Fetch_and_op; replies with the old contents
    compare_and_swap,
    lock,
    unlock,
};

struct MessageHeader {
    MessageType type;
    std::uint8_t lock_type;  // LockType, for lock and unlock
    std::uint16_t blocks_follow;  // 1: the TargetBlocks come first in the data message
    std::int32_t op;             // MPI_Op handle (predefined), or 0 for MPI_REPLACE
    std::int32_t base;           // MPI_Datatype of the target's elements
    std::uint32_t sequence;      // the origin's count of messages to this target
    std::uint32_t blocks;        // TargetBlocks that follow
    std::uint32_t no_op;         // MPI_NO_OP: reads only
    std::uint64_t displacement;  // bytes from the window's base
    std::uint64_t count;         // target items
    std::int64_t extent;         // of one target item (may be < 0)
    std::uint64_t data_bytes;    // packed data of the origin
    std::uint64_t data_inline;   // 1 if the data follows the blocks here
};

struct TargetBlock {
    std::int64_t offset;
    std::uint64_t length;
};

// The largest message the owner's posted receive takes; data that does not
// fit follows on its own tag, and so does a target layout that does not fit
// (then ahead of the data, in the same message).
inline constexpr std::size_t kMessageBytes = 16 * 1024;

// Tags on the window's communicator: 0 for messages to the owner, then per
// (origin, target) sequence number s a data tag and a reply tag, so that
// the owner's receive of one never takes the other.
inline constexpr int kMessageTag = 0;
inline int data_tag(std::uint32_t sequence) {
    return 1 + 2 * static_cast<int>(sequence % (1u << 26));
}
inline int reply_tag(std::uint32_t sequence) {
    return 2 + 2 * static_cast<int>(sequence % (1u << 26));
}

}  // namespace si::rma
