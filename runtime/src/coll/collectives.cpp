// The collectives that only move data: barrier, broadcast, gather, scatter,
// allgather, alltoall, neighbourhood exchange. Reductions are in reduce.cpp.
#include <algorithm>
#include <cstddef>

#include "coll/channel.hpp"
#include "coll/collectives.hpp"
#include "coll/schedule.hpp"
#include "coll/select.hpp"

namespace si::coll {

BlockList regular_blocks(const void* base, int n, std::size_t bytes) {
    BlockList blocks;
    auto* at = static_cast<std::byte*>(const_cast<void*>(base));
    for (int i = 0; i < n; ++i) {
        blocks.push_back(Block{at, bytes});
        if (at != nullptr) at += bytes;
    }
    return blocks;
}

namespace {

// Dissemination: in round k every rank signals rank + 2^k and waits for
// rank - 2^k. After ceil(log2 n) rounds each rank has heard, directly or
// through others, from every rank, so none can leave before all arrived. The
// peers of different rounds are distinct, so one tag serves every round.
void add_barrier_dissemination(Schedule& s) {
    const int n = s.size();
    const int r = s.rank();
    for (int k = 1; k < n; k <<= 1) {
        s.recv(nullptr, 0, (r - k + n) % n);
        s.send(nullptr, 0, (r + k) % n);
        s.next_round();
    }
}

// Linear: every rank reports to rank 0, which releases them once all have.
void add_barrier_linear(Schedule& s) {
    const int n = s.size();
    if (s.rank() != 0) {
        s.send(nullptr, 0, 0);
        s.next_round();
        s.recv(nullptr, 0, 0);
        s.next_round();
        return;
    }
    for (int i = 1; i < n; ++i) s.recv(nullptr, 0, i);
    s.next_round();
    for (int i = 1; i < n; ++i) s.send(nullptr, 0, i);
    s.next_round();
}

}  // namespace

void add_barrier(Schedule& s) {
    switch (barrier_algorithm(s.algorithms(), s.node_cell_bytes())) {
        case Algorithm::shm: s.run_on_node(NodeCall{.kind = NodeCall::Kind::barrier}); break;
        case Algorithm::linear: add_barrier_linear(s); break;
        default: add_barrier_dissemination(s); break;
    }
}

int barrier(const Context& ctx) {
    Schedule s(ctx, Tag::barrier);
    add_barrier(s);
    return s.run();
}

namespace {

// Binomial tree over ranks renumbered so that the root is 0: rank v receives
// from v minus its lowest set bit, then sends to v + m for every power of two
// m below that bit, largest subtree first. A rank that received a truncated
// message still forwards what it has, so its subtree does not hang.
void add_bcast_binomial(Schedule& s, void* buffer, std::size_t bytes, int root) {
    const int n = s.size();
    const int v = (s.rank() - root + n) % n;
    auto real = [n, root](int vrank) { return (vrank + root) % n; };
    int mask = 1;
    for (; mask < n; mask <<= 1) {
        if (v & mask) {
            s.recv(buffer, bytes, real(v - mask));
            s.next_round();
            break;
        }
    }
    for (int m = mask >> 1; m > 0; m >>= 1)
        if (v + m < n) s.send(buffer, bytes, real(v + m));
    s.next_round();
}

// Linear: the root sends to every rank, kMaxOutstanding per round.
void add_bcast_linear(Schedule& s, void* buffer, std::size_t bytes, int root) {
    const int n = s.size();
    if (s.rank() != root) {
        s.recv(buffer, bytes, root);
        s.next_round();
        return;
    }
    int posted = 0;
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        s.send(buffer, bytes, i);
        if (++posted % kMaxOutstanding == 0) s.next_round();
    }
    s.next_round();
}

// Scatter then allgather: the buffer in n pieces, rank i's piece i; the root
// scatters them linearly, then a ring passes every piece round. Each rank
// sends and receives about 2 x bytes whatever n, against log2(n) x bytes
// through the tree.
void add_bcast_scatter_allgather(Schedule& s, void* buffer, std::size_t bytes, int root) {
    const int n = s.size();
    const int r = s.rank();
    const auto pieces = static_cast<std::size_t>(n);
    const std::size_t piece = (bytes + pieces - 1) / pieces;
    std::vector<Block> blocks;
    auto* base = static_cast<std::byte*>(buffer);
    for (std::size_t i = 0; i < pieces; ++i) {
        const std::size_t begin = std::min(bytes, i * piece);
        blocks.push_back(Block{base + begin, std::min(bytes, begin + piece) - begin});
    }
    const Block& mine = blocks[static_cast<std::size_t>(r)];
    add_scatter(s, blocks, r == root ? MPI_IN_PLACE : mine.data, mine.bytes, root, false);
    s.next_round();
    add_allgather(s, MPI_IN_PLACE, 0, blocks);
}

}  // namespace

void add_bcast(Schedule& s, void* buffer, std::size_t bytes, int root) {
    if (s.size() == 1) return;
    switch (bcast_algorithm(s.algorithms(), bytes, s.size(), s.node_cell_bytes())) {
        case Algorithm::shm:
            s.run_on_node(NodeCall{.kind = NodeCall::Kind::bcast,
                                   .root = root,
                                   .send = buffer,
                                   .send_bytes = bytes,
                                   .recv = buffer,
                                   .recv_bytes = bytes});
            break;
        case Algorithm::linear: add_bcast_linear(s, buffer, bytes, root); break;
        case Algorithm::scatter_allgather: add_bcast_scatter_allgather(s, buffer, bytes, root); break;
        default: add_bcast_binomial(s, buffer, bytes, root); break;
    }
}

int bcast(const Context& ctx, void* buffer, std::size_t bytes, int root) {
    Schedule s(ctx, Tag::bcast);
    add_bcast(s, buffer, bytes, root);
    return s.run();
}

namespace {

// Linear: every rank sends to the root, which posts its receives straight
// into the blocks of recv, kMaxOutstanding per round.
void add_gather_linear(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv,
                       int root) {
    const int n = s.size();
    const int r = s.rank();
    if (r != root) {
        s.send(send, send_bytes, root);
        s.next_round();
        return;
    }
    if (send != MPI_IN_PLACE) s.copy(recv[r].data, recv[r].bytes, send, send_bytes);
    int posted = 0;
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        s.recv(recv[i].data, recv[i].bytes, i);
        if (++posted % kMaxOutstanding == 0) s.next_round();
    }
    s.next_round();
}

// The binomial trees of gather and scatter, over ranks renumbered so that the
// root is 0: rank v's subtree is the ranks v to v + lowbit(v) - 1 (all of
// them for the root), its children v + m for the powers of two m below
// lowbit(v), child v + m's subtree the next min(m, n - v - m) ranks. A rank
// keeps its subtree's blocks in renumbered order in one buffer, so that a
// subtree travels as one message.
struct Subtree {
    int v;       // renumbered rank
    int size;    // ranks in the subtree
    int parent;  // renumbered, -1 at the root
};

Subtree subtree_of(int r, int root, int n) {
    const int v = (r - root + n) % n;
    const int low = v == 0 ? n : (v & -v);
    return Subtree{v, std::min(low, n - v), v == 0 ? -1 : v - low};
}

// Binomial gather of equal blocks of `block` bytes: each rank receives its
// children's subtrees at once, then sends its whole subtree to its parent;
// the root then puts every block in place. log2(n) rounds instead of n - 1
// messages into the root, for small blocks.
void add_gather_binomial(Schedule& s, const void* send, std::size_t block, Blocks recv, int root) {
    const int n = s.size();
    const int r = s.rank();
    const Subtree t = subtree_of(r, root, n);
    auto real = [n, root](int vrank) { return (vrank + root) % n; };
    if (t.parent >= 0 && t.size == 1) {  // a leaf sends its block as it is
        s.send(send, block, real(t.parent));
        s.next_round();
        return;
    }
    std::byte* tree = s.scratch(block * static_cast<std::size_t>(t.size));
    const void* own = send == MPI_IN_PLACE ? recv[r].data : send;
    s.local_copy(tree, own, block);
    for (int m = 1; m < t.size; m <<= 1) {
        const auto child_size = static_cast<std::size_t>(std::min(m, t.size - m));
        s.recv(tree + block * static_cast<std::size_t>(m), block * child_size, real(t.v + m));
    }
    s.next_round();
    if (t.parent >= 0) {
        s.send(tree, block * static_cast<std::size_t>(t.size), real(t.parent));
    } else {
        for (int u = 0; u < n; ++u) {
            const Block& to = recv[real(u)];
            const std::byte* from = tree + block * static_cast<std::size_t>(u);
            if (real(u) != r || send != MPI_IN_PLACE) s.copy(to.data, to.bytes, from, block);
        }
    }
    s.next_round();
}

// Linear, the mirror image of the linear gather.
void add_scatter_linear(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    const int n = s.size();
    const int r = s.rank();
    if (r != root) {
        s.recv(recv, recv_bytes, root);
        s.next_round();
        return;
    }
    if (recv != MPI_IN_PLACE) s.copy(recv, recv_bytes, send[r].data, send[r].bytes);
    int posted = 0;
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        s.send(send[i].data, send[i].bytes, i);
        if (++posted % kMaxOutstanding == 0) s.next_round();
    }
    s.next_round();
}

// Binomial scatter, the mirror image of the binomial gather: the root lays
// the blocks out in renumbered order, each rank receives its subtree's blocks
// from its parent and passes on its children's, largest subtree first.
void add_scatter_binomial(Schedule& s, Blocks send, void* recv, std::size_t block, int root) {
    const int n = s.size();
    const int r = s.rank();
    const Subtree t = subtree_of(r, root, n);
    auto real = [n, root](int vrank) { return (vrank + root) % n; };
    if (t.parent >= 0 && t.size == 1) {  // a leaf receives its block as it is
        s.recv(recv, block, real(t.parent));
        s.next_round();
        return;
    }
    std::byte* tree = s.scratch(block * static_cast<std::size_t>(t.size));
    if (t.parent < 0) {
        for (int u = 0; u < n; ++u) {
            const Block& from = send[real(u)];
            s.copy(tree + block * static_cast<std::size_t>(u), block, from.data, from.bytes);
        }
    } else {
        s.recv(tree, block * static_cast<std::size_t>(t.size), real(t.parent));
    }
    s.next_round();
    int top = 1;
    while (top * 2 < t.size) top *= 2;
    for (int m = top; m > 0; m >>= 1) {
        const auto child_size = static_cast<std::size_t>(std::min(m, t.size - m));
        s.send(tree + block * static_cast<std::size_t>(m), block * child_size, real(t.v + m));
    }
    if (recv != MPI_IN_PLACE) s.local_copy(recv, tree, block);
    s.next_round();
}

}  // namespace

void add_gather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv, int root,
                bool equal) {
    const int r = s.rank();
    const std::size_t block = r == root ? recv[r].bytes : send_bytes;
    switch (gather_algorithm(s.algorithms().gather, equal, block, s.size(), s.node_cell_bytes())) {
        case Algorithm::shm:
            s.run_on_node(NodeCall{.kind = NodeCall::Kind::gather,
                                   .root = root,
                                   .send = send,
                                   .send_bytes = send_bytes,
                                   .recv_blocks = recv});
            break;
        case Algorithm::binomial: add_gather_binomial(s, send, block, recv, root); break;
        default: add_gather_linear(s, send, send_bytes, recv, root); break;
    }
}

int gather(const Context& ctx, const void* send, std::size_t send_bytes, Blocks recv, int root) {
    Schedule s(ctx, Tag::gather);
    add_gather(s, send, send_bytes, recv, root, false);
    return s.run();
}

void add_scatter(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root,
                 bool equal) {
    const int r = s.rank();
    const std::size_t block = r == root ? send[r].bytes : recv_bytes;
    switch (gather_algorithm(s.algorithms().scatter, equal, block, s.size(), s.node_cell_bytes(),
                             s.size())) {
        case Algorithm::shm:
            s.run_on_node(NodeCall{.kind = NodeCall::Kind::scatter,
                                   .root = root,
                                   .recv = recv,
                                   .recv_bytes = recv_bytes,
                                   .send_blocks = send});
            break;
        case Algorithm::binomial: add_scatter_binomial(s, send, recv, block, root); break;
        default: add_scatter_linear(s, send, recv, recv_bytes, root); break;
    }
}

int scatter(const Context& ctx, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    Schedule s(ctx, Tag::scatter);
    add_scatter(s, send, recv, recv_bytes, root, false);
    return s.run();
}

namespace {

// Ring: in step s every rank passes block (rank - s) to its right neighbour
// and receives block (rank - s - 1) from its left one; after n - 1 steps every
// block has gone round. Bandwidth-optimal; n - 1 message latencies.
void add_allgather_ring(Schedule& s, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    const int right = (r + 1) % n;
    const int left = (r - 1 + n) % n;
    for (int step = 0; step < n - 1; ++step) {
        const Block& outgoing = recv[(r - step + n) % n];
        const Block& incoming = recv[(r - step - 1 + n) % n];
        s.recv(incoming.data, incoming.bytes, left);
        s.send(outgoing.data, outgoing.bytes, right);
        s.next_round();
    }
}

// Recursive doubling (n a power of two): in round k a rank trades the blocks
// of its aligned group of 2^k ranks with the partner whose number differs in
// bit k, a message per block, so that blocks of any size and place need no
// packing. log2(n) rounds.
void add_allgather_recursive_doubling(Schedule& s, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    for (int mask = 1; mask < n; mask <<= 1) {
        const int partner = r ^ mask;
        const int mine = r & ~(mask - 1);
        const int theirs = partner & ~(mask - 1);
        for (int i = 0; i < mask; ++i) s.recv(recv[theirs + i].data, recv[theirs + i].bytes, partner);
        for (int i = 0; i < mask; ++i) s.send(recv[mine + i].data, recv[mine + i].bytes, partner);
        s.next_round();
    }
}

}  // namespace

void add_allgather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv) {
    const int r = s.rank();
    std::size_t total = 0;
    std::size_t largest = 0;
    for (const Block& b : recv) {
        total += b.bytes;
        largest = std::max(largest, b.bytes);
    }
    const Algorithm algorithm =
        allgather_algorithm(s.algorithms(), total, s.size(), s.node_cell_bytes(), largest);
    if (algorithm == Algorithm::shm) {
        s.run_on_node(NodeCall{.kind = NodeCall::Kind::allgather,
                               .send = send,
                               .send_bytes = send_bytes,
                               .recv_blocks = recv});
        return;
    }
    if (send != MPI_IN_PLACE) {
        s.copy(recv[r].data, recv[r].bytes, send, send_bytes);
        s.next_round();
    }
    if (algorithm == Algorithm::recursive_doubling)
        add_allgather_recursive_doubling(s, recv);
    else
        add_allgather_ring(s, recv);
}

int allgather(const Context& ctx, const void* send, std::size_t send_bytes, Blocks recv) {
    Schedule s(ctx, Tag::allgather);
    add_allgather(s, send, send_bytes, recv);
    return s.run();
}

namespace {

// Pairwise exchange: in step k rank r trades blocks with rank (k - r) mod n.
// That pairing is symmetric (the partner's partner is r) and over n steps meets
// every rank once, r itself included (a local copy). Because both sides of a
// pair exchange the same two blocks at the same step, MPI_IN_PLACE needs only
// one block of temporary space: the outgoing block is staged there (a local
// step at the start of the round) before the incoming one overwrites it.
void add_alltoall_pairwise(Schedule& s, Blocks send, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    const bool in_place = send.empty();
    std::size_t largest = 0;
    if (in_place)
        for (const Block& b : recv) largest = std::max(largest, b.bytes);
    std::byte* stage = largest > 0 ? s.scratch(largest) : nullptr;
    for (int k = 0; k < n; ++k) {
        const int peer = ((k - r) % n + n) % n;
        if (peer == r) continue;
        const Block& incoming = recv[peer];
        const Block outgoing = in_place ? Block{stage, incoming.bytes} : send[peer];
        if (in_place)
            s.local_copy(stage, incoming.data, incoming.bytes);
        s.recv(incoming.data, incoming.bytes, peer);
        s.send(outgoing.data, outgoing.bytes, peer);
        s.next_round();
    }
}

// Linear: every receive and every send posted at once, one round.
void add_alltoall_linear(Schedule& s, Blocks send, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    for (int k = 1; k < n; ++k) {
        const int from = (r - k + n) % n;
        s.recv(recv[from].data, recv[from].bytes, from);
    }
    for (int k = 1; k < n; ++k) {
        const int to = (r + k) % n;
        s.send(send[to].data, send[to].bytes, to);
    }
    s.next_round();
}

// Bruck, for small equal blocks: the blocks rotated so that slot i holds the
// one for rank r + i; in round k (k = 1, 2, 4, ...) every slot whose index has
// bit k set goes, packed into one message, to rank r + k, and the same slots
// come back from rank r - k; at the end slot i holds rank r - i's block for r.
// log2(n) rounds of n/2 blocks, against n - 1 rounds of one.
void add_alltoall_bruck(Schedule& s, Blocks send, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    const std::size_t block = recv[0].bytes;
    const auto slots = static_cast<std::size_t>(n);
    std::byte* slot = s.scratch(block * slots);
    for (int i = 0; i < n; ++i) {
        const Block& from = send[(r + i) % n];
        s.copy(slot + block * static_cast<std::size_t>(i), block, from.data, from.bytes);
    }
    std::byte* outgoing = s.scratch(block * (slots / 2 + 1));
    std::byte* incoming = s.scratch(block * (slots / 2 + 1));
    auto at = [block](std::byte* base, std::size_t index) { return base + block * index; };
    for (int k = 1; k < n; k <<= 1) {
        std::size_t moved = 0;  // packs the slots with bit k set
        for (int i = 0; i < n; ++i)
            if (i & k) s.local_copy(at(outgoing, moved++), at(slot, static_cast<std::size_t>(i)), block);
        s.recv(incoming, block * moved, (r - k + n) % n);
        s.send(outgoing, block * moved, (r + k) % n);
        s.next_round();
        moved = 0;  // and unpacks what came back into the same slots
        for (int i = 0; i < n; ++i)
            if (i & k) s.local_copy(at(slot, static_cast<std::size_t>(i)), at(incoming, moved++), block);
    }
    for (int i = 0; i < n; ++i) {
        const Block& to = recv[(r - i + n) % n];
        s.local_copy(to.data, slot + block * static_cast<std::size_t>(i), block);
    }
    s.next_round();
}

}  // namespace

void add_alltoall(Schedule& s, Blocks send, Blocks recv, bool equal) {
    const int r = s.rank();
    const bool in_place = send.empty();
    const Algorithm algorithm = alltoall_algorithm(s.algorithms(), equal, in_place, recv[r].bytes,
                                                   s.size(), s.node_cell_bytes());
    if (algorithm == Algorithm::shm) {
        s.run_on_node(NodeCall{
            .kind = NodeCall::Kind::alltoall, .send_blocks = send, .recv_blocks = recv});
        return;
    }
    if (algorithm == Algorithm::bruck) {
        add_alltoall_bruck(s, send, recv);
        return;
    }
    if (!in_place) {
        s.copy(recv[r].data, recv[r].bytes, send[r].data, send[r].bytes);
        s.next_round();
    }
    if (algorithm == Algorithm::linear && !in_place)
        add_alltoall_linear(s, send, recv);
    else
        add_alltoall_pairwise(s, send, recv);
}

int alltoall(const Context& ctx, Blocks send, Blocks recv) {
    Schedule s(ctx, Tag::alltoall);
    add_alltoall(s, send, recv, false);
    return s.run();
}

// One round: every receive is posted, then every send. Neighbourhoods are
// small, and a bounded window could deadlock when every rank waits for
// receives whose senders have not reached their sends.
void add_neighbor_exchange(Schedule& s, std::span<const Edge> in, Blocks recv,
                           std::span<const Edge> out, Blocks send) {
    for (std::size_t k = 0; k < in.size(); ++k)
        if (in[k].rank != MPI_PROC_NULL) s.recv(recv[k].data, recv[k].bytes, in[k].rank, in[k].label);
    for (std::size_t k = 0; k < out.size(); ++k)
        if (out[k].rank != MPI_PROC_NULL)
            s.send(send[k].data, send[k].bytes, out[k].rank, out[k].label);
}

}  // namespace si::coll
