// Messages to a window's owner, on the window's own communicator: a header,
// the target layout (one block per run of bytes of the target datatype's
// item), then the data unless it follows in a message of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

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

// ---- the owner's reading of a message (wire.cpp, target.cpp) ------------------
// A peer's message is trusted no further than its bytes: the owner checks
// that a message holds what its header announces and that the operation
// stays inside the window before it reads or writes anything, and drops a
// message that does not (with an error naming why). `window_bytes` is the
// window's size, or nullopt for a dynamic window, whose displacements are
// addresses the origin checked against the attached memory.

// The first message of an operation: why it cannot be served (before the
// owner allocates room for what follows it), or an empty string.
std::string check_message(std::span<const std::byte> message,
                          std::optional<std::uint64_t> window_bytes);

// An accumulate, put, get or compare-and-swap the owner applies.
struct TargetAccess {
    MessageHeader header{};
    std::vector<TargetBlock> blocks;
    std::span<const std::byte> data;          // the origin's packed data
    const datatype::Op* op = nullptr;         // nullptr: put or MPI_REPLACE
    const datatype::Type* element = nullptr;  // the target's basic type, if sent
    std::uint64_t bytes = 0;                  // of the window it touches, over all items
};

// Decodes `layout` (header, then its TargetBlocks) and the data into `out`:
// why it cannot be applied, or an empty string.
std::string decode_access(std::span<const std::byte> layout, std::span<const std::byte> data,
                          std::optional<std::uint64_t> window_bytes, TargetAccess& out);

// Applies a decoded access to the window's memory at `base` (target.cpp);
// what the origin fetches is appended to `reply` if the operation replies.
void apply_access(std::byte* base, const TargetAccess& access, std::vector<std::byte>& reply);
bool replies(MessageType type);

// The largest message the owner's posted receive takes; data that does not
// fit follows on its own tag, and so does a target layout that does not fit
// (then ahead of the data, in the same message).
inline constexpr std::size_t kMessageBytes = std::size_t{16} * 1024;

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
