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
          r_(area_.rank()) {}

    bool advance(p2p::Engine& engine) override;
    int result() const override { return error_; }
    const std::string& what() const { return what_; }

  private:
    enum class Phase : unsigned char { start, publish, read, arrive, over };

    bool rooted_here() const { return r_ == call_.root; }
    bool publishes() const;
    int readers() const;
    bool reads() const { return sources() > 0; }
    int sources() const;
    int source(int i) const;
    void start();
    void write(std::byte* cell, std::size_t& bytes);
    void consume(int j, const std::byte* data, std::size_t bytes);
    bool advance_barrier();
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
    Phase phase_ = Phase::start;
    std::uint64_t t_ = 0;
    int next_ = 0;  // the next source to read
    int checks_ = kFirstChecks;
    int error_ = MPI_SUCCESS;
    std::string what_;
};

bool NodeRun::publishes() const {
    switch (call_.kind) {
        case Kind::barrier: return false;
        case Kind::bcast:
        case Kind::scatter: return rooted_here();
        case Kind::gather: return !rooted_here();
        default: return true;
    }
}

// Who reads this rank's cell in this call, for its reuse (NodeArea).
int NodeRun::readers() const {
    return call_.kind == Kind::reduce || call_.kind == Kind::gather ? call_.root
                                                                    : NodeArea::kEveryRank;
}

int NodeRun::sources() const {
    switch (call_.kind) {
        case Kind::barrier: return 0;
        case Kind::bcast:
        case Kind::scatter: return rooted_here() ? 0 : 1;
        case Kind::gather: return rooted_here() ? n_ - 1 : 0;
        case Kind::reduce: return rooted_here() ? n_ : 0;
        case Kind::allreduce: return n_;
        default: return n_ - 1;
    }
}

// The i'th rank to read. The reductions fold from the last rank down, so
// that every rank combines the same operands in the same order; the others
// start after this rank, so that ranks do not all read one cell first.
int NodeRun::source(int i) const {
    switch (call_.kind) {
        case Kind::bcast:
        case Kind::scatter: return call_.root;
        case Kind::reduce:
        case Kind::allreduce: return n_ - 1 - i;
        case Kind::gather: return (call_.root + 1 + i) % n_;
        default: return (r_ + 1 + i) % n_;
    }
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
            if (next_ == 0)
                copy_bytes(call_.recv, data, bytes);
            else
                datatype::apply(*call_.op, *call_.type, data, call_.recv, call_.count);
            break;
        }
        default: break;
    }
}

void NodeRun::ring_readers() const {
    const int readers_of = readers();
    if (readers_of != NodeArea::kEveryRank) {
        if (readers_of != r_) doorbells_.ring(readers_of);
        return;
    }
    for (int j = 0; j < n_; ++j)
        if (j != r_) doorbells_.ring(j);
}

void NodeRun::ring_sources() const {
    for (int i = 0; i < sources(); ++i)
        if (source(i) != r_) doorbells_.ring(source(i));
}

// Every rank stored its control word on arrival: wait for the others'.
bool NodeRun::advance_barrier() {
    for (; next_ < n_ - 1; ++next_) {
        const int j = (r_ + 1 + next_) % n_;
        if (!wait_briefly([&] { return area_.finished(j, t_); })) return false;
    }
    phase_ = Phase::over;
    return true;
}

bool NodeRun::advance(p2p::Engine& engine) {
    if (phase_ == Phase::start) engine.add_stat(&p2p::Stats::collectives_on_node);
    switch (phase_) {
        case Phase::start:
            t_ = area_.begin();
            if (call_.kind == Kind::barrier) {
                area_.finish(t_);  // arrived
                for (int j = 0; j < n_; ++j)
                    if (j != r_) doorbells_.ring(j);
                phase_ = Phase::arrive;
                return advance_barrier();
            }
            start();
            phase_ = publishes() ? Phase::publish : Phase::read;
            [[fallthrough]];
        case Phase::publish:
            if (phase_ == Phase::publish) {
                if (!wait_briefly([this] { return area_.cell_free(t_); })) return false;
                std::size_t bytes = 0;
                write(area_.cell_data(t_), bytes);
                area_.publish(t_, bytes, readers());
                ring_readers();
                phase_ = Phase::read;
            }
            [[fallthrough]];
        case Phase::read:
            while (next_ < sources()) {
                const int j = source(next_);
                const std::byte* data = nullptr;
                std::size_t bytes = 0;
                if (!wait_briefly([&] { return (data = area_.contribution(j, t_, bytes)) != nullptr; }))
                    return false;
                consume(j, data, bytes);
                ++next_;
            }
            if (reads()) {
                area_.finish(t_);
                ring_sources();
            }
            phase_ = Phase::over;
            return true;
        case Phase::arrive: return advance_barrier();
        case Phase::over: return true;
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
