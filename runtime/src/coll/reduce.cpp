// Reduce and allreduce.
#include <utility>

#include "coll/channel.hpp"
#include "coll/collectives.hpp"

namespace si::coll {

namespace {

// Binomial tree over ranks renumbered so that tree_root is 0. Rank v first
// combines the partial results of its children v + 1, v + 2, v + 4, ... (each
// covering the next block of renumbered ranks) into its own, then sends the
// total to v minus its lowest set bit. Partial results are always combined as
// (lower ranks) op (higher ranks), so with tree_root 0 the result is in rank
// order, which a non-commutative operator needs; a commutative one may use the
// real root as tree root and save the final hop.
int reduce_tree(const Context& ctx, const char* operation, const void* send, void* recv, int count,
                const datatype::Type& type, const datatype::Op& op, int root) {
    Channel ch(ctx, Tag::reduce, operation);
    const int n = ch.size();
    const int r = ch.rank();
    const std::size_t bytes = type.bytes(static_cast<std::size_t>(count));
    const void* input = send == MPI_IN_PLACE ? recv : send;
    if (n == 1) {
        if (send != MPI_IN_PLACE) copy_bytes(recv, send, bytes);
        return MPI_SUCCESS;
    }
    const int tree_root = op.commutative ? root : 0;
    const int v = (r - tree_root + n) % n;
    auto real = [n, tree_root](int vrank) { return (vrank + tree_root) % n; };

    // A leaf (odd v, or the last rank) has nothing to combine: it sends its
    // input as it is and needs no temporary.
    if ((v & 1) != 0 || v + 1 >= n) {
        ch.wait_send(ch.isend(input, bytes, real(v & (v - 1))));
    } else {
        const std::size_t part = Scratch::round(bytes);
        Scratch scratch(2 * part);
        std::byte* acc = scratch.at(0);
        std::byte* incoming = scratch.at(part);
        copy_bytes(acc, input, bytes);
        for (int mask = 1; mask < n; mask <<= 1) {
            if (v & mask) {
                ch.wait_send(ch.isend(acc, bytes, real(v - mask)));
                break;
            }
            if (v + mask >= n) continue;
            ch.wait_recv(ch.irecv(incoming, bytes, real(v + mask)), bytes);
            // acc covers renumbered ranks [v, v + mask), incoming the block
            // after it: incoming = acc op incoming keeps them in order.
            datatype::apply(op, type, acc, incoming, static_cast<std::size_t>(count));
            std::swap(acc, incoming);
        }
        if (v == 0 && r == root) copy_bytes(recv, acc, bytes);
        if (v == 0 && r != root) {
            ch.set_tag(Tag::reduce_result);
            ch.wait_send(ch.isend(acc, bytes, root));
        }
    }
    if (tree_root != root && r == root) {
        ch.set_tag(Tag::reduce_result);
        ch.wait_recv(ch.irecv(recv, bytes, tree_root), bytes);
    }
    return ch.result();
}

}  // namespace

int reduce(const Context& ctx, const void* send, void* recv, int count, const datatype::Type& type,
           const datatype::Op& op, int root) {
    // Work on copies: MPI lets another thread free the handles while this
    // call still uses them.
    const datatype::Type t = type;
    const datatype::Op o = op;
    return reduce_tree(ctx, "MPI_Reduce", send, recv, count, t, o, root);
}

// Reduce to rank 0, then broadcast: one rank computes the result and every
// rank receives its bytes, so floating-point results are bit-identical
// everywhere even though the order of combination is not the sequential one.
int allreduce(const Context& ctx, const void* send, void* recv, int count,
              const datatype::Type& type, const datatype::Op& op) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    const int reduced = reduce_tree(ctx, "MPI_Allreduce", send, recv, count, t, o, 0);
    // Keep the first error's description.
    const Context second{ctx.engine, ctx.comm, ctx.context,
                         reduced == MPI_SUCCESS ? ctx.detail : nullptr};
    const int broadcast =
        bcast_binomial(second, "MPI_Allreduce", recv, t.bytes(static_cast<std::size_t>(count)), 0);
    return reduced != MPI_SUCCESS ? reduced : broadcast;
}

}  // namespace si::coll
