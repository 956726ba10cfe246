// Blocking collectives through a node's shared memory (node_area.hpp), for
// a communicator whose ranks all run on one node: no message, no matching,
// no request. Each rank copies its contribution into its own cell and
// publishes it with a sequence number; the ranks that need it read it
// straight from there. Flat: every reader reads every cell it needs, which
// beats the point-to-point trees on the few ranks of a node for the small
// messages they carry (coll/select.cpp decides, SI_COLL_<NAME>=shm forces).
//
//   barrier    each rank stores its control word, then waits for every
//              other rank's
//   bcast      the root publishes the buffer; the others copy it out
//   reduce     every rank publishes its input; the root combines them all
//   allreduce  every rank publishes its input, then combines them all, in
//              the same order as every other rank (in_0 op (in_1 op (... op
//              in_n-1))): rank order for a non-commutative operator, and the
//              same bits everywhere
//   gather     each rank but the root publishes its block; the root copies
//   scatter    the root publishes every other rank's block; each copies its
//   allgather  each rank publishes its block and copies the others'
//   alltoall   each rank publishes its blocks for the others; each copies
//              the one for itself out of every other rank's cell
//
// Blocking calls only: a rank waits in the call for what it reads, under
// the wait policy of every blocking call (Engine::run: it polls, with
// progress passes for the rank's point-to-point traffic, yields its core,
// and where the policy lets a blocked call sleep even with CPUs to spare,
// that is on an oversubscribed host or with a fixed SI_WAIT_SPIN_US, sleeps
// on its doorbell). There a rank that publishes rings the doorbells of the
// ranks that read what it published, and a rank that finishes those of the
// ranks it read (which may wait to reuse their cells), with the doorbell's
// protocol (wake/wake_word.hpp): the store into the area, then a
// read-modify-write of the doorbell that wakes the rank only if it armed
// it; the sleeper arms, then checks the area once more. Elsewhere ranks
// never sleep in these waits (they poll and yield, as the policy would),
// and nobody rings: the read-modify-write waits until the publishing store
// has reached the other cores, about 0.1 us of a broadcast's root (0.27 ->
// 0.17 us, osu_bcast 8 B, median, 2 ranks on the 2-vCPU VM). The
// nonblocking collectives run the point-to-point schedules, which any
// progress pass advances.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <atomic>
#include <vector>

#include "base/shm_segment.hpp"
#include "coll/collectives.hpp"
#include "coll/node_area.hpp"
#include "wake/wake_word.hpp"

namespace si::coll {

// The doorbells of a communicator's ranks (node::RankBlock::doorbell, on
// which a blocked call sleeps), by communicator rank, and whether its ranks
// may sleep in a wait for the area (then they are rung, see above): the
// same on every rank of a host (Engine::sleeps_with_cpus_to_spare).
struct NodeDoorbells {
    std::vector<std::atomic<std::uint32_t>*> of_rank;
    wake::Backend* backend = nullptr;
    bool sleepers = true;
    void ring(int rank) const {
        wake::wake_if_sleeping(*backend, *of_rank[static_cast<std::size_t>(rank)]);
    }
};

// The shared-memory collectives of one communicator of `size` ranks all on
// one node (made by the API layer, which knows where ranks run and where
// their doorbells are).
class NodeCollectives {
  public:
    // The communicator's collectives that run before the area is made.
    static constexpr int kCallsBeforeSetup = 3;

    NodeCollectives(std::string job_id, int rank, int size, NodeDoorbells doorbells)
        : job_id_(std::move(job_id)), rank_(rank), size_(size), doorbells_(std::move(doorbells)) {}
    NodeCollectives(const NodeCollectives&) = delete;
    NodeCollectives& operator=(const NodeCollectives&) = delete;

    // Called by every rank at the start of each blocking collective that
    // could run here (Schedule's constructor), in the same order: whether
    // the area is made (else the point-to-point algorithms run). At the
    // kCallsBeforeSetup'th call it makes it, a collective over `ctx` (whose
    // `node` it ignores).
    [[nodiscard]] bool prepare(const Context& ctx);
    NodeArea& area() { return area_; }
    const NodeDoorbells& doorbells() const { return doorbells_; }

  private:
    enum class State : unsigned char { counting, ready, unavailable };
    void set_up(const Context& ctx);

    std::string job_id_;
    int rank_;
    int size_;
    NodeDoorbells doorbells_;
    State state_ = State::counting;
    int calls_ = 0;
    SharedSegment segment_;
    NodeArea area_;
};

// One blocking collective on a node's area: the arguments of the
// collectives.hpp function of the same name, in packed bytes.
struct NodeCall {
    enum class Kind : unsigned char {
        barrier,
        bcast,
        reduce,
        allreduce,
        gather,
        scatter,
        allgather,
        alltoall
    };
    Kind kind = Kind::barrier;
    int root = 0;
    // bcast: the buffer; reduce, allreduce: the input (MPI_IN_PLACE: in
    // recv); gather, allgather: this rank's block (MPI_IN_PLACE: already in
    // recv_blocks).
    const void* send = nullptr;
    std::size_t send_bytes = 0;
    // reduce, allreduce: the result; scatter: this rank's block
    // (MPI_IN_PLACE at the root: stays in send_blocks).
    void* recv = nullptr;
    std::size_t recv_bytes = 0;
    Blocks send_blocks = {};  // scatter (root), alltoall (empty: MPI_IN_PLACE)
    Blocks recv_blocks = {};  // gather (root), allgather, alltoall
    // reduce, allreduce
    std::size_t count = 0;
    const datatype::Type* type = nullptr;
    const datatype::Op* op = nullptr;
};

// Runs `call` on the area of `node` (made: prepare() said so) from the
// calling thread until it is over (the wait policy of Engine::run); an
// error class, described in *detail if not null. Every rank of the
// communicator must run the same call.
[[nodiscard]] int run_on_node(NodeCollectives& node, p2p::Engine& engine, const NodeCall& call,
                              std::string* detail);

}  // namespace si::coll
