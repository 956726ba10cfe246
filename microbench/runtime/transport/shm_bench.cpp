// The shared-memory transport (transport/shm): one small message through a
// ring, sent and received by one thread (the instructions of both sides), and
// a ping-pong between two threads (what the cache lines cost when they move
// between cores).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "local_node.hpp"
#include "p2p/tuple.hpp"

namespace si::bench {
namespace {

// Keeps the last arrival; the caller hands its slot back.
class LastArrival final : public transport::Events {
  public:
    bool message_arrived(const transport::Arrival& arrival) override {
        last = arrival;
        ++count;
        return true;
    }
    void rdma_completed(std::uint64_t, int) override {}
    void peer_failed(int) override {}

    transport::Arrival last;
    std::uint64_t count = 0;
};

const std::uint64_t kTuple = p2p::Tuple{p2p::MessageKind::eager, 0, 0, 7}.pack();

// Send, then the receiver's progress pass and repost, in one thread.
void shm_send_receive(benchmark::State& state) {
    LocalNode node;
    std::vector<std::byte> payload(static_cast<std::size_t>(state.range(0)), std::byte{1});
    LastArrival events;
    for (auto _ : state) {
        if (node.transport(0).send(1, kTuple, {}, payload) != transport::Result::done)
            state.SkipWithError("ring full: a message was not received");
        node.transport(1).progress(events);
        node.transport(1).repost(events.last);
    }
    if (events.count != static_cast<std::uint64_t>(state.iterations()))
        state.SkipWithError("messages lost");
    state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(shm_send_receive)->Arg(8)->Arg(1024);

// Round trip: this thread sends, a second thread (the peer rank) answers.
void shm_ping_pong(benchmark::State& state) {
    LocalNode node;
    std::vector<std::byte> payload(static_cast<std::size_t>(state.range(0)), std::byte{1});
    std::atomic<bool> stop{false};
    std::thread peer([&] {
        LastArrival events;
        while (!stop.load(std::memory_order_relaxed)) {
            if (node.transport(1).progress(events) == 0) continue;
            node.transport(1).repost(events.last);
            while (node.transport(1).send(0, kTuple, {}, payload) != transport::Result::done) {
            }
        }
    });
    LastArrival events;
    for (auto _ : state) {
        while (node.transport(0).send(1, kTuple, {}, payload) != transport::Result::done) {
        }
        const std::uint64_t before = events.count;
        while (events.count == before) node.transport(0).progress(events);
        node.transport(0).repost(events.last);
    }
    stop.store(true);
    peer.join();
}
BENCHMARK(shm_ping_pong)->Arg(8)->UseRealTime();

}  // namespace
}  // namespace si::bench
