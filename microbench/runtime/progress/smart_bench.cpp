// SmartInterrupts, the rank's side (progress/smart.cpp): what a nonblocking
// receive that finds no message pays to post its interrupt request in the
// IRB and to withdraw it, measured as MPI_Irecv + MPI_Cancel through the
// engine, without SmartInterrupts (`none`) and with it; and with it while a
// helper (a thread here) polls the rank, as helpers do, so that the cache
// lines the two share move between cores.
#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <thread>

#include "local_node.hpp"
#include "progress/helper.hpp"
#include "progress/smart.hpp"
#include "wake/backends.hpp"

namespace si::bench {
namespace {

enum class Observer { none, smart, smart_with_polling_helper };

void irb_post_withdraw(benchmark::State& state, Observer observer) {
    LocalNode node;
    // Rank 1 is not its node's first rank: it forks no helper process.
    std::unique_ptr<progress::SmartProgress> smart;
    if (observer != Observer::none)
        smart = std::make_unique<progress::SmartProgress>(node.engine(1), node.region(),
                                                          node.locality(1), config::Settings{});
    std::atomic<bool> stop{false};
    std::thread helper;
    if (observer == Observer::smart_with_polling_helper)
        helper = std::thread([&] {
            auto backend = wake::make_backend(config::WakeBackend::futex);
            while (!stop.load(std::memory_order_relaxed))
                benchmark::DoNotOptimize(progress::examine_rank(node.region(), 1, *backend));
        });
    p2p::Engine& engine = node.engine(1);
    const p2p::CommRef comm = node.world(1);
    std::uint64_t buffer = 0;
    for (auto _ : state) {
        p2p::Request* receive = engine.irecv(&buffer, sizeof buffer, 0, 5, comm, 0);
        engine.cancel(receive);
        engine.release(receive);
    }
    stop.store(true);
    if (helper.joinable()) helper.join();
}
BENCHMARK_CAPTURE(irb_post_withdraw, none, Observer::none);
BENCHMARK_CAPTURE(irb_post_withdraw, smart, Observer::smart);
BENCHMARK_CAPTURE(irb_post_withdraw, smart_helper_polling, Observer::smart_with_polling_helper)
    ->UseRealTime();

}  // namespace
}  // namespace si::bench
