// The reductions as schedules: reduce, allreduce, reduce-scatter and scan.
// Their local steps apply the operator to what a round received at the start
// of the next round (Schedule::local), so a reduction moves on wherever the
// rank makes progress, like the other collectives.
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "coll/channel.hpp"
#include "coll/collectives.hpp"
#include "coll/schedule.hpp"
#include "coll/select.hpp"

namespace si::coll {

namespace {

// The datatype and operator of the call, which the schedule refers to
// (Schedule::keep_reduction).
struct Reduction {
    const datatype::Type& type;
    const datatype::Op& op;
};

Reduction keep_reduction(Schedule& s, const datatype::Type& type, const datatype::Op& op) {
    s.keep_reduction(type, op);
    return Reduction{type, op};
}

// Per-rank lists built with the schedule: inline up to this many ranks.
constexpr std::size_t kInlineRanks = 16;

// Binomial tree over ranks renumbered so that tree_root is 0. Rank v receives
// the partial results of its children v + 1, v + 2, v + 4, ... (each covering
// the next block of renumbered ranks) at once, into a buffer each; the next
// round combines them into its own input and sends the total to v minus its
// lowest set bit. Partial results are always combined as (lower ranks) op
// (higher ranks), so with tree_root 0 the result is in rank order, which a
// non-commutative operator needs; a commutative one uses the real root as
// tree root and saves the final hop.
void add_reduce_tree(Schedule& s, const void* send, void* recv, std::size_t count,
                     const Reduction& red, int root) {
    const int n = s.size();
    const int r = s.rank();
    const std::size_t bytes = red.type.bytes(count);
    const void* input = send == MPI_IN_PLACE ? recv : send;
    if (n == 1) {
        if (send != MPI_IN_PLACE) s.local_copy(recv, send, bytes);
        s.next_round();
        return;
    }
    const int tree_root = red.op.commutative ? root : 0;
    const int v = (r - tree_root + n) % n;
    auto real = [n, tree_root](int vrank) { return (vrank + tree_root) % n; };

    InlineVector<std::byte*, kInlineRanks> partials;
    int mask = 1;
    for (; mask < n && (v & mask) == 0; mask <<= 1) {
        if (v + mask >= n) continue;
        partials.push_back(s.scratch(bytes));
        s.recv(partials.back(), bytes, real(v + mask));
    }
    s.next_round();
    const void* total = input;  // this rank's subtree so far
    for (std::byte* partial : partials) {
        s.combine(total, partial, count);  // partial = total op partial
        total = partial;
    }
    if (v != 0) {
        s.send(total, bytes, real(v - mask));
    } else if (r == root) {
        s.local_copy(recv, total, bytes);
    } else {
        s.send(total, bytes, root);  // a non-commutative reduce to a root other than 0
    }
    s.next_round();
    if (tree_root != root && r == root) {
        s.recv(recv, bytes, tree_root);
        s.next_round();
    }
}

// Linear: the root receives every other input at once, into a buffer each,
// then folds them from the right (in_0 op (in_1 op (... op in_n-1))), which
// keeps rank order for a non-commutative operator.
void add_reduce_linear(Schedule& s, const void* send, void* recv, std::size_t count,
                       const Reduction& red, int root) {
    const int n = s.size();
    const int r = s.rank();
    const std::size_t bytes = red.type.bytes(count);
    const void* input = send == MPI_IN_PLACE ? recv : send;
    if (r != root) {
        s.send(input, bytes, root);
        s.next_round();
        return;
    }
    InlineVector<const void*, kInlineRanks> inputs;
    for (int i = 0; i < n; ++i) inputs.push_back(input);
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        std::byte* incoming = s.scratch(bytes);
        s.recv(incoming, bytes, i);
        inputs[static_cast<std::size_t>(i)] = incoming;
    }
    s.next_round();
    std::byte* acc = s.scratch(bytes);
    s.local_copy(acc, inputs.back(), bytes);
    for (int i = n - 2; i >= 0; --i) s.combine(inputs[static_cast<std::size_t>(i)], acc, count);
    s.local_copy(recv, acc, bytes);
    s.next_round();
}

// Recursive doubling on any number of ranks: with p the largest power of two
// up to n, the first 2(n - p) ranks pair up (even into odd), so that p ranks
// remain, each standing for a run of consecutive ranks; in round k each
// trades its partial result with the one whose number differs in bit k, and
// both compute (lower ranks) op (higher ranks) from the same operands, so
// every rank ends with the same bits in rank order. The odd ranks of the pairs
// then hand the result to their even partner. log2(p) + 2 rounds at most.
void add_allreduce_recursive_doubling(Schedule& s, const void* send, void* recv,
                                      std::size_t count, const Reduction& red) {
    const int n = s.size();
    const int r = s.rank();
    const std::size_t bytes = red.type.bytes(count);
    const void* input = send == MPI_IN_PLACE ? recv : send;
    int p = 1;
    while (p * 2 <= n) p *= 2;
    const int extra = n - p;
    if (r < 2 * extra && r % 2 == 0) {  // folded into r + 1, which sends the result back
        s.send(input, bytes, r + 1);
        s.next_round();
        s.recv(recv, bytes, r + 1);
        s.next_round();
        return;
    }
    std::byte* acc = s.scratch(bytes);
    std::byte* incoming = s.scratch(bytes);
    s.local_copy(acc, input, bytes);
    if (r < 2 * extra) {
        s.recv(incoming, bytes, r - 1);
        s.next_round();
        s.combine(incoming, acc, count);  // acc = (r - 1) op r
    }
    const int v = r < 2 * extra ? r / 2 : r - extra;
    auto real = [extra](int vrank) { return vrank < extra ? 2 * vrank + 1 : vrank + extra; };
    for (int mask = 1; mask < p; mask <<= 1) {
        const int partner = v ^ mask;
        s.recv(incoming, bytes, real(partner));
        s.send(acc, bytes, real(partner));
        s.next_round();
        if (partner < v) {
            s.combine(incoming, acc, count);  // acc = theirs op mine
        } else {
            s.combine(acc, incoming, count);  // incoming = mine op theirs
            std::swap(acc, incoming);
        }
    }
    s.local_copy(recv, acc, bytes);
    if (r < 2 * extra) s.send(acc, bytes, r - 1);
    s.next_round();
}

// Pairwise exchange for a commutative operator: in step k every rank sends
// rank (r + k)'s block of its input to that rank and receives its own block of
// rank (r - k)'s input, which the next round combines into its partial
// result. Each rank reduces only its own block, and each block crosses once
// per rank. The result goes to `result` once every other block of the input
// has been sent, so `result` may lie in the input (MPI_IN_PLACE).
void add_reduce_scatter_pairwise(Schedule& s, const std::byte* input, void* result,
                                 std::span<const std::size_t> counts, const Reduction& red) {
    const int n = s.size();
    const int r = s.rank();
    std::vector<std::size_t> offset(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i)
        offset[i + 1] = offset[i] + red.type.bytes(counts[i]);
    const auto mine = static_cast<std::size_t>(r);
    const std::size_t bytes = red.type.bytes(counts[mine]);
    std::byte* acc = s.scratch(bytes);
    std::byte* incoming = s.scratch(bytes);
    s.local_copy(acc, input + offset[mine], bytes);
    for (int k = 1; k < n; ++k) {
        if (k > 1) s.combine(incoming, acc, counts[mine]);
        const auto to = static_cast<std::size_t>((r + k) % n);
        s.recv(incoming, bytes, (r - k + n) % n);
        s.send(input + offset[to], offset[to + 1] - offset[to], static_cast<int>(to));
        s.next_round();
    }
    if (n > 1) s.combine(incoming, acc, counts[mine]);
    s.local_copy(result, acc, bytes);
    s.next_round();
}

// count items in n nearly equal blocks, the first count % n one item larger.
std::vector<std::size_t> even_blocks(std::size_t count, int n) {
    const auto ranks = static_cast<std::size_t>(n);
    std::vector<std::size_t> counts(ranks, count / ranks);
    for (std::size_t i = 0; i < count % ranks; ++i) ++counts[i];
    return counts;
}

}  // namespace

void add_reduce(Schedule& s, const void* send, void* recv, std::size_t count,
                const datatype::Type& type, const datatype::Op& op, int root) {
    const Algorithm algorithm =
        reduce_algorithm(s.algorithms(), type.bytes(count), s.node_cell_bytes());
    if (algorithm == Algorithm::shm) {
        s.run_on_node(NodeCall{.kind = NodeCall::Kind::reduce,
                               .root = root,
                               .send = send,
                               .recv = recv,
                               .count = count,
                               .type = &type,
                               .op = &op});
        return;
    }
    const Reduction red = keep_reduction(s, type, op);
    if (algorithm == Algorithm::linear && s.size() > 1)
        add_reduce_linear(s, send, recv, count, red, root);
    else
        add_reduce_tree(s, send, recv, count, red, root);
}

// Every rank gets the same bits, even for floating point, although the order
// of combination is not the sequential one: recursive doubling computes each
// step from the same operands on both sides, and the others compute each
// element on one rank and copy it to the rest. reduce_bcast: binomial reduce
// to rank 0, then broadcast. reduce_scatter_allgather (commutative only):
// pairwise reduce-scatter of n blocks, then a ring allgather, so that every
// rank reduces and sends only its share.
void add_allreduce(Schedule& s, const void* send, void* recv, std::size_t count,
                   const datatype::Type& type, const datatype::Op& op) {
    const int n = s.size();
    const std::size_t bytes = type.bytes(count);
    const Algorithm algorithm =
        allreduce_algorithm(s.algorithms(), count, bytes, n, op.commutative, s.node_cell_bytes());
    if (algorithm == Algorithm::shm) {
        s.run_on_node(NodeCall{.kind = NodeCall::Kind::allreduce,
                               .send = send,
                               .recv = recv,
                               .count = count,
                               .type = &type,
                               .op = &op});
        return;
    }
    const Reduction red = keep_reduction(s, type, op);
    if (algorithm == Algorithm::recursive_doubling) {
        add_allreduce_recursive_doubling(s, send, recv, count, red);
        return;
    }
    if (algorithm == Algorithm::reduce_scatter_allgather) {
        const std::vector<std::size_t> counts = even_blocks(count, n);
        auto* out = static_cast<std::byte*>(recv);
        const auto* input = static_cast<const std::byte*>(send == MPI_IN_PLACE ? recv : send);
        std::vector<Block> blocks;
        std::size_t offset = 0;
        for (const std::size_t c : counts) {
            blocks.push_back(Block{out + offset, type.bytes(c)});
            offset += type.bytes(c);
        }
        add_reduce_scatter_pairwise(s, input, blocks[static_cast<std::size_t>(s.rank())].data,
                                    counts, red);
        add_allgather(s, MPI_IN_PLACE, 0, blocks);
        return;
    }
    add_reduce_tree(s, send, recv, count, red, 0);
    add_bcast(s, recv, bytes, 0);
}

// Large messages with a commutative operator: pairwise exchange, each rank
// reducing its own block. Otherwise: reduce the whole vector to rank 0 (in
// rank order for a non-commutative operator), then scatter its blocks.
void add_reduce_scatter(Schedule& s, const void* send, void* recv,
                        std::span<const std::size_t> counts, const datatype::Type& type,
                        const datatype::Op& op) {
    const Reduction red = keep_reduction(s, type, op);
    const int r = s.rank();
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    if (reduce_scatter_algorithm(s.algorithms(), type.bytes(total), s.size(), op.commutative) ==
        Algorithm::pairwise) {
        add_reduce_scatter_pairwise(s, static_cast<const std::byte*>(send), recv, counts, red);
        return;
    }
    std::byte* result = r == 0 ? s.scratch(type.bytes(total)) : nullptr;
    add_reduce_tree(s, send, result, total, red, 0);
    std::vector<Block> blocks;
    if (r == 0) {
        blocks.reserve(counts.size());
        std::size_t offset = 0;
        for (const std::size_t c : counts) {
            blocks.push_back(Block{result + offset, type.bytes(c)});
            offset += type.bytes(c);
        }
    }
    const std::size_t mine = type.bytes(counts[static_cast<std::size_t>(r)]);
    add_scatter(s, blocks, recv, mine, 0, false);
}

// Recursive doubling: in round k a rank trades, with the rank whose number
// differs in bit k, the reduction of its aligned group of 2^k ranks (partial).
// What comes from a lower group is everything just before this rank's own
// prefix so far, so it goes on the left of both the prefix and the partial;
// what comes from a higher group extends only the partial, on the right.
// ceil(log2 n) rounds; a rank whose partner does not exist skips the round.
// Two buffers take turns as the partial and the incoming one, which is
// decided while building, as every step is.
void add_scan(Schedule& s, const void* send, void* recv, std::size_t count,
              const datatype::Type& type, const datatype::Op& op, bool exclusive) {
    s.keep_reduction(type, op);
    const int n = s.size();
    const int r = s.rank();
    const std::size_t bytes = type.bytes(count);
    const bool in_place = send == MPI_IN_PLACE;
    if (!exclusive && !in_place) s.local_copy(recv, send, bytes);
    if (n == 1) {
        s.next_round();
        return;
    }
    std::byte* partial = s.scratch(bytes);
    std::byte* incoming = s.scratch(bytes);
    s.local_copy(partial, in_place ? recv : send, bytes);
    bool have_prefix = !exclusive;  // recv holds a result (an exclusive scan starts empty)
    for (int mask = 1; mask < n; mask <<= 1) {
        const int peer = r ^ mask;
        if (peer >= n) continue;
        s.recv(incoming, bytes, peer);
        s.send(partial, bytes, peer);
        s.next_round();
        if (peer < r) {
            if (have_prefix)
                s.combine(incoming, recv, count);  // recv = incoming op recv
            else
                s.local_copy(recv, incoming, bytes);
            have_prefix = true;
            s.combine(incoming, partial, count);
        } else if (op.commutative) {
            s.combine(incoming, partial, count);
        } else {
            s.combine(partial, incoming, count);  // incoming = partial op incoming
            std::swap(partial, incoming);
        }
    }
    s.next_round();
}

namespace {

// A blocking reduction: one schedule, run to the end.
template <typename Add>
int run_reduction(const Context& ctx, Tag tag, Add add) {
    Schedule s(ctx, tag);
    add(s);
    return s.run();
}

}  // namespace

int reduce(const Context& ctx, const void* send, void* recv, int count, const datatype::Type& type,
           const datatype::Op& op, int root) {
    return run_reduction(ctx, Tag::reduce, [&](Schedule& s) {
        add_reduce(s, send, recv, static_cast<std::size_t>(count), type, op, root);
    });
}

int allreduce(const Context& ctx, const void* send, void* recv, int count,
              const datatype::Type& type, const datatype::Op& op) {
    return run_reduction(ctx, Tag::reduce, [&](Schedule& s) {
        add_allreduce(s, send, recv, static_cast<std::size_t>(count), type, op);
    });
}

int reduce_scatter(const Context& ctx, const void* send, void* recv, std::span<const int> counts,
                   const datatype::Type& type, const datatype::Op& op) {
    const std::vector<std::size_t> items(counts.begin(), counts.end());
    return run_reduction(ctx, Tag::reduce_scatter,
                         [&](Schedule& s) { add_reduce_scatter(s, send, recv, items, type, op); });
}

int scan(const Context& ctx, const void* send, void* recv, int count, const datatype::Type& type,
         const datatype::Op& op, bool exclusive) {
    return run_reduction(ctx, Tag::scan, [&](Schedule& s) {
        add_scan(s, send, recv, static_cast<std::size_t>(count), type, op, exclusive);
    });
}

}  // namespace si::coll
