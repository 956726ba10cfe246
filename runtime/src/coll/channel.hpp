// What the collective schedules (schedule.hpp) share: the collectives' tags
// on the collective context, and the size checks of a receive and of a copy
// to oneself. Internal to the coll layer.
#pragma once

#include <cstddef>
#include <cstring>

#include "coll/collectives.hpp"

namespace si::coll {

// Tags of the collective context, one per operation, so a message can only
// ever match a receive of the same kind of operation.
enum class Tag : int {
    barrier = 1,
    bcast,
    reduce,
    reduce_result,  // non-commutative reduce: the result from rank 0 to the root
    gather,
    scatter,
    allgather,
    alltoall,
    scan,
    reduce_scatter,
    neighbor,  // the last: neighbourhood collectives add a label to it
};
static_assert(static_cast<int>(Tag::neighbor) + kMaxNeighborLabel < kFirstFreeTag);

// MPI_SUCCESS if a receive of the collective brought exactly `expected`
// bytes; otherwise the error class (MPI_ERR_TRUNCATE, MPI_ERR_COUNT, the
// transport's), described in `what`.
int check_receive(int rank, const p2p::Completion& result, std::size_t expected,
                  std::string& what);

// Copies min(capacity, bytes) bytes: a message to oneself. MPI_SUCCESS if
// they were the same, else MPI_ERR_TRUNCATE or MPI_ERR_COUNT, described.
int copy_to_self(int rank, void* to, std::size_t capacity, const void* from, std::size_t bytes,
                 std::string& what);

// memcpy that accepts null pointers when there is nothing to copy.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
    if (bytes > 0) std::memcpy(to, from, bytes);
}

}  // namespace si::coll
