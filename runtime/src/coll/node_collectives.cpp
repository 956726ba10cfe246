// The collectives of node_collectives.hpp: one activity per call, run from
// the calling thread by Engine::run, in three phases: publish this rank's
// contribution (once its cell is free) and ring its readers, read the
// contributions it needs in a fixed order, finish and ring the ranks it
// read. A wait checks a few times, then returns so that the engine makes a
// progress pass and applies its wait policy.
#include "coll/node_collectives.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/cpu.hpp"
#include "coll/channel.hpp"
#include "datatype/op.hpp"

namespace si::coll {

namespace {

using Kind = NodeCall::Kind;

// Checks of a wait in the first advance(), a pause between them, before
// the engine takes over: a peer a few hundred nanoseconds behind (two ranks
// in step) is caught here. Later advances check once: the engine's loop
// pauses between its passes, and after a few dozen empty ones yields the
// core or sleeps, which an oversubscribed core's other ranks need soon
// (a pause costs about 60 ns on the 2-vCPU VM: a longer spin here would
// hold the core for microseconds per pass).
constexpr int kFirstChecks = 16;

class NodeRun final : public p2p::Activity {
  public:
    NodeRun(NodeCollectives& node, const NodeCall& call)
        : area_(node.area()),
          doorbells_(node.doorbells()),
          call_(call),
          n_(area_.size()),
          r_(area_.rank()) {
        plan();
    }

    bool advance(p2p::Engine& engine) override;
    int result() const override { return error_; }
    // Where nobody rings, the engine must not sleep (node_collectives.hpp).
    bool polls_memory() const override { return !doorbells_.sleepers; }
    const std::string& what() const { return what_; }

  private:
    enum class Phase : unsigned char { start, publish, read, arrive, over };

    bool rooted_here() const { return r_ == call_.root; }
    // What this rank does in the call (below), decided once.
    void plan();
    // The rank read after j.
    int after(int j) const {
        j += step_;
        return j == n_ ? 0 : (j < 0 ? n_ - 1 : j);
    }
    void start();
    void write(std::byte* cell, std::size_t& bytes);
    void consume(int j, const std::byte* data, std::size_t bytes);
    bool advance_barrier();
    bool publish();
    bool read();
    // Whether ready() holds, checking kFirstChecks times in the first
    // advance() that waits, once in later ones.
    template <typename Ready>
    bool wait_briefly(Ready ready) {
        for (; checks_ > 1; --checks_) {
            if (ready()) return true;
            cpu_relax();
        }
        return ready();
    }
    // Copies a contribution of `bytes` into room for `expected` (the size
    // rules of a receive, check_receive).
    void take(int j, void* to, std::size_t expected, const std::byte* from, std::size_t bytes);
    void mismatch(int j, std::size_t expected, std::size_t bytes);
    // Rings the doorbells of the ranks that may wait for what this rank
    // published (its readers) or finished (the ranks it read, whose cells
    // it may have kept them from reusing).
    void ring_readers() const;
    void ring_sources() const;
    void fail(int error, std::string what) {
        if (error_ != MPI_SUCCESS) return;
        error_ = error;
        what_ = std::move(what);
    }

    NodeArea& area_;
    const NodeDoorbells& doorbells_;
    const NodeCall& call_;
    const int n_;
    const int r_;
    // The plan: whether this rank publishes, who reads what it publishes
    // (its cell's readers, for the cell's reuse: NodeArea), how many ranks
    // it reads, the first and the direction (+1 or -1) of the rest.
    bool publishes_ = false;
    int readers_ = NodeArea::kEveryRank;
    int sources_ = 0;
    int first_ = 0;
    int step_ = 1;
    Phase phase_ = Phase::start;
    std::uint64_t t_ = 0;
    int read_ = 0;  // sources read so far
    int next_ = 0;  // the next source to read
    int checks_ = kFirstChecks;
    int error_ = MPI_SUCCESS;
    std::string what_;
};

// The reductions read from the last rank down, so that every rank combines
// the same operands in the same order (in_0 op (in_1 op (...))); the others
// start after this rank, so that the ranks do not all read one cell first.
void NodeRun::plan() {
    const bool root = rooted_here();
    switch (call_.kind) {
        case Kind::barrier: break;
        case Kind::bcast:
        case Kind::scatter:
            publishes_ = root;
            sources_ = root ? 0 : 1;
            first_ = call_.root;
            break;
        case Kind::gather:
            publishes_ = !root;
            readers_ = call_.root;
            sources_ = root ? n_ - 1 : 0;
            first_ = after(call_.root);
            break;
        case Kind::reduce:
        case Kind::allreduce:
            publishes_ = true;
            if (call_.kind == Kind::reduce) readers_ = call_.root;
            sources_ = call_.kind == Kind::allreduce || root ? n_ : 0;
            first_ = n_ - 1;
            step_ = -1;
            break;
        case Kind::allgather:
        case Kind::alltoall:
            publishes_ = true;
            sources_ = n_ - 1;
            first_ = after(r_);
            break;
    }
    next_ = first_;
}

// This rank's own block, where it is copied rather than read.
void NodeRun::start() {
    const Blocks recv = call_.recv_blocks;
    const Blocks send = call_.send_blocks;
    const auto mine = static_cast<std::size_t>(r_);
    std::string what;
    int error = MPI_SUCCESS;
    switch (call_.kind) {
        case Kind::gather:
            if (rooted_here() && call_.send != MPI_IN_PLACE)
                error = copy_to_self(r_, recv[mine].data, recv[mine].bytes, call_.send,
                                     call_.send_bytes, what);
            break;
        case Kind::scatter:
            if (rooted_here() && call_.recv != MPI_IN_PLACE)
                error = copy_to_self(r_, call_.recv, call_.recv_bytes, send[mine].data,
                                     send[mine].bytes, what);
            break;
        case Kind::allgather:
            if (call_.send != MPI_IN_PLACE)
                error = copy_to_self(r_, recv[mine].data, recv[mine].bytes, call_.send,
                                     call_.send_bytes, what);
            break;
        case Kind::alltoall:
            if (!send.empty())
                error = copy_to_self(r_, recv[mine].data, recv[mine].bytes, send[mine].data,
                                     send[mine].bytes, what);
            break;
        default: break;
    }
    if (error != MPI_SUCCESS) fail(error, std::move(what));
}

// This rank's contribution into its cell; `bytes` is what the header says
// (for the cells of several blocks, the size of one).
void NodeRun::write(std::byte* cell, std::size_t& bytes) {
    switch (call_.kind) {
        case Kind::bcast:
        case Kind::gather:
            bytes = call_.send_bytes;
            copy_bytes(cell, call_.send, bytes);
            break;
        case Kind::reduce:
        case Kind::allreduce:
            bytes = call_.type->bytes(call_.count);
            copy_bytes(cell, call_.send == MPI_IN_PLACE ? call_.recv : call_.send, bytes);
            break;
        case Kind::allgather: {
            const Block& own = call_.recv_blocks[static_cast<std::size_t>(r_)];
            const bool in_place = call_.send == MPI_IN_PLACE;
            bytes = in_place ? own.bytes : call_.send_bytes;
            copy_bytes(cell, in_place ? own.data : call_.send, bytes);
            break;
        }
        case Kind::scatter:
        case Kind::alltoall: {
            // Block j at j times the block size: every block of the plain
            // forms has the same size (the v and w forms do not come here).
            const Blocks blocks = call_.send_blocks.empty() ? call_.recv_blocks : call_.send_blocks;
            bytes = blocks[static_cast<std::size_t>(r_)].bytes;
            for (int j = 0; j < n_; ++j) {
                if (j == r_) continue;
                const Block& b = blocks[static_cast<std::size_t>(j)];
                copy_bytes(cell + static_cast<std::size_t>(j) * bytes, b.data, std::min(b.bytes, bytes));
            }
            break;
        }
        default: break;
    }
}

void NodeRun::take(int j, void* to, std::size_t expected, const std::byte* from,
                   std::size_t bytes) {
    copy_bytes(to, from, std::min(bytes, expected));
    if (bytes != expected) mismatch(j, expected, bytes);
}

void NodeRun::mismatch(int j, std::size_t expected, std::size_t bytes) {
    std::string what;
    const p2p::Completion got{j, 0, bytes > expected ? MPI_ERR_TRUNCATE : MPI_SUCCESS, bytes};
    if (const int error = check_receive(r_, got, expected, what)) fail(error, std::move(what));
}

void NodeRun::consume(int j, const std::byte* data, std::size_t bytes) {
    const auto from = static_cast<std::size_t>(j);
    const auto mine = static_cast<std::size_t>(r_);
    switch (call_.kind) {
        case Kind::bcast: take(j, call_.recv, call_.recv_bytes, data, bytes); break;
        case Kind::scatter:
            take(j, call_.recv, call_.recv_bytes, data + mine * bytes, bytes);
            break;
        case Kind::gather:
        case Kind::allgather: {
            const Block& to = call_.recv_blocks[from];
            take(j, to.data, to.bytes, data, bytes);
            break;
        }
        case Kind::alltoall: {
            const Block& to = call_.recv_blocks[from];
            take(j, to.data, to.bytes, data + mine * bytes, bytes);
            break;
        }
        case Kind::reduce:
        case Kind::allreduce: {
            const std::size_t expected = call_.type->bytes(call_.count);
            if (bytes != expected) {  // reported; that input is left out
                mismatch(j, expected, bytes);
                break;
            }
            if (read_ == 0)
                copy_bytes(call_.recv, data, bytes);
            else
                datatype::apply(*call_.op, *call_.type, data, call_.recv, call_.count);
            break;
        }
        default: break;
    }
}

void NodeRun::ring_readers() const {
    if (!doorbells_.sleepers) return;
    if (readers_ != NodeArea::kEveryRank) {
        if (readers_ != r_) doorbells_.ring(readers_);
        return;
    }
    for (int j = 0; j < n_; ++j)
        if (j != r_) doorbells_.ring(j);
}

void NodeRun::ring_sources() const {
    if (!doorbells_.sleepers) return;
    for (int i = 0, j = first_; i < sources_; ++i, j = after(j))
        if (j != r_) doorbells_.ring(j);
}

// Every rank stored its control word on arrival: wait for the others'.
bool NodeRun::advance_barrier() {
    for (; read_ < n_ - 1; ++read_) {
        const int j = (r_ + 1 + read_) % n_;
        if (!wait_briefly([&] { return area_.finished(j, t_); })) return false;
    }
    return true;
}

// Publishes this rank's contribution once its cell is free; false: not yet.
bool NodeRun::publish() {
    if (!wait_briefly([this] { return area_.cell_free(t_); })) return false;
    std::size_t bytes = 0;
    write(area_.cell_data(t_), bytes);
    area_.publish(t_, bytes, readers_);
    ring_readers();
    return true;
}

// Reads the contributions still to read, in order; false: one is not there.
bool NodeRun::read() {
    for (; read_ < sources_; ++read_, next_ = after(next_)) {
        const int j = next_;
        const std::byte* data = nullptr;
        std::size_t bytes = 0;
        if (!wait_briefly([&] { return (data = area_.contribution(j, t_, bytes)) != nullptr; }))
            return false;
        consume(j, data, bytes);
    }
    if (sources_ > 0) {
        area_.finish(t_);
        ring_sources();
    }
    return true;
}

bool NodeRun::advance(p2p::Engine& engine) {
    if (phase_ == Phase::start) {
        engine.add_stat(&p2p::Stats::collectives_on_node);
        t_ = area_.begin();
        if (call_.kind == Kind::barrier) {
            area_.finish(t_);  // arrived
            for (int j = 0; j < n_ && doorbells_.sleepers; ++j)
                if (j != r_) doorbells_.ring(j);
            phase_ = Phase::arrive;
        } else {
            start();
            phase_ = publishes_ ? Phase::publish : Phase::read;
        }
    }
    if (phase_ == Phase::arrive) {
        if (!advance_barrier()) return false;
        phase_ = Phase::over;
    }
    if (phase_ == Phase::publish) {
        if (!publish()) return false;
        phase_ = Phase::read;
    }
    if (phase_ == Phase::read) {
        if (!read()) return false;
        phase_ = Phase::over;
    }
    return true;
}

}  // namespace

int run_on_node(NodeCollectives& node, p2p::Engine& engine, const NodeCall& call,
                std::string* detail) {
    NodeRun run(node, call);
    engine.run(run);
    if (run.result() != MPI_SUCCESS && detail != nullptr) *detail = run.what();
    return run.result();
}

}  // namespace si::coll
