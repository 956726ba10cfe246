#include "coll/schedule.hpp"

#include <utility>

namespace si::coll {

Schedule::Peers Schedule::peers_of(const Context& ctx, Tag tag) {
    Peers peers;
    peers.comm = ctx.comm;
    peers.context = ctx.context;
    peers.send_context = ctx.send_context.value_or(ctx.context);
    peers.tag = ctx.tag_base + static_cast<int>(tag);
    return peers;
}

// Every rank of a communicator makes the schedule of its blocking
// collectives in the same order, which NodeCollectives::prepare counts.
Schedule::Schedule(const Context& ctx, Tag tag)
    : engine_(ctx.engine),
      node_(ctx.node != nullptr && ctx.node->prepare(ctx) ? ctx.node : nullptr),
      groups_{peers_of(ctx, tag), Peers{}},
      detail_(ctx.detail),
      algorithms_(ctx.algorithms) {}

Schedule::Schedule(const InterContext& ctx, Tag tag)
    : engine_(ctx.local.engine),
      groups_{peers_of(ctx.local, tag), peers_of(ctx.remote, tag)},
      inter_(true),
      detail_(ctx.local.detail),
      algorithms_(ctx.local.algorithms) {}

void Schedule::address(Group group) {
    addressed_ = inter_ ? static_cast<std::size_t>(group) : 0;
}

Schedule::Step& Schedule::add(Step::Kind kind) {
    Step& step = steps_.emplace_back();
    step.kind = kind;
    return step;
}

Schedule::Owned& Schedule::owned() {
    if (!owned_) owned_ = std::make_unique<Owned>();
    return *owned_;
}

void Schedule::send(const void* data, std::size_t bytes, int peer, int label) {
    Step& step = add(Step::Kind::send);
    step.data = const_cast<void*>(data);
    step.bytes = bytes;
    step.peer = peer;
    step.label = label;
    step.group = static_cast<Group>(addressed_);
}

void Schedule::recv(void* data, std::size_t bytes, int peer, int label) {
    Step& step = add(Step::Kind::recv);
    step.data = data;
    step.bytes = bytes;
    step.peer = peer;
    step.label = label;
    step.group = static_cast<Group>(addressed_);
}

void Schedule::local(std::function<void()> run) {
    std::vector<std::function<void()>>& functions = owned().functions;
    functions.push_back(std::move(run));
    add(Step::Kind::local).bytes = functions.size() - 1;
}

void Schedule::keep(std::shared_ptr<const void> kept) {
    owned().kept.push_back(std::move(kept));
}

void Schedule::local_copy(void* to, const void* from, std::size_t bytes) {
    Step& step = add(Step::Kind::copy);
    step.data = to;
    step.from = from;
    step.bytes = bytes;
}

void Schedule::copy(void* to, std::size_t capacity, const void* from, std::size_t bytes) {
    Step& step = add(Step::Kind::checked_copy);
    step.data = to;
    step.capacity = capacity;
    step.from = from;
    step.bytes = bytes;
}

void Schedule::combine(const void* in, void* inout, std::size_t count) {
    Step& step = add(Step::Kind::combine);
    step.data = inout;
    step.from = in;
    step.bytes = count;
}

void Schedule::run_local(Step& step) {
    switch (step.kind) {
        case Step::Kind::copy: copy_bytes(step.data, step.from, step.bytes); break;
        case Step::Kind::checked_copy: {
            std::string what;
            if (const int error =
                    copy_to_self(rank(), step.data, step.capacity, step.from, step.bytes, what))
                fail(error, std::move(what));
            break;
        }
        case Step::Kind::combine:
            datatype::apply(*reduction_op_, *reduction_type_, step.from, step.data, step.bytes);
            break;
        default: owned_->functions[step.bytes](); break;
    }
}

void Schedule::next_round() {
    if (!steps_.empty()) steps_.back().ends_round = true;
}

std::byte* Schedule::scratch(std::size_t bytes) {
    const std::size_t rounded = (bytes + ScratchPool::kAlign - 1) / ScratchPool::kAlign * ScratchPool::kAlign;
    if (rounded <= kInlineScratch - inline_used_) {
        std::byte* at = inline_scratch_ + inline_used_;
        inline_used_ += rounded;
        return at;
    }
    return scratch_.emplace_back(ScratchPool::take(bytes)).get();
}

void Schedule::fail(int error, std::string what) {
    if (error_ != MPI_SUCCESS) return;
    error_ = error;
    if (detail_ != nullptr) *detail_ = std::move(what);
}

int Schedule::run() {
    if (node_call_) return coll::run_on_node(*node_, engine_, *node_call_, detail_);
    next_round();  // closes the last round
    // The caller progresses its receives itself, as MPI_Recv's: no helper
    // need watch them (p2p::Engine::irecv).
    blocking_ = true;
    engine_.run(*this);
    return error_;
}

void Schedule::detach() {
    next_round();
    if (detached_) return;
    detached_ = true;
    // Nobody waits for the description, and the communicator may go first.
    detail_ = nullptr;
    Owned& own = owned();
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        p2p::CommRef& comm = groups_[g].comm;
        own.world_of[g].assign(comm.world_of.begin(), comm.world_of.end());
        comm.world_of = own.world_of[g];
    }
    if (reduction_type_ != nullptr) reduction_type_ = &own.type.emplace(*reduction_type_);
    if (reduction_op_ != nullptr) reduction_op_ = &own.op.emplace(*reduction_op_);
}

p2p::Request* Schedule::start(std::unique_ptr<Schedule> schedule) {
    schedule->detach();
    p2p::Engine& engine = schedule->engine_;
    return engine.start(std::move(schedule));
}

std::size_t Schedule::round_end() const {
    std::size_t end = round_;
    while (!steps_[end].ends_round) ++end;
    return end + 1;
}

void Schedule::start_round(p2p::Engine& engine, std::size_t end) {
    for (std::size_t i = round_; i < end; ++i)
        if (!steps_[i].message()) run_local(steps_[i]);
    for (std::size_t i = round_; i < end; ++i) {
        Step& step = steps_[i];
        if (!step.message()) continue;
        const Peers& to = peers(step.group);
        const int tag = to.tag + step.label;
        if (step.kind == Step::Kind::recv) {
            step.request = engine.irecv_locked(step.data, step.bytes, step.peer, tag, to.comm,
                                               to.context, blocking_);
            continue;
        }
        // A send that leaves at once needs no request (round_finished skips it).
        const p2p::Tuple tuple{p2p::MessageKind::eager, to.send_context, to.comm.rank, tag};
        if (!engine.send_at_once_locked(step.data, step.bytes, to.comm.world_of[step.peer], tuple))
            step.request = engine.isend_locked(step.data, step.bytes, step.peer, tag, to.comm,
                                               to.send_context, p2p::SendMode::standard);
    }
    round_started_ = true;
    engine.count_collective_round();
}

bool Schedule::round_finished(p2p::Engine& engine, std::size_t end) {
    for (std::size_t i = round_; i < end; ++i) {
        const Step& step = steps_[i];
        if (step.request != nullptr && !step.request->complete.load(std::memory_order_acquire))
            return false;
    }
    for (std::size_t i = round_; i < end; ++i) {
        Step& step = steps_[i];
        if (step.request == nullptr) continue;
        const p2p::Completion result = step.request->result;
        engine.release_locked(step.request);
        step.request = nullptr;
        std::string what;
        if (step.kind == Step::Kind::recv) {
            if (const int error = check_receive(peers(step.group).comm.rank, result, step.bytes,
                                                what))
                fail(error, std::move(what));
        } else if (result.error != MPI_SUCCESS) {
            fail(result.error, "a send of the collective failed");
        }
    }
    return true;
}

bool Schedule::advance(p2p::Engine& engine) {
    while (round_ < steps_.size()) {
        const std::size_t end = round_end();
        if (!round_started_) start_round(engine, end);
        if (!round_finished(engine, end)) return false;
        round_ = end;
        round_started_ = false;
    }
    return true;
}

}  // namespace si::coll
