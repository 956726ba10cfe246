// One rank's part in one collective call: posts sends and receives on the
// collective context under the operation's tag, waits for them, and keeps the
// first error. Internal to the coll layer.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>

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

// Requests of one call in flight, at most kMaxOutstanding: adding one more
// first waits for the oldest. Destruction waits for the rest.
class Window {
  public:
    explicit Window(Channel& channel) : channel_(channel) {}
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;
    ~Window() { drain(); }

    void send(const void* buffer, std::size_t bytes, int dest) {
        make_room();
        push(Entry{channel_.isend(buffer, bytes, dest), 0, false});
    }
    void recv(void* buffer, std::size_t bytes, int source) {
        make_room();
        push(Entry{channel_.irecv(buffer, bytes, source), bytes, true});
    }
    void drain() {
        while (count_ > 0) wait_oldest();
    }

  private:
    struct Entry {
        p2p::Request* request;
        std::size_t expected;
        bool receive;
    };
    void make_room() {
        if (count_ == kMaxOutstanding) wait_oldest();
    }
    void push(Entry entry) {
        entries_[(first_ + count_) % kMaxOutstanding] = entry;
        ++count_;
    }
    void wait_oldest() {
        const Entry entry = entries_[first_];
        first_ = (first_ + 1) % kMaxOutstanding;
        --count_;
        if (entry.receive)
            channel_.wait_recv(entry.request, entry.expected);
        else
            channel_.wait_send(entry.request);
    }

    Channel& channel_;
    std::array<Entry, kMaxOutstanding> entries_{};
    int first_ = 0;
    int count_ = 0;
};


// Temporary bytes for one call, in one allocation; parts start on cache-line
// boundaries so that typed kernels may work on them.
class Scratch {
  public:
    static constexpr std::size_t kAlign = 64;
    static std::size_t round(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

    explicit Scratch(std::size_t bytes)
        : data_(bytes > 0 ? new (std::align_val_t{kAlign}) std::byte[bytes] : nullptr) {}

    std::byte* at(std::size_t offset) const { return data_.get() + offset; }

  private:
    struct Free {
        void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{kAlign}); }
    };
    std::unique_ptr<std::byte[], Free> data_;
};

// memcpy that accepts null pointers when there is nothing to copy.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
    if (bytes > 0) std::memcpy(to, from, bytes);
}

}  // namespace si::coll
