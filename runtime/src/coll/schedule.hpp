// A collective algorithm as data: rounds of sends, receives and local steps,
// each round starting when the one before has finished. The progress engine
// advances it (p2p/activity.hpp), so the same schedule serves the blocking
// call (run(): started and waited for) and the nonblocking one (start():
// a request the application completes with MPI_Test/MPI_Wait), and a
// nonblocking collective moves on whenever anything progresses the rank:
// MPI_Test, another blocked call, the progress thread, or an interrupt
// thread woken by a helper for one of its receives (a nonblocking call's are
// not `blocking`, so SmartInterrupts' helpers watch them).
//
//   Schedule s(ctx, Tag::bcast);
//   s.recv(buffer, bytes, parent);
//   s.next_round();
//   for (int child : children) s.send(buffer, bytes, child);
//   return s.run();
//
// A schedule made from an InterContext (intercomm.hpp) addresses two groups
// of peers, each with its own rank numbers, receive and send contexts and
// tag: the local group (the intercommunicator's collective context, only
// this group receiving on it, tags from the local tag base) and the remote
// group (received on the same context, sent on the other group's, with the
// call's own tags). A step belongs to the group addressed when it was added
// (address()), which is also the group rank() and size() describe, so the
// intracommunicator algorithms build a group's own steps unchanged. Both
// groups' messages arrive on one context numbered from 0, so their tags,
// never their ranks, keep them apart.
//
// A blocking call's schedule allocates nothing on a small communicator: it
// lives on the caller's stack with its steps inline (kInlineSteps), its
// temporaries inline or from the calling thread's cache (ScratchPool), and
// it refers to the call's datatype, operator and ranks, which cannot go
// away while the call runs. What a nonblocking schedule must own because
// the program may free those meanwhile (copies of the datatype, operator and
// ranks, the packed buffers it keeps, its functions) is made when it is
// started (detach()), once per call.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/inline_vector.hpp"
#include "coll/channel.hpp"
#include "coll/collectives.hpp"
#include "coll/intercomm.hpp"
#include "coll/node_collectives.hpp"
#include "coll/scratch_pool.hpp"
#include "datatype/op.hpp"
#include "p2p/activity.hpp"

namespace si::coll {

class Schedule final : public p2p::Activity {
  public:
    // The peers a step addresses (see above).
    enum class Group : unsigned char { local, remote };

    // Keeps what it needs of ctx; start() copies the communicator's ranks
    // too (a communicator may be freed while its collectives run).
    Schedule(const Context& ctx, Tag tag);
    // Both groups of an intercommunicator; steps address the local one
    // until address() says otherwise.
    Schedule(const InterContext& ctx, Tag tag);
    Schedule(const Schedule&) = delete;  // steps may point into inline_scratch_
    Schedule& operator=(const Schedule&) = delete;

    // Steps added from now on go to `group` (remote: intercommunicators only).
    void address(Group group);
    // This process's rank in, and the size of, the group addressed. On the
    // remote group, rank() is still this process's rank in its own group.
    int rank() const { return groups_[addressed_].comm.rank; }
    int size() const { return groups_[addressed_].comm.size(); }
    // SI_COLL_<NAME>, for the algorithms to choose from (select.hpp).
    const config::CollectiveAlgorithms& algorithms() const { return algorithms_; }
    // A blocking call on a communicator whose ranks share a node may run on
    // the node's shared area (node_collectives.hpp) instead of steps: the
    // room of one of its cells while it may (its area is made and nothing
    // was added yet, so that the call is a whole collective, not a part of
    // another's), else 0. Then run_on_node() records the call, which run()
    // runs instead of the steps.
    std::size_t node_cell_bytes() const {
        return node_ != nullptr && steps_.empty() && !node_call_ ? node_->area().cell_bytes() : 0;
    }
    void run_on_node(const NodeCall& call) { node_call_ = call; }

    // Steps of the current round. `label` is added to the tag (0 to
    // kMaxNeighborLabel, with Tag::neighbor only).
    void send(const void* data, std::size_t bytes, int peer, int label = 0);
    // The receive must bring exactly `bytes` (else MPI_ERR_TRUNCATE or
    // MPI_ERR_COUNT, and the schedule carries on so no peer is left waiting).
    void recv(void* data, std::size_t bytes, int peer, int label = 0);
    // Local steps run when their round starts, in order, before its messages
    // are posted. Copies and reductions are data (no allocation per step);
    // anything else is a function, kept until the schedule ends (nonblocking
    // calls only: it allocates).
    void local(std::function<void()> step);
    void local_copy(void* to, const void* from, std::size_t bytes);
    // inout = in op inout over `count` items, with the schedule's reduction
    // (keep_reduction).
    void combine(const void* in, void* inout, std::size_t count);
    // A local copy standing for a message to oneself, held to the same size
    // rule as a receive (MPI_ERR_TRUNCATE, MPI_ERR_COUNT).
    void copy(void* to, std::size_t capacity, const void* from, std::size_t bytes);
    // The datatype and operator of the schedule's reductions. Referred to
    // while the call builds and runs it; detach() copies them, since MPI
    // lets the program free the handles while a nonblocking collective runs.
    void keep_reduction(const datatype::Type& type, const datatype::Op& op) {
        reduction_type_ = &type;
        reduction_op_ = &op;
    }
    // Keeps `owned` (packed buffers, say) alive as long as the schedule.
    void keep(std::shared_ptr<const void> owned);
    // Later steps wait for every step so far.
    void next_round();
    // Memory that lives as long as the schedule (packed data, temporaries),
    // 64-byte aligned, from the ScratchPool.
    std::byte* scratch(std::size_t bytes);

    // Blocking: starts the schedule and waits for it; the error class, its
    // description in ctx.detail.
    int run();
    // Nonblocking: hands the schedule to the engine; the request completes
    // with its error class (no description: ctx.detail is not kept).
    static p2p::Request* start(std::unique_ptr<Schedule> schedule);
    // What start() does before the engine takes the schedule: closes the
    // last round, copies the ranks of both groups and the reduction's
    // datatype and operator, and drops ctx.detail. For a schedule that
    // another activity advances itself, by calling advance() from its own
    // (api/comm_idup.cpp).
    void detach();

    bool advance(p2p::Engine& engine) override;
    int result() const override { return error_; }

  private:
    // Plain data, so that a schedule holds its steps without constructing
    // or destroying anything per step.
    struct Step {
        enum class Kind : unsigned char { send, recv, local, copy, checked_copy, combine };
        Kind kind;
        bool ends_round = false;
        Group group = Group::local;  // messages: whose ranks `peer` numbers
        int peer = 0;
        int label = 0;  // added to the tag (neighbourhood collectives: Edge::label)
        void* data = nullptr;  // a message's buffer; a local step's destination
        std::size_t bytes = 0;  // a message's or copy's bytes; combine: items; local: function index
        const void* from = nullptr;  // copies and combine: the source
        std::size_t capacity = 0;    // checked_copy: room at data
        p2p::Request* request = nullptr;
        bool message() const { return kind == Kind::send || kind == Kind::recv; }
    };
    static_assert(std::is_trivially_copyable_v<Step>);
    Step& add(Step::Kind kind);
    void run_local(Step& step);
    void fail(int error, std::string what);
    // One past the last step of the round that starts at steps_[round_].
    std::size_t round_end() const;
    void start_round(p2p::Engine& engine, std::size_t end);
    // True once every message of the current round is done (taken and released).
    bool round_finished(p2p::Engine& engine, std::size_t end);

    // One group of peers: its ranks, the contexts its messages arrive and
    // leave on, and their tag. comm.world_of is the communicator's until
    // detach(), then the schedule's copy.
    struct Peers {
        p2p::CommRef comm;
        std::uint16_t context = 0;
        std::uint16_t send_context = 0;
        int tag = 0;
    };
    static Peers peers_of(const Context& ctx, Tag tag);
    const Peers& peers(Group group) const { return groups_[static_cast<std::size_t>(group)]; }

    p2p::Engine& engine_;
    NodeCollectives* node_ = nullptr;  // a blocking call's, once its communicator's area is made
    std::optional<NodeCall> node_call_;
    std::array<Peers, 2> groups_;  // by Group; the remote one unused on an intracommunicator
    bool inter_ = false;
    std::size_t addressed_ = 0;  // the Group new steps get, as an index
    std::string* detail_;
    config::CollectiveAlgorithms algorithms_;

    // Enough for the algorithms' steps on up to about 16 ranks (a Bruck
    // all-to-all on 8 ranks takes 46), on the heap beyond.
    static constexpr std::size_t kInlineSteps = 32;
    InlineVector<Step, kInlineSteps> steps_;
    std::size_t round_ = 0;  // steps_ index where the current round begins
    bool round_started_ = false;
    bool blocking_ = false;  // run(): its receives are the caller's to progress
    bool detached_ = false;
    InlineVector<ScratchPool::Buffer, 4> scratch_;
    // Small temporaries (an 8-byte allreduce's) live in the schedule itself.
    static constexpr std::size_t kInlineScratch = 256;
    alignas(ScratchPool::kAlign) std::byte inline_scratch_[kInlineScratch];
    std::size_t inline_used_ = 0;
    const datatype::Type* reduction_type_ = nullptr;
    const datatype::Op* reduction_op_ = nullptr;
    // What a started schedule owns (detach(), local(), keep()): none for a
    // blocking call.
    struct Owned {
        std::array<std::vector<int>, 2> world_of;  // by Group
        std::optional<datatype::Type> type;
        std::optional<datatype::Op> op;
        std::vector<std::function<void()>> functions;  // local steps'
        std::vector<std::shared_ptr<const void>> kept;
    };
    Owned& owned();
    std::unique_ptr<Owned> owned_;
    int error_ = MPI_SUCCESS;
};

}  // namespace si::coll
