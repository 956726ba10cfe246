// Collectives on intercommunicators (MPI-3.1 5.2.2): two disjoint groups,
// where what one group's processes send is what the other group's receive.
// Each algorithm is a set of steps of a schedule made from an InterContext
// (schedule.hpp), which the blocking calls run and the nonblocking ones
// (MPI_Ibarrier ... MPI_Ireduce_scatter) start, as on intracommunicators.
// They follow the conventions of collectives.hpp (packed bytes, error
// classes, carrying on after an error so that no rank is left waiting).
//
// Messages between the groups travel on `remote`: received on this group's
// collective context, sent on the other group's, with the other group's rank
// numbers. A group's own steps (reducing its part before its leader passes it
// across, spreading what the leader received) run the intracommunicator
// algorithms on `local`. Both arrive on the same context and both number
// their senders from 0, so the local steps take tags from a tag base of their
// own (kLocalTagBase for the blocking calls, a second nonblocking range for
// the nonblocking ones): only the tag keeps local rank 1 apart from remote
// rank 1.
//
// Rooted calls take root as MPI defines it on an intercommunicator: MPI_ROOT
// at the root, MPI_PROC_NULL at the other members of the root's group (who
// take no part: no steps), and at the members of the other group the root's
// rank in the root's group. MPI_IN_PLACE is never accepted (the API layer
// refuses it).
//
// Algorithms, as MPICH's: broadcast and reduce go through the receiving,
// resp. sending, group's leader (rank 0) and a local broadcast, resp. reduce;
// gather and scatter are linear between the root and every remote rank
// (kMaxOutstanding messages per round); allreduce and reduce-scatter reduce
// locally, the leaders trade the results, then each group broadcasts, resp.
// scatters, what it got; a barrier is a local barrier, the leaders' handshake
// and a local broadcast; alltoall, and allgather as an alltoall of one block,
// are pairwise exchanges over max(local size, remote size) rounds.
//
// Every add_inter_* function starts and ends with the schedule addressing
// the local group.
#pragma once

#include <cstddef>
#include <span>

#include "coll/collectives.hpp"

namespace si::coll {

struct InterContext {
    Context remote;  // the other group: send_context set, comm numbering its ranks
    Context local;   // this group among itself, tags from their own base
};

// Tag base of a group's own steps in the blocking collectives.
inline constexpr int kLocalTagBase = kFirstFreeTag;

class Schedule;
void add_inter_barrier(Schedule& s);
// `bytes` is the same at the root and every member of the other group.
void add_inter_bcast(Schedule& s, void* buffer, std::size_t bytes, int root);
// recv, one block per remote rank, is used at the root only; send everywhere else.
void add_inter_gather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv, int root);
// send, one block per remote rank, is used at the root only; recv everywhere else.
void add_inter_scatter(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root);
// recv: one block per remote rank, each receiving that rank's send.
void add_inter_allgather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv);
// send[i] goes to remote rank i and recv[i] comes from it.
void add_inter_alltoall(Schedule& s, Blocks send, Blocks recv);
// The root receives in recv the reduction, in rank order, of the other
// group's sends; send is used in that group only. The schedule keeps its own
// copies of type and op, as in the intracommunicator reductions.
void add_inter_reduce(Schedule& s, const void* send, void* recv, std::size_t count,
                      const datatype::Type& type, const datatype::Op& op, int root);
// Every process receives the reduction of the other group's sends.
void add_inter_allreduce(Schedule& s, const void* send, void* recv, std::size_t count,
                         const datatype::Type& type, const datatype::Op& op);
// The reduction of the other group's sends (of as many items as counts,
// one per local rank, add up to), cut into blocks: local rank i receives
// counts[i] items into recv.
void add_inter_reduce_scatter(Schedule& s, const void* send, void* recv,
                              std::span<const std::size_t> counts, const datatype::Type& type,
                              const datatype::Op& op);
// The leaders send `mine` (their group's) to each other; then every member
// of a group has the other group's in `theirs`. For what the API layer
// agrees on across the groups (MPI_Comm_idup's context pairs).
void add_inter_exchange(Schedule& s, const void* mine, void* theirs, std::size_t bytes);

// The blocking calls the API layer runs through run_collective, whose
// entry points serve both kinds of communicator; the others build their
// schedules themselves.
[[nodiscard]] int barrier(const InterContext& ctx);
[[nodiscard]] int allreduce(const InterContext& ctx, const void* send, void* recv, int count,
                            const datatype::Type& type, const datatype::Op& op);
[[nodiscard]] int reduce_scatter(const InterContext& ctx, const void* send, void* recv,
                                 std::span<const int> counts, const datatype::Type& type,
                                 const datatype::Op& op);

}  // namespace si::coll
