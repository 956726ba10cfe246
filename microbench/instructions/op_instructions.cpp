// Instructions per operation: what one MPI call (or one message of a window) costs in
// user-space instructions of the calling thread, counted by callgrind on rank 0 while
// its peers run natively. A count does not depend on the machine's speed or load, so
// it repeats exactly where a time would wander; the method is in harness/README.md
// ("Instructions per operation") and protocols.hpp.
//
// Per operation and size: --warmup uncounted repetitions (first calls, lazy
// allocations, a library's switch to another path after its first messages), then
// --iterations counted ones, each dumped and read on its own. The report's median is
// the count of the repetitions in which rank 0 found what it needed at once (a
// library's state may make them differ by a few instructions in a cycle that repeats
// from run to run); the mean and max show the repetitions that polled. The median repetition's dump
// is kept in the dump directory as <operation>-<size>.callgrind for callgrind_annotate.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "instructions/callgrind_counter.hpp"
#include "instructions/handshake.hpp"
#include "instructions/protocols.hpp"

namespace {

namespace bench = si::bench;
namespace instr = si::bench::instructions;
namespace fs = std::filesystem;

constexpr bench::ScheduleDefaults kSchedule{
    .iterations = 21, .warmup = 20, .large_iterations = 21, .large_warmup = 20};
const std::vector<std::size_t> kDefaultSizes = {8, 1024, 4096};
// How long the peers are inside MPI before rank 0 calls: long enough for them to
// send what they can (microseconds for a woken process with a CPU of its own), short
// enough that a peer rank 0 then waits for (Open MPI completes a send of 1 KiB only
// once the receiver took it) is still polling on its CPU: on a shared host a process
// that has polled for a millisecond is often preempted, and answers milliseconds late.
// With more ranks than CPUs a peer may wait a whole time slice before it runs.
constexpr int kSettleUs = 200;
constexpr int kOversubscribedSettleUs = 10000;
// A median above this many times the least count is mostly polling (see measure()).
constexpr double kPolledAbove = 1.5;

struct Options {
    std::vector<std::string> operations;
    int window = 64;
    int chunk = 16;
    int settle_us = -1;  // -1: kSettleUs with a CPU per rank, else kOversubscribedSettleUs
    std::string valgrind = "valgrind";
    std::string callgrind_dir;
    bool no_valgrind = false;
    bool print_counts = false;
};

void add_options(CLI::App& app, Options& o) {
    std::vector<std::string> names;
    for (const auto& op : instr::all_operations()) names.push_back(op.name);
    app.add_option("--ops", o.operations,
                   "Operations to count (default: all; the point-to-point ones need 2 ranks)")
        ->delimiter(',')
        ->check(CLI::IsMember(names));
    app.add_option("--window", o.window, "Messages per window")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    app.add_option("--chunk", o.chunk,
                   "Messages of a window in flight at once (divides --window; this runtime's "
                   "queue holds 32 per pair)")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    app.add_option("--settle-us", o.settle_us,
                   "How long the peers are in MPI before rank 0 calls: collectives, ping-pong "
                   "(default: 200 with a CPU per rank; 10000 when ranks outnumber CPUs, where a "
                   "peer may wait a time slice for a CPU)")
        ->check(CLI::Range(0, 1000000));
    app.add_option("--valgrind", o.valgrind, "The valgrind program")->capture_default_str();
    app.add_option("--callgrind-dir", o.callgrind_dir,
                   "Directory for callgrind's dumps (default: <--csv>.callgrind, else a new one "
                   "in $TMPDIR)");
    app.add_flag("--print-counts", o.print_counts,
                 "Print every counted repetition's count, not only their statistics");
    app.add_flag("--no-valgrind", o.no_valgrind,
                 "Run the protocols without counting (a check that they complete)");
}

// The median repetition's dump is kept under a readable name; the others go.
void keep_median_dump(const std::vector<instr::CallgrindCounter::Count>& counts,
                      std::uint64_t median, const std::string& directory, const std::string& name) {
    bool kept = false;
    for (const auto& count : counts) {
        std::error_code ec;
        if (!kept && count.instructions == median) {
            fs::rename(count.dump, fs::path(directory) / name, ec);
            kept = !ec;
            if (kept) continue;
        }
        fs::remove(count.dump, ec);
    }
}

void measure(bench::Session& s, const instr::OperationInfo& op, const instr::ProtocolSetup& setup,
             std::size_t size, instr::CallgrindCounter& counter, bool print_counts) {
    auto protocol = instr::make_protocol(op, setup, size);
    const bench::Schedule schedule = s.schedule(size, kSchedule);
    for (int i = 0; i < schedule.warmup; ++i) {
        setup.handshake->barrier();
        protocol->run(nullptr);
    }
    std::vector<instr::CallgrindCounter::Count> counts;
    for (int i = 0; i < schedule.iterations; ++i) {
        setup.handshake->barrier();
        protocol->run(&counter);
        if (auto count = counter.finish()) counts.push_back(*count);
    }
    s.check(protocol->delivered(), fmt::format("{} of {} B delivered wrong data", op.name, size));
    if (!counter.active()) return;
    s.check(
        static_cast<int>(counts.size()) == schedule.iterations,
        fmt::format("{} of {} B: {} of {} dumps could not be read", op.name, size,
                    schedule.iterations - static_cast<int>(counts.size()), schedule.iterations));
    if (counts.empty()) return;
    std::vector<double> per_operation;
    for (const auto& count : counts)
        per_operation.push_back(static_cast<double>(count.instructions) / protocol->operations());
    if (print_counts) {
        std::string line;
        for (const auto& count : counts) line += fmt::format(" {}", count.instructions);
        fmt::print("# counts {} {} B:{}\n", op.name, size, line);
    }
    const bench::Summary summary = bench::summarize(per_operation);
    // Polling adds instructions; a median far above the least count says that rank 0
    // waited for a peer in most repetitions (an algorithm that needs the answer to
    // rank 0's own data, with that peer not running).
    if (summary.median > kPolledAbove * summary.min)
        fmt::print(stderr,
                   "op_instructions: {} of {} B: the median is {:.1f}x the least count: rank 0 "
                   "polled for a peer in most repetitions\n",
                   op.name, size, summary.median / summary.min);
    keep_median_dump(counts, static_cast<std::uint64_t>(summary.median * protocol->operations()),
                     counter.directory(), fmt::format("{}-{}.callgrind", op.name, size));
    s.report({.metric = "instructions_" + op.name,
              .unit = "instructions",
              .msg_size = size,
              .summary = summary,
              .schedule = schedule,
              .batch = 1});
}

}  // namespace

int main(int argc, char** argv) {
    // Before MPI_Init: the counted rank becomes a callgrind process.
    instr::launch_counted_rank(argv, instr::read_callgrind_settings(argc, argv));
    bench::Session session(argc, argv,
                           {.suite = "instructions",
                            .benchmark = "op_instructions",
                            .description = "User-space instructions per MPI operation on rank 0, "
                                           "counted by callgrind while the peers run natively",
                            .min_ranks = 2});
    Options o;
    add_options(session.cli(), o);
    session.cli().footer(fmt::format(
        "Default sizes {}, {}, {} B (the barrier at 0); {} counted repetitions after {} "
        "uncounted per operation and size; the median is the reported count.",
        kDefaultSizes[0], kDefaultSizes[1], kDefaultSizes[2], kSchedule.iterations,
        kSchedule.warmup));
    if (!session.start()) return session.exit_code();
    if (o.window % o.chunk != 0) return session.reject("--chunk must divide --window");

    instr::Handshake handshake(session.comm());
    instr::CallgrindCounter counter;
    int counting = counter.active() ? 1 : 0;
    MPI_Bcast(&counting, 1, MPI_INT, 0, session.comm());
    if (!o.no_valgrind && counting == 0)
        return session.reject("rank 0 does not run under callgrind (see --valgrind)");
    if (o.settle_us < 0)
        o.settle_us = session.ranks() <= static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))
                          ? kSettleUs
                          : kOversubscribedSettleUs;
    if (session.rank() == 0 && !session.options().quiet)
        fmt::print(
            "# callgrind: {}; an empty counted stretch costs {} instructions (taken off); "
            "collectives settle {} us\n",
            counting ? counter.directory() : "off (--no-valgrind)", counter.stretch_overhead(),
            o.settle_us);

    const instr::ProtocolSetup setup{.comm = session.comm(),
                                     .rank = session.rank(),
                                     .ranks = session.ranks(),
                                     .window = o.window,
                                     .chunk = o.chunk,
                                     .settle = std::chrono::microseconds(o.settle_us),
                                     .handshake = &handshake};
    const std::vector<std::size_t> sizes =
        session.options().size_list.empty() ? kDefaultSizes : session.options().size_list;
    for (const auto& op : instr::all_operations()) {
        if (!o.operations.empty() &&
            std::find(o.operations.begin(), o.operations.end(), op.name) == o.operations.end())
            continue;
        if (op.point_to_point && session.ranks() != 2) continue;
        for (std::size_t size : op.sized ? sizes : std::vector<std::size_t>{0})
            measure(session, op, setup, size, counter, o.print_counts);
    }
    return session.finish();
}
