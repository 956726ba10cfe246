#include "coll/intercomm.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "coll/channel.hpp"

namespace si::coll {

namespace {

// The rank of each group that speaks for it across.
constexpr int kLeader = 0;

// The steps of a composite collective. Every step runs whatever became of the
// ones before, so that no rank is left waiting; the first error, with its
// description, is the call's.
class Steps {
  public:
    explicit Steps(const InterContext& ctx) : local_(ctx.local), remote_(ctx.remote) {}
    const Context& local() const { return local_; }
    const Context& remote() const { return remote_; }
    void note(int result) {
        if (result == MPI_SUCCESS || error_ != MPI_SUCCESS) return;
        error_ = result;
        local_.detail = nullptr;
        remote_.detail = nullptr;
    }
    int result() const { return error_; }

  private:
    Context local_;
    Context remote_;
    int error_ = MPI_SUCCESS;
};

// The leaders send `mine` to each other and receive `theirs`; the other
// ranks do nothing.
int swap_leaders(const Context& remote, Tag tag, const void* mine, void* theirs,
                 std::size_t bytes) {
    Channel ch(remote, tag);
    if (ch.rank() == kLeader) ch.exchange(mine, bytes, kLeader, theirs, bytes, kLeader);
    return ch.result();
}

// In step i every rank r sends to remote rank (r + i) mod n and receives from
// remote rank (r - i) mod n, n being the larger group's size; a partner
// beyond the other group's size is skipped. Remote rank r + i receives from
// r in that same step, so each step's messages meet, and over n steps every
// pair of ranks has traded once in each direction.
int pairwise(const InterContext& ctx, Tag tag, Blocks send, Blocks recv) {
    Channel ch(ctx.remote, tag);
    const int remote = ch.size();
    const int n = std::max(ctx.local.comm.size(), remote);
    const int r = ch.rank();
    for (int i = 0; i < n; ++i) {
        const int to = (r + i) % n;
        const int from = (r - i + n) % n;
        p2p::Request* in = nullptr;
        p2p::Request* out = nullptr;
        if (from < remote) in = ch.irecv(recv[from].data, recv[from].bytes, from);
        if (to < remote) out = ch.isend(send[to].data, send[to].bytes, to);
        if (in != nullptr) ch.wait_recv(in, recv[from].bytes);
        if (out != nullptr) ch.wait_send(out);
    }
    return ch.result();
}

// The reduction of this group's sends, at its leader in `result` (which only
// the leader needs).
int reduce_locally(Steps& steps, const void* send, void* result, std::size_t count,
                   const datatype::Type& type, const datatype::Op& op) {
    const int rc = reduce(steps.local(), send, result, static_cast<int>(count), type, op, kLeader);
    steps.note(rc);
    return rc;
}

}  // namespace

int barrier(const InterContext& ctx) {
    Steps steps(ctx);
    // Once the leader has passed the local barrier its whole group has
    // arrived; once it has the other leader's message, the other group has too.
    steps.note(barrier(steps.local()));
    steps.note(swap_leaders(steps.remote(), Tag::barrier, nullptr, nullptr, 0));
    steps.note(bcast(steps.local(), nullptr, 0, kLeader));
    return steps.result();
}

int bcast(const InterContext& ctx, void* buffer, std::size_t bytes, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    Steps steps(ctx);
    {
        Channel ch(steps.remote(), Tag::bcast);
        if (root == MPI_ROOT) {
            ch.wait_send(ch.isend(buffer, bytes, kLeader));
            return ch.result();
        }
        if (ch.rank() == kLeader) ch.wait_recv(ch.irecv(buffer, bytes, root), bytes);
        steps.note(ch.result());
    }
    steps.note(bcast(steps.local(), buffer, bytes, kLeader));
    return steps.result();
}

int gather(const InterContext& ctx, const void* send, std::size_t send_bytes, Blocks recv,
           int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    Channel ch(ctx.remote, Tag::gather);
    if (root != MPI_ROOT) {
        ch.wait_send(ch.isend(send, send_bytes, root));
        return ch.result();
    }
    Window window(ch);
    for (int i = 0; i < ch.size(); ++i) window.recv(recv[i].data, recv[i].bytes, i);
    window.drain();
    return ch.result();
}

int scatter(const InterContext& ctx, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    Channel ch(ctx.remote, Tag::scatter);
    if (root != MPI_ROOT) {
        ch.wait_recv(ch.irecv(recv, recv_bytes, root), recv_bytes);
        return ch.result();
    }
    Window window(ch);
    for (int i = 0; i < ch.size(); ++i) window.send(send[i].data, send[i].bytes, i);
    window.drain();
    return ch.result();
}

int allgather(const InterContext& ctx, const void* send, std::size_t send_bytes, Blocks recv) {
    const std::vector<Block> same(recv.size(), Block{const_cast<void*>(send), send_bytes});
    return pairwise(ctx, Tag::allgather, same, recv);
}

int alltoall(const InterContext& ctx, Blocks send, Blocks recv) {
    return pairwise(ctx, Tag::alltoall, send, recv);
}

int reduce(const InterContext& ctx, const void* send, void* recv, int count,
           const datatype::Type& type, const datatype::Op& op, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    // Copies: MPI lets another thread free the handles meanwhile.
    const datatype::Type t = type;
    const datatype::Op o = op;
    const auto items = static_cast<std::size_t>(count);
    const std::size_t bytes = t.bytes(items);
    if (root == MPI_ROOT) {
        Channel ch(ctx.remote, Tag::reduce);
        ch.wait_recv(ch.irecv(recv, bytes, kLeader), bytes);
        return ch.result();
    }
    Steps steps(ctx);
    const bool leader = ctx.local.comm.rank == kLeader;
    Scratch partial(leader ? bytes : 0);
    reduce_locally(steps, send, partial.at(0), items, t, o);
    if (leader) {
        Channel ch(steps.remote(), Tag::reduce);
        ch.wait_send(ch.isend(partial.at(0), bytes, root));
        steps.note(ch.result());
    }
    return steps.result();
}

int allreduce(const InterContext& ctx, const void* send, void* recv, int count,
              const datatype::Type& type, const datatype::Op& op) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    const auto items = static_cast<std::size_t>(count);
    const std::size_t bytes = t.bytes(items);
    Steps steps(ctx);
    Scratch partial(ctx.local.comm.rank == kLeader ? bytes : 0);
    reduce_locally(steps, send, partial.at(0), items, t, o);
    steps.note(swap_leaders(steps.remote(), Tag::reduce, partial.at(0), recv, bytes));
    steps.note(bcast(steps.local(), recv, bytes, kLeader));
    return steps.result();
}

int reduce_scatter(const InterContext& ctx, const void* send, void* recv,
                   std::span<const int> counts, const datatype::Type& type,
                   const datatype::Op& op) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    const int r = ctx.local.comm.rank;
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    const std::size_t bytes = t.bytes(total);
    const std::size_t part = r == kLeader ? Scratch::round(bytes) : 0;
    Scratch scratch(2 * part);
    std::byte* partial = scratch.at(0);
    std::byte* theirs = scratch.at(part);
    Steps steps(ctx);
    reduce_locally(steps, send, partial, total, t, o);
    steps.note(swap_leaders(steps.remote(), Tag::reduce_scatter, partial, theirs, bytes));
    std::vector<Block> blocks;
    if (r == kLeader) {
        std::size_t offset = 0;
        for (const int c : counts) {
            const std::size_t block = t.bytes(static_cast<std::size_t>(c));
            blocks.push_back(Block{theirs + offset, block});
            offset += block;
        }
    }
    const std::size_t mine = t.bytes(static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
    steps.note(scatter(steps.local(), blocks, recv, mine, kLeader));
    return steps.result();
}

}  // namespace si::coll
