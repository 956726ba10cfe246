// A helper's scan of one rank (progress/helper.cpp, examine_rank): the rank's
// interrupt thread sleeps, its IRB holds `requests` interrupt requests and its
// ICB `rts` RTS tuples (of 128 slots: two ranks x SI_SHM_CELLS's default 64).
// Without a match the scan compares every RTS with every request; with one,
// it also wakes the thread (a futex wake, nobody waiting here), whose word is
// reset to sleeping for the next iteration.
#include <benchmark/benchmark.h>

#include <memory>

#include "local_node.hpp"
#include "node/region.hpp"
#include "p2p/tuple.hpp"
#include "progress/helper.hpp"
#include "wake/backends.hpp"

namespace si::bench {
namespace {

constexpr int kRank = 1;
constexpr std::size_t kIcbSlots = 128;

struct ScannedRank {
    node::Region region = node::Region::create(unique_job_id(), 2, kIcbSlots);
    std::unique_ptr<wake::Backend> backend = wake::make_backend(config::WakeBackend::futex);
    node::RankBlock& block = region.rank_block(kRank);

    ScannedRank(int requests, int rts, bool match) {
        region.unlink();
        for (int e = 0; e < requests; ++e) {
            // Receives from rank 0 on tags 1000 + e; a match asks for the last one.
            const auto pattern = p2p::interrupt_pattern(p2p::MatchSpec{1, 0, 1000 + e});
            region.irb(kRank)[e].mask.store(pattern.mask);
            region.irb(kRank)[e].value.store(pattern.value);
        }
        block.irb_in_use.store(static_cast<std::uint32_t>(requests));
        for (int s = 0; s < rts; ++s) {
            const bool last = s == rts - 1;
            const int tag = match && last ? 1000 + requests - 1 : 5000 + s;
            // RTSs spread over the ICB, the matching one in the last slot used.
            region.icb(kRank)[static_cast<std::size_t>(s) * kIcbSlots / rts].store(
                p2p::Tuple{p2p::MessageKind::rts, 1, 0, tag}.pack());
        }
        block.interrupt_word.store(wake::kSleeping);
    }
};

void helper_scan_no_match(benchmark::State& state) {
    ScannedRank rank(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), false);
    for (auto _ : state)
        if (progress::examine_rank(rank.region, kRank, *rank.backend) !=
            progress::RankVerdict::no_match) {
            state.SkipWithError("the scan did not end in no_match");
            break;
        }
}
BENCHMARK(helper_scan_no_match)
    ->ArgNames({"requests", "rts"})
    ->Args({1, 1})
    ->Args({16, 4})
    ->Args({64, 64});

void helper_scan_match(benchmark::State& state) {
    ScannedRank rank(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), true);
    for (auto _ : state) {
        if (progress::examine_rank(rank.region, kRank, *rank.backend) !=
            progress::RankVerdict::woken) {
            state.SkipWithError("the scan did not wake the rank");
            break;
        }
        rank.block.interrupt_word.store(wake::kSleeping, std::memory_order_relaxed);
    }
}
BENCHMARK(helper_scan_match)->ArgNames({"requests", "rts"})->Args({1, 1})->Args({16, 4});

}  // namespace
}  // namespace si::bench
