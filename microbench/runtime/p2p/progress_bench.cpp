// The progress pass with nothing to do (Engine::progress): the cost every
// MPI_Test, every poll of a blocked call and every background pass pays, as
// the host's rank count grows (one ring per sender to look at).
#include <benchmark/benchmark.h>

#include "local_node.hpp"

namespace si::bench {
namespace {

void progress_idle(benchmark::State& state) {
    LocalNode node(static_cast<int>(state.range(0)));
    p2p::Engine& engine = node.engine(0);
    int events = 0;
    for (auto _ : state) events += engine.progress();
    if (events != 0) state.SkipWithError("the idle pass found events");
}
BENCHMARK(progress_idle)->ArgName("ranks")->Arg(2)->Arg(8);

}  // namespace
}  // namespace si::bench
