// The reductions: reduce, allreduce, reduce-scatter and scan.
#include <numeric>
#include <utility>
#include <vector>

#include "coll/channel.hpp"
#include "coll/collectives.hpp"

namespace si::coll {

namespace {

// The context for the second step of a composite collective: it reports its
// error only if the first step had none, so the first error's description wins.
Context after(const Context& ctx, int first_result) {
    Context next = ctx;
    if (first_result != MPI_SUCCESS) next.detail = nullptr;
    return next;
}

// Binomial tree over ranks renumbered so that tree_root is 0. Rank v first
// combines the partial results of its children v + 1, v + 2, v + 4, ... (each
// covering the next block of renumbered ranks) into its own, then sends the
// total to v minus its lowest set bit. Partial results are always combined as
// (lower ranks) op (higher ranks), so with tree_root 0 the result is in rank
// order, which a non-commutative operator needs; a commutative one may use the
// real root as tree root and save the final hop.
int reduce_tree(const Context& ctx, const void* send, void* recv, std::size_t count,
                const datatype::Type& type, const datatype::Op& op, int root) {
    Channel ch(ctx, Tag::reduce);
    const int n = ch.size();
    const int r = ch.rank();
    const std::size_t bytes = type.bytes(count);
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
            datatype::apply(op, type, acc, incoming, count);
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

// Messages from which a commutative reduction spreads the work over every
// rank (pairwise reduce-scatter, and allreduce as reduce-scatter then
// allgather) instead of funnelling it through one rank. Below it, the tree's
// log2(n) steps beat the n - 1 of pairwise exchange.
constexpr std::size_t kSpreadBytes = 64 * 1024;

// Pairwise exchange for a commutative operator: in step k every rank sends
// rank (r + k)'s block of its input to that rank and receives its own block of
// rank (r - k)'s input, which it combines into its partial result. Each rank
// reduces only its own block, and each block crosses once per rank. The
// caller's block of the result goes to `result` once every other block of the
// input has been read, so `result` may lie in the input (MPI_IN_PLACE).
int reduce_scatter_pairwise(const Context& ctx, const std::byte* input, void* result,
                            std::span<const std::size_t> counts, const datatype::Type& type,
                            const datatype::Op& op) {
    Channel ch(ctx, Tag::reduce_scatter);
    const int n = ch.size();
    const int r = ch.rank();
    std::vector<std::size_t> offset(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i)
        offset[i + 1] = offset[i] + type.bytes(counts[i]);
    const auto mine = static_cast<std::size_t>(r);
    const std::size_t bytes = type.bytes(counts[mine]);
    const std::size_t part = Scratch::round(bytes);
    Scratch scratch(2 * part);
    std::byte* acc = scratch.at(0);
    std::byte* incoming = scratch.at(part);
    copy_bytes(acc, input + offset[mine], bytes);
    for (int k = 1; k < n; ++k) {
        const auto to = static_cast<std::size_t>((r + k) % n);
        const int from = (r - k + n) % n;
        ch.exchange(input + offset[to], offset[to + 1] - offset[to], static_cast<int>(to), incoming,
                    bytes, from);
        datatype::apply(op, type, incoming, acc, counts[mine]);
    }
    copy_bytes(result, acc, bytes);
    return ch.result();
}

// count items in n nearly equal blocks, the first count % n one item larger.
std::vector<std::size_t> even_blocks(std::size_t count, int n) {
    const auto ranks = static_cast<std::size_t>(n);
    std::vector<std::size_t> counts(ranks, count / ranks);
    for (std::size_t i = 0; i < count % ranks; ++i) ++counts[i];
    return counts;
}

}  // namespace

int reduce(const Context& ctx, const void* send, void* recv, int count, const datatype::Type& type,
           const datatype::Op& op, int root) {
    // Work on copies: MPI lets another thread free the handles while this
    // call still uses them.
    const datatype::Type t = type;
    const datatype::Op o = op;
    return reduce_tree(ctx, send, recv, static_cast<std::size_t>(count), t, o, root);
}

// Every element is computed by one rank and copied to the others, so
// floating-point results are bit-identical everywhere even though the order
// of combination is not the sequential one. Small messages and
// non-commutative operators: reduce to rank 0, then broadcast. Large ones
// with a commutative operator: pairwise reduce-scatter of n blocks, then a
// ring allgather, so that every rank reduces and sends only its share.
int allreduce(const Context& ctx, const void* send, void* recv, int count,
              const datatype::Type& type, const datatype::Op& op) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    const auto items = static_cast<std::size_t>(count);
    const int n = ctx.comm.size();
    if (o.commutative && n > 1 && t.bytes(items) >= kSpreadBytes &&
        items >= static_cast<std::size_t>(n)) {
        const std::vector<std::size_t> counts = even_blocks(items, n);
        auto* out = static_cast<std::byte*>(recv);
        const auto* input = static_cast<const std::byte*>(send == MPI_IN_PLACE ? recv : send);
        std::vector<Block> blocks;
        std::size_t offset = 0;
        for (const std::size_t c : counts) {
            blocks.push_back(Block{out + offset, t.bytes(c)});
            offset += t.bytes(c);
        }
        const int reduced = reduce_scatter_pairwise(
            ctx, input, blocks[static_cast<std::size_t>(ctx.comm.rank)].data, counts, t, o);
        const int gathered = allgather(after(ctx, reduced), MPI_IN_PLACE, 0, blocks);
        return reduced != MPI_SUCCESS ? reduced : gathered;
    }
    const int reduced = reduce_tree(ctx, send, recv, items, t, o, 0);
    const int broadcast = bcast(after(ctx, reduced), recv, t.bytes(items), 0);
    return reduced != MPI_SUCCESS ? reduced : broadcast;
}

// Large messages with a commutative operator: pairwise exchange, each rank
// reducing its own block. Otherwise: reduce the whole vector to rank 0 (in
// rank order for a non-commutative operator), then scatter its blocks.
int reduce_scatter(const Context& ctx, const void* send, void* recv, std::span<const int> counts,
                   const datatype::Type& type, const datatype::Op& op) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    const int r = ctx.comm.rank;
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    if (o.commutative && ctx.comm.size() > 1 && t.bytes(total) >= kSpreadBytes) {
        const std::vector<std::size_t> items(counts.begin(), counts.end());
        return reduce_scatter_pairwise(ctx, static_cast<const std::byte*>(send), recv, items, t, o);
    }
    Scratch result(r == 0 ? t.bytes(total) : 0);
    const int reduced = reduce_tree(ctx, send, result.at(0), total, t, o, 0);
    std::vector<Block> blocks;
    if (r == 0) {
        blocks.reserve(counts.size());
        std::size_t offset = 0;
        for (const int c : counts) {
            const std::size_t bytes = t.bytes(static_cast<std::size_t>(c));
            blocks.push_back(Block{result.at(offset), bytes});
            offset += bytes;
        }
    }
    const std::size_t mine = t.bytes(static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
    const int scattered = scatter(after(ctx, reduced), blocks, recv, mine, 0);
    return reduced != MPI_SUCCESS ? reduced : scattered;
}

// Recursive doubling: in round k a rank trades, with the rank whose number
// differs in bit k, the reduction of its aligned group of 2^k ranks (partial).
// What comes from a lower group is everything just before this rank's own
// prefix so far, so it goes on the left of both the prefix and the partial;
// what comes from a higher group extends only the partial, on the right.
// ceil(log2 n) rounds; a rank whose partner does not exist skips the round.
int scan(const Context& ctx, const void* send, void* recv, int count, const datatype::Type& type,
         const datatype::Op& op, bool exclusive) {
    const datatype::Type t = type;
    const datatype::Op o = op;
    Channel ch(ctx, Tag::scan);
    const int n = ch.size();
    const int r = ch.rank();
    const auto items = static_cast<std::size_t>(count);
    const std::size_t bytes = t.bytes(items);
    const bool in_place = send == MPI_IN_PLACE;
    if (!exclusive && !in_place) copy_bytes(recv, send, bytes);
    if (n == 1) return MPI_SUCCESS;

    const std::size_t part = Scratch::round(bytes);
    Scratch scratch(2 * part);
    std::byte* partial = scratch.at(0);
    std::byte* incoming = scratch.at(part);
    copy_bytes(partial, in_place ? recv : send, bytes);
    bool have_prefix = !exclusive;  // recv holds a result (an exclusive scan starts empty)
    for (int mask = 1; mask < n; mask <<= 1) {
        const int peer = r ^ mask;
        if (peer >= n) continue;
        ch.exchange(partial, bytes, peer, incoming, bytes, peer);
        if (peer < r) {
            if (have_prefix)
                datatype::apply(o, t, incoming, recv, items);  // recv = incoming op recv
            else
                copy_bytes(recv, incoming, bytes);
            have_prefix = true;
            datatype::apply(o, t, incoming, partial, items);
        } else if (o.commutative) {
            datatype::apply(o, t, incoming, partial, items);
        } else {
            datatype::apply(o, t, partial, incoming, items);  // incoming = partial op incoming
            std::swap(partial, incoming);
        }
    }
    return ch.result();
}

}  // namespace si::coll
