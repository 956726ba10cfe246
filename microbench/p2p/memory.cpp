// Memory footprint, after the thesis: the resident set (VmRSS in
// /proc/self/status) of every rank right after MPI_Init and after a
// communication phase, and after it the footprint with helper processes in.
//
// The phase runs the pairwise template (common/pairs.hpp) over the size sweep,
// receiver first, once in each direction, so that every rank in a pair has
// received eager and rendezvous messages and whatever the runtime maps for them
// (transport rings, rendezvous buffers, the helpers' shared memory) is touched.
//
//   vmrss_init        VmRSS after MPI_Init, before the benchmark allocates anything.
//   vmrss_after       VmRSS after the phase.
//   footprint_after   the rank's proportional set size (Pss in
//                     /proc/self/smaps_rollup: a page shared by n processes
//                     counts 1/n in each) plus its share of the processes the
//                     ranks forked (SmartInterrupts' helpers: their Pss summed
//                     over the job, divided by the ranks). Summed over ranks it
//                     is what the job costs, shared memory counted once.
//
// In KiB, statistics over all ranks (the odd rank out included); msg_size is the
// largest message exchanged. The benchmark's own memory (one buffer of the
// largest size, the harness) is the same in every configuration, so differences
// between runs are the runtime's; the harness compares against mode none.
#include <mpi.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "common/pairs.hpp"
#include "common/procfs.hpp"

namespace {

namespace bench = si::bench;

// Exchanges per size and direction: enough to reach every transport slot.
constexpr bench::ScheduleDefaults kPhase{
    .iterations = 100, .warmup = 0, .large_iterations = 100, .large_warmup = 0};

double resident_kib() { return bench::proc_kib("/proc/self/status", "VmRSS:"); }

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "memory",
                            .description = "Resident memory of every rank after MPI_Init and "
                                           "after pairwise receiver-first exchanges",
                            .min_ranks = 2,
                            .default_min_size = 16 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    const double at_init = resident_kib();
    double delay_us = 5;
    bench::add_sender_delay_option(session.cli(), delay_us);
    session.cli().footer(fmt::format("Defaults: {} exchanges per size and direction, no warm-up.",
                                     kPhase.iterations));
    if (!session.start()) return session.exit_code();
    const std::vector<std::size_t> sizes = session.sizes();
    if (sizes.empty()) return session.reject("no message size to exchange");
    const bench::Work work;
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    bench::Buffer buffer(session.options().max_size);
    for (std::size_t size : sizes) {
        const auto message = buffer.bytes(0, size);
        for (const bench::Pair& direction : {pair, pair.reversed()}) {
            bench::prepare_message(direction, message, size);
            bench::time_exchange(session.comm(), direction, message, session.schedule(size, kPhase),
                                 work, 0, delay_us * 1e-6);
            session.check(bench::received_intact(direction, message, size),
                          fmt::format("memory payload of {} B", size));
        }
    }
    const double after = resident_kib();
    session.check(at_init > 0 && after > 0, "VmRSS in /proc/self/status");
    session.check(bench::proportional_kib("self") > 0, "Pss in /proc/self/smaps_rollup");
    const double footprint = bench::footprint_kib(session.comm());

    const std::size_t largest = sizes.back();
    const bench::Schedule schedule = session.schedule(largest, kPhase);
    session.report(bench::per_rank("vmrss_init", "KiB", largest,
                                   bench::ranks_values(session.comm(), at_init), schedule));
    session.report(bench::per_rank("vmrss_after", "KiB", largest,
                                   bench::ranks_values(session.comm(), after), schedule));
    session.report(bench::per_rank("footprint_after", "KiB", largest,
                                   bench::ranks_values(session.comm(), footprint), schedule));
    return session.finish();
}
