// Blocking collectives over the point-to-point engine.
//
// Every message travels on the communicator's collective context, which the
// API layer allocates next to its point-to-point context, so collective
// traffic never matches a user's receive. Within that context each operation
// has its own tag. Blocking collectives on one communicator are started in
// the same order on every rank (MPI requires it), and the engine delivers
// messages between two ranks in order, so successive calls cannot take each
// other's messages.
//
// Buffers are described in packed bytes (datatype.hpp; the API layer packs
// non-contiguous types), except for reductions, which need the datatype and
// operator. MPI_IN_PLACE is accepted where the standard allows it.
//
// Every function returns an MPI error class. A receive that gets more bytes
// than expected yields MPI_ERR_TRUNCATE and one that gets fewer yields
// MPI_ERR_COUNT (both mean the ranks passed different counts or datatypes);
// the rank carries on with the algorithm regardless, so that the other ranks
// are not left waiting, and reports the first error at the end.
//
// Every collective but the neighbourhood ones is a schedule (schedule.hpp)
// the progress engine advances, which the nonblocking calls share; the
// neighbourhood collectives run their messages from the calling thread.
//
// Algorithms: dissemination barrier; binomial-tree broadcast and reduce
// (ordered by rank for non-commutative operators); allreduce as reduce then
// broadcast, or for large commutative ones pairwise reduce-scatter then ring
// allgather, so every rank gets bit-identical floating-point results; linear
// gather and scatter, kMaxOutstanding requests per round; ring allgather;
// pairwise-exchange alltoall; every neighbour at once for the neighbourhood
// collectives; reduce-scatter as reduce then scatter, or pairwise;
// recursive-doubling scan. The versions for intercommunicators are in
// intercomm.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/config.hpp"
#include "base/inline_vector.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"
#include "p2p/engine.hpp"

namespace si::coll {

class NodeCollectives;

struct Context {
    p2p::Engine& engine;
    // By value (a few words): a Context may outlive the expression that made
    // it, e.g. when returned from a helper that calls Communicator::ref().
    p2p::CommRef comm;
    std::uint16_t context;  // the communicator's collective context id
    // If set, receives a description of the first error, which the API layer
    // puts after the name of the call in its error message.
    std::string* detail = nullptr;
    // Added to every tag of the call: traffic that must not match the
    // communicator's own collectives (MPI_Comm_create_group, which only part
    // of a communicator runs) uses a range above theirs.
    int tag_base = 0;
    // Between the two groups of an intercommunicator (intercomm.hpp): the
    // context the other group receives on, which sends go out on; comm then
    // numbers the other group's ranks. Unset, sends use `context` too.
    std::optional<std::uint16_t> send_context = std::nullopt;
    // SI_COLL_<NAME>: the algorithm each collective runs (select.hpp).
    config::CollectiveAlgorithms algorithms = {};
    // The shared-memory collectives of a communicator whose ranks share a
    // node (node_collectives.hpp), for the blocking calls of the program
    // only: every rank must make the same calls with it, in the same order.
    NodeCollectives* node = nullptr;
};

// The collectives' own tags stay below this; tag bases are multiples of it.
inline constexpr int kFirstFreeTag = 1024;

// Requests one rank keeps in flight at most during a linear gather/scatter
// (a round of their schedules).
inline constexpr int kMaxOutstanding = 32;

// One rank's share of a gather, scatter, allgather or alltoall: where its
// bytes are, or go, in this rank's buffer. The plain calls give every rank the
// same size at a regular stride; the MPI_*v and MPI_*w calls give each its own.
struct Block {
    void* data;
    std::size_t bytes;
};
using Blocks = std::span<const Block>;

// The blocks of one call, inside the object for up to kInlineBlocks ranks,
// so that a blocking call on a small communicator allocates none.
inline constexpr std::size_t kInlineBlocks = 16;
using BlockList = InlineVector<Block, kInlineBlocks>;

// n blocks of `bytes` each, back to back from `base`.
BlockList regular_blocks(const void* base, int n, std::size_t bytes);

[[nodiscard]] int barrier(const Context& ctx);

// `bytes` must be the same on every rank.
[[nodiscard]] int bcast(const Context& ctx, void* buffer, std::size_t bytes, int root);

// The same algorithms as steps of a schedule (schedule.hpp), which the
// blocking calls above run and the nonblocking ones (MPI_Ibarrier, ...)
// start, after adding steps of their own (unpacking, say).
class Schedule;
void add_barrier(Schedule& s);
void add_bcast(Schedule& s, void* buffer, std::size_t bytes, int root);
// `equal`: every rank's block has the same size, as in the plain forms (not
// the v and w ones), which every rank knows, so that all choose the same
// algorithm (select.hpp).
void add_gather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv, int root,
                bool equal);
void add_scatter(Schedule& s, Blocks send, void* recv, std::size_t recv_bytes, int root,
                 bool equal);
void add_allgather(Schedule& s, const void* send, std::size_t send_bytes, Blocks recv);
void add_alltoall(Schedule& s, Blocks send, Blocks recv, bool equal);
// The reductions (reduce.cpp), with the arguments of the blocking calls below;
// the schedule keeps its own copies of type and op.
void add_reduce(Schedule& s, const void* send, void* recv, std::size_t count,
                const datatype::Type& type, const datatype::Op& op, int root);
void add_allreduce(Schedule& s, const void* send, void* recv, std::size_t count,
                   const datatype::Type& type, const datatype::Op& op);
void add_reduce_scatter(Schedule& s, const void* send, void* recv,
                        std::span<const std::size_t> counts, const datatype::Type& type,
                        const datatype::Op& op);
void add_scan(Schedule& s, const void* send, void* recv, std::size_t count,
              const datatype::Type& type, const datatype::Op& op, bool exclusive);

// Tag bases of nonblocking collectives: the `sequence`th one started on a
// communicator gets a range of its own, above those of
// MPI_Comm_create_group (api/comm.cpp), so that collectives in flight at
// once never take each other's messages. Every rank starts a
// communicator's collectives in the same order, so they agree on it.
inline constexpr int kNonblockingTagRanges = (1 << 17) - 1;
inline int nonblocking_tag_base(std::uint32_t sequence) {
    return kFirstFreeTag * (1 + (1 << 17) + static_cast<int>(sequence % kNonblockingTagRanges));
}

// send may be MPI_IN_PLACE at the root (the input is then in recv); recv is
// used at the root only.
[[nodiscard]] int reduce(const Context& ctx, const void* send, void* recv, int count,
                         const datatype::Type& type, const datatype::Op& op, int root);

// send may be MPI_IN_PLACE (the input is then in recv).
[[nodiscard]] int allreduce(const Context& ctx, const void* send, void* recv, int count,
                            const datatype::Type& type, const datatype::Op& op);

// recv (one block per rank) is used at the root only; send may be
// MPI_IN_PLACE at the root, whose block is then already in place.
[[nodiscard]] int gather(const Context& ctx, const void* send, std::size_t send_bytes,
                         Blocks recv, int root);

// send (one block per rank) is used at the root only; recv may be
// MPI_IN_PLACE at the root, whose block then stays in send.
[[nodiscard]] int scatter(const Context& ctx, Blocks send, void* recv, std::size_t recv_bytes,
                          int root);

// send may be MPI_IN_PLACE (this rank's block is then already in recv).
[[nodiscard]] int allgather(const Context& ctx, const void* send, std::size_t send_bytes,
                            Blocks recv);

// send[i] goes to rank i and recv[i] comes from it. An empty send means
// MPI_IN_PLACE: every block of recv is sent, then replaced by the one received.
[[nodiscard]] int alltoall(const Context& ctx, Blocks send, Blocks recv);

// A neighbour in a neighbourhood collective. Messages between the same two
// ranks are matched in order within one label; labels (0 to
// kMaxNeighborLabel) let a topology say which is which.
struct Edge {
    int rank;  // MPI_PROC_NULL: nothing is sent or received, the block is untouched
    int label;
};
inline constexpr int kMaxNeighborLabel = 1000;

// send[k] goes to out[k] and recv[k] comes from in[k], all at once (a
// schedule with Tag::neighbor; blocks for MPI_PROC_NULL are left alone).
void add_neighbor_exchange(Schedule& s, std::span<const Edge> in, Blocks recv,
                           std::span<const Edge> out, Blocks send);

// The element-wise reduction of every rank's send (the sum of counts items,
// never MPI_IN_PLACE here), cut into blocks: rank i receives counts[i] items
// into recv.
[[nodiscard]] int reduce_scatter(const Context& ctx, const void* send, void* recv,
                                 std::span<const int> counts, const datatype::Type& type,
                                 const datatype::Op& op);

// Inclusive prefix reduction (MPI_Scan): rank r receives send(0) op ... op
// send(r). Exclusive (MPI_Exscan): send(0) op ... op send(r - 1), and rank 0's
// recv is left as it was. send may be MPI_IN_PLACE (the input is then in recv).
[[nodiscard]] int scan(const Context& ctx, const void* send, void* recv, int count,
                       const datatype::Type& type, const datatype::Op& op, bool exclusive);

}  // namespace si::coll
