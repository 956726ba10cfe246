#include "coll/intercomm.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "coll/channel.hpp"
#include "coll/schedule.hpp"

namespace si::coll {

namespace {

using Group = Schedule::Group;

// The rank of each group that speaks for it across.
constexpr int kLeader = 0;

// The leaders send `mine` to each other and receive `theirs`; the other
// ranks add nothing.
void add_leaders_trade(Schedule& s, const void* mine, void* theirs, std::size_t bytes) {
    s.address(Group::remote);
    if (s.rank() == kLeader) {
        s.recv(theirs, bytes, kLeader);
        s.send(mine, bytes, kLeader);
        s.next_round();
    }
    s.address(Group::local);
}

// In round i every rank r sends to remote rank (r + i) mod n and receives
// from remote rank (r - i) mod n, n being the larger group's size; a partner
// beyond the other group's size is skipped. Remote rank r + i receives from
// r in that same round, so each round's messages meet, and over n rounds
// every pair of ranks has traded once in each direction.
void add_pairwise(Schedule& s, Blocks send, Blocks recv) {
    const int local = s.size();
    s.address(Group::remote);
    const int remote = s.size();
    const int n = std::max(local, remote);
    const int r = s.rank();
    for (int i = 0; i < n; ++i) {
        const int to = (r + i) % n;
        const int from = (r - i + n) % n;
        if (from < remote) s.recv(recv[from].data, recv[from].bytes, from);
        if (to < remote) s.send(send[to].data, send[to].bytes, to);
        s.next_round();
    }
    s.address(Group::local);
}

}  // namespace

void add_inter_barrier(Schedule& s) {
    // Once the leader has passed the local barrier its whole group has
    // arrived; once it has the other leader's message, the other group has
    // too; the local broadcast tells the rest.
    add_barrier(s);
    s.next_round();
    add_leaders_trade(s, nullptr, nullptr, 0);
    add_bcast(s, nullptr, 0, kLeader);
}

void add_inter_bcast(Schedule& s, void* buffer, std::size_t bytes, int root) {
    if (root == MPI_PROC_NULL) return;
    const bool leader = s.rank() == kLeader;
    s.address(Group::remote);
    if (root == MPI_ROOT) {
        s.send(buffer, bytes, kLeader);
        s.next_round();
    } else if (leader) {
        s.recv(buffer, bytes, root);
        s.next_round();
    }
    s.address(Group::local);
    if (root != MPI_ROOT) add_bcast(s, buffer, bytes, kLeader);
}

void add_inter_gather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv,
                      int root) {
    if (root == MPI_PROC_NULL) return;
    s.address(Group::remote);
    if (root != MPI_ROOT) {
        s.send(send, send_bytes, root);
    } else {
        for (int i = 0; i < s.size(); ++i) {
            s.recv(recv[i].data, recv[i].bytes, i);
            if ((i + 1) % kMaxOutstanding == 0) s.next_round();
        }
    }
    s.next_round();
    s.address(Group::local);
}

void add_inter_scatter(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root) {
    if (root == MPI_PROC_NULL) return;
    s.address(Group::remote);
    if (root != MPI_ROOT) {
        s.recv(recv, recv_bytes, root);
    } else {
        for (int i = 0; i < s.size(); ++i) {
            s.send(send[i].data, send[i].bytes, i);
            if ((i + 1) % kMaxOutstanding == 0) s.next_round();
        }
    }
    s.next_round();
    s.address(Group::local);
}

void add_inter_allgather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv) {
    // The steps keep the blocks' addresses, not this vector.
    const std::vector<Block> same(recv.size(), Block{const_cast<void*>(send), send_bytes});
    add_pairwise(s, same, recv);
}

void add_inter_alltoall(Schedule& s, Blocks send, Blocks recv) {
    add_pairwise(s, send, recv);
}

void add_inter_reduce(Schedule& s, const void* send, void* recv, std::size_t count,
                      const datatype::Type& type, const datatype::Op& op, int root) {
    if (root == MPI_PROC_NULL) return;
    const std::size_t bytes = type.bytes(count);
    if (root == MPI_ROOT) {
        s.address(Group::remote);
        s.recv(recv, bytes, kLeader);
        s.next_round();
        s.address(Group::local);
        return;
    }
    const bool leader = s.rank() == kLeader;
    std::byte* partial = leader ? s.scratch(bytes) : nullptr;
    add_reduce(s, send, partial, count, type, op, kLeader);
    if (!leader) return;
    s.address(Group::remote);
    s.send(partial, bytes, root);
    s.next_round();
    s.address(Group::local);
}

void add_inter_allreduce(Schedule& s, const void* send, void* recv, std::size_t count,
                         const datatype::Type& type, const datatype::Op& op) {
    const std::size_t bytes = type.bytes(count);
    std::byte* partial = s.rank() == kLeader ? s.scratch(bytes) : nullptr;
    add_reduce(s, send, partial, count, type, op, kLeader);
    add_inter_exchange(s, partial, recv, bytes);
}

void add_inter_reduce_scatter(Schedule& s, const void* send, void* recv,
                              std::span<const std::size_t> counts, const datatype::Type& type,
                              const datatype::Op& op) {
    const int r = s.rank();
    const bool leader = r == kLeader;
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    const std::size_t bytes = type.bytes(total);
    std::byte* partial = leader ? s.scratch(bytes) : nullptr;
    std::byte* theirs = leader ? s.scratch(bytes) : nullptr;
    add_reduce(s, send, partial, total, type, op, kLeader);
    add_leaders_trade(s, partial, theirs, bytes);
    std::vector<Block> blocks;
    if (leader) {
        std::size_t offset = 0;
        for (const std::size_t c : counts) {
            blocks.push_back(Block{theirs + offset, type.bytes(c)});
            offset += type.bytes(c);
        }
    }
    add_scatter(s, blocks, recv, type.bytes(counts[static_cast<std::size_t>(r)]), kLeader, false);
}

void add_inter_exchange(Schedule& s, const void* mine, void* theirs, std::size_t bytes) {
    add_leaders_trade(s, mine, theirs, bytes);
    add_bcast(s, theirs, bytes, kLeader);
}

int barrier(const InterContext& ctx) {
    Schedule s(ctx, Tag::barrier);
    add_inter_barrier(s);
    return s.run();
}

int allreduce(const InterContext& ctx, const void* send, void* recv, int count,
              const datatype::Type& type, const datatype::Op& op) {
    Schedule s(ctx, Tag::reduce);
    add_inter_allreduce(s, send, recv, static_cast<std::size_t>(count), type, op);
    return s.run();
}

int reduce_scatter(const InterContext& ctx, const void* send, void* recv,
                   std::span<const int> counts, const datatype::Type& type,
                   const datatype::Op& op) {
    const std::vector<std::size_t> items(counts.begin(), counts.end());
    Schedule s(ctx, Tag::reduce_scatter);
    add_inter_reduce_scatter(s, send, recv, items, type, op);
    return s.run();
}

}  // namespace si::coll
