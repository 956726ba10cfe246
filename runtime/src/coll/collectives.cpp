// The collectives that only move data: barrier, broadcast, gather, scatter,
// allgather, alltoall, neighbourhood exchange. Reductions are in reduce.cpp.
#include <algorithm>
#include <cstddef>

#include "coll/channel.hpp"
#include "coll/collectives.hpp"
#include "coll/schedule.hpp"

namespace si::coll {

std::vector<Block> regular_blocks(const void* base, int n, std::size_t bytes) {
    std::vector<Block> blocks(static_cast<std::size_t>(n));
    auto* at = static_cast<std::byte*>(const_cast<void*>(base));
    for (Block& b : blocks) {
        b = Block{at, bytes};
        if (at != nullptr) at += bytes;
    }
    return blocks;
}

// Dissemination: in round k every rank signals rank + 2^k and waits for
// rank - 2^k. After ceil(log2 n) rounds each rank has heard, directly or
// through others, from every rank, so none can leave before all arrived. The
// peers of different rounds are distinct, so one tag serves every round.
void add_barrier(Schedule& s) {
    const int n = s.size();
    const int r = s.rank();
    for (int k = 1; k < n; k <<= 1) {
        s.recv(nullptr, 0, (r - k + n) % n);
        s.send(nullptr, 0, (r + k) % n);
        s.next_round();
    }
}

int barrier(const Context& ctx) {
    Schedule s(ctx, Tag::barrier);
    add_barrier(s);
    return s.run();
}

// Binomial tree over ranks renumbered so that the root is 0: rank v receives
// from v minus its lowest set bit, then sends to v + m for every power of two
// m below that bit, largest subtree first. A rank that received a truncated
// message still forwards what it has, so its subtree does not hang.
void add_bcast(Schedule& s, void* buffer, std::size_t bytes, int root) {
    const int n = s.size();
    if (n == 1) return;
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

int bcast(const Context& ctx, void* buffer, std::size_t bytes, int root) {
    Schedule s(ctx, Tag::bcast);
    add_bcast(s, buffer, bytes, root);
    return s.run();
}

// Linear: every rank sends to the root, which posts its receives straight
// into the blocks of recv, kMaxOutstanding per round.
void add_gather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv, int root) {
    const int n = s.size();
    const int r = s.rank();
    if (r != root) {
        s.send(send, send_bytes, root);
        return;
    }
    if (send != MPI_IN_PLACE) s.copy(recv[r].data, recv[r].bytes, send, send_bytes);
    int posted = 0;
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        s.recv(recv[i].data, recv[i].bytes, i);
        if (++posted % kMaxOutstanding == 0) s.next_round();
    }
}

int gather(const Context& ctx, const void* send, std::size_t send_bytes, Blocks recv, int root) {
    Schedule s(ctx, Tag::gather);
    add_gather(s, send, send_bytes, recv, root);
    return s.run();
}

// Linear, the mirror image of gather.
void add_scatter(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    const int n = s.size();
    const int r = s.rank();
    if (r != root) {
        s.recv(recv, recv_bytes, root);
        return;
    }
    if (recv != MPI_IN_PLACE) s.copy(recv, recv_bytes, send[r].data, send[r].bytes);
    int posted = 0;
    for (int i = 0; i < n; ++i) {
        if (i == root) continue;
        s.send(send[i].data, send[i].bytes, i);
        if (++posted % kMaxOutstanding == 0) s.next_round();
    }
}

int scatter(const Context& ctx, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    Schedule s(ctx, Tag::scatter);
    add_scatter(s, send, recv, recv_bytes, root);
    return s.run();
}

// Ring: in step s every rank passes block (rank - s) to its right neighbour
// and receives block (rank - s - 1) from its left one; after n - 1 steps every
// block has gone round. Bandwidth-optimal; n - 1 message latencies.
void add_allgather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    if (send != MPI_IN_PLACE) {
        s.copy(recv[r].data, recv[r].bytes, send, send_bytes);
        s.next_round();
    }
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

int allgather(const Context& ctx, const void* send, std::size_t send_bytes, Blocks recv) {
    Schedule s(ctx, Tag::allgather);
    add_allgather(s, send, send_bytes, recv);
    return s.run();
}

// Pairwise exchange: in step k rank r trades blocks with rank (k - r) mod n.
// That pairing is symmetric (the partner's partner is r) and over n steps meets
// every rank once, r itself included (a local copy). Because both sides of a
// pair exchange the same two blocks at the same step, MPI_IN_PLACE needs only
// one block of temporary space: the outgoing block is staged there (a local
// step at the start of the round) before the incoming one overwrites it.
void add_alltoall(Schedule& s, Blocks send, Blocks recv) {
    const int n = s.size();
    const int r = s.rank();
    const bool in_place = send.empty();
    if (!in_place) {
        s.copy(recv[r].data, recv[r].bytes, send[r].data, send[r].bytes);
        s.next_round();
    }
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
            s.local([stage, incoming] { copy_bytes(stage, incoming.data, incoming.bytes); });
        s.recv(incoming.data, incoming.bytes, peer);
        s.send(outgoing.data, outgoing.bytes, peer);
        s.next_round();
    }
}

int alltoall(const Context& ctx, Blocks send, Blocks recv) {
    Schedule s(ctx, Tag::alltoall);
    add_alltoall(s, send, recv);
    return s.run();
}

// Every receive is posted, then every send: neighbourhoods are small, and a
// bounded window could deadlock when every rank waits for receives whose
// senders have not reached their sends.
int neighbor_exchange(const Context& ctx, std::span<const Edge> in, Blocks recv,
                      std::span<const Edge> out, Blocks send) {
    Channel ch(ctx, Tag::neighbor);
    std::vector<p2p::Request*> receives(in.size(), nullptr);
    for (std::size_t k = 0; k < in.size(); ++k)
        if (in[k].rank != MPI_PROC_NULL)
            receives[k] = ch.irecv(recv[k].data, recv[k].bytes, in[k].rank, in[k].label);
    std::vector<p2p::Request*> sends;
    sends.reserve(out.size());
    for (std::size_t k = 0; k < out.size(); ++k)
        if (out[k].rank != MPI_PROC_NULL)
            sends.push_back(ch.isend(send[k].data, send[k].bytes, out[k].rank, out[k].label));
    for (std::size_t k = 0; k < in.size(); ++k)
        if (receives[k] != nullptr) ch.wait_recv(receives[k], recv[k].bytes);
    for (p2p::Request* s : sends) ch.wait_send(s);
    return ch.result();
}

}  // namespace si::coll
