// Matching in the point-to-point engine (p2p/engine.cpp): an eager message
// meeting N posted receives, and a receive meeting N unexpected messages, the
// match always in the worst position (last). Rank 0 sends, rank 1 receives.
// An iteration is the whole operation: MPI_Irecv, the send, the receiver's
// progress pass, the release of both requests; N = 1 is the fixed cost.
#include <benchmark/benchmark.h>

#include <vector>

#include "local_node.hpp"

namespace si::bench {
namespace {

constexpr int kTag = 1 << 20;  // the matching message's; parked receives use 0..N-2
constexpr std::uint16_t kContext = 0;

struct Pair {
    LocalNode node;
    p2p::Engine& sender = node.engine(0);
    p2p::Engine& receiver = node.engine(1);
    p2p::CommRef sender_comm = node.world(0);
    p2p::CommRef receiver_comm = node.world(1);
    std::uint64_t payload = 42;
    std::uint64_t buffer = 0;

    void send(int tag) {
        p2p::Request* send = sender.isend(&payload, sizeof payload, 1, tag, sender_comm, kContext,
                                          p2p::SendMode::standard);
        sender.release(send);  // eager: complete once in the ring
    }
    p2p::Request* post(int source, int tag) {
        return receiver.irecv(&buffer, sizeof buffer, source, tag, receiver_comm, kContext);
    }
};

// Receives waiting in the posted-receive queue ahead of the one that matches:
// for a named source, each on a tag of its own; for `wildcard`, from
// MPI_ANY_SOURCE, which no per-source index can skip.
void match_posted(benchmark::State& state, bool wildcard) {
    Pair pair;
    const auto parked_count = static_cast<int>(state.range(0)) - 1;
    std::vector<p2p::Request*> parked;
    for (int i = 0; i < parked_count; ++i)
        parked.push_back(pair.post(wildcard ? p2p::kAnySource : 0, i));
    for (auto _ : state) {
        p2p::Request* receive = pair.post(0, kTag);
        pair.send(kTag);
        pair.receiver.progress();
        if (!receive->complete.load(std::memory_order_acquire)) {
            state.SkipWithError("the message did not match its receive");
            break;
        }
        pair.receiver.release(receive);
    }
    for (p2p::Request* request : parked) {
        pair.receiver.cancel(request);
        pair.receiver.release(request);
    }
}
BENCHMARK_CAPTURE(match_posted, named_source, false)->Arg(1)->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_CAPTURE(match_posted, any_source, true)->Arg(1)->Arg(16)->Arg(256)->Arg(4096);

// Messages waiting in the unexpected queue ahead of the one a receive takes.
// Each iteration's message arrives unexpected too (its arrival is timed: the
// record the engine keeps of it), then the receive finds it behind N - 1.
void match_unexpected(benchmark::State& state, int source) {
    Pair pair;
    const auto parked_count = static_cast<int>(state.range(0)) - 1;
    for (int i = 0; i < parked_count; ++i) {
        pair.send(i);
        pair.receiver.progress();  // the ring holds 32: take each in turn
    }
    for (auto _ : state) {
        pair.send(kTag);
        pair.receiver.progress();
        p2p::Request* receive = pair.post(source, kTag);
        if (!receive->complete.load(std::memory_order_acquire)) {
            state.SkipWithError("the receive did not find its message");
            break;
        }
        pair.receiver.release(receive);
    }
}
BENCHMARK_CAPTURE(match_unexpected, named_source, 0)->Arg(1)->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_CAPTURE(match_unexpected, any_source, p2p::kAnySource)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Arg(4096);

}  // namespace
}  // namespace si::bench
