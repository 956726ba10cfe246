// One rank's part in one collective call: posts sends and receives on the
// collective context under the operation's tag, waits for them, and keeps the
// first error; for the neighbourhood collectives, the only ones that are not
// schedules (schedule.hpp). Also the collectives' tags and the size checks
// both share. Internal to the coll layer.
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

class Channel {
  public:
    Channel(const Context& ctx, Tag tag) : ctx_(ctx), tag_(ctx.tag_base + static_cast<int>(tag)) {}
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    int rank() const { return ctx_.comm.rank; }
    int size() const { return ctx_.comm.size(); }

    // `label` is added to the tag (neighbourhood collectives).
    p2p::Request* isend(const void* buffer, std::size_t bytes, int dest, int label = 0) {
        return ctx_.engine.isend(buffer, bytes, dest, tag_ + label, ctx_.comm,
                                 ctx_.send_context.value_or(ctx_.context),
                                 p2p::SendMode::standard);
    }
    p2p::Request* irecv(void* buffer, std::size_t bytes, int source, int label = 0) {
        return ctx_.engine.irecv(buffer, bytes, source, tag_ + label, ctx_.comm, ctx_.context,
                                 /*blocking=*/true);
    }

    // Wait for a request, note its error, and give it back to the engine.
    void wait_send(p2p::Request* request);
    // The same for a receive, which must have brought exactly `expected` bytes.
    void wait_recv(p2p::Request* request, std::size_t expected);

    // Send to dest and receive from source at the same time.
    void exchange(const void* send, std::size_t send_bytes, int dest, void* recv,
                  std::size_t recv_bytes, int source) {
        p2p::Request* r = irecv(recv, recv_bytes, source);
        p2p::Request* s = isend(send, send_bytes, dest);
        wait_recv(r, recv_bytes);
        wait_send(s);
    }

    // A local copy that stands for a message to oneself, held to the same size rule.
    void copy(void* to, std::size_t capacity, const void* from, std::size_t bytes);

    // Records an error found by the algorithm itself (first one wins).
    void fail(int error, const std::string& what);

    // MPI_SUCCESS or the first error seen.
    int result() const { return error_; }

    // Later messages of this call use another tag.
    void set_tag(Tag tag) { tag_ = ctx_.tag_base + static_cast<int>(tag); }

  private:
    const Context& ctx_;
    int tag_;
    int error_ = MPI_SUCCESS;
};

// memcpy that accepts null pointers when there is nothing to copy.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
    if (bytes > 0) std::memcpy(to, from, bytes);
}

}  // namespace si::coll
