// Nonblocking collectives: latency and overlap with computation, after the thesis'
// collective template (Fig. 4.11). All ranks of MPI_COMM_WORLD take part; rooted
// collectives use root 0. One repetition (common/timing.hpp, time_synchronized):
// MPI_Barrier; start the clock; the I-collective; computation (Work); MPI_Wait; stop
// the clock. A repetition lasts as long as its slowest rank: its time is the maximum
// over the ranks.
//
// Per collective and size, a calibration block gives T_lat0 (the median repetition
// without work); each --work-factor f asks for f x T_lat0 of computation on every
// rank. Then rounds, each timing a barrier alone, a block of the blocking form, a block
// without work (T_lat), and per factor a block of the computation alone (T_syn) and one of the
// I-collective around it (T_total), so that every quantity comes from the same
// stretch of time (as p2p/overlap does: a load that comes or goes moves them
// together).
//
// T_syn is measured, not taken from the calibration: the computation, then
// MPI_Barrier, minus a barrier alone (the round's median), so that it lasts until
// every rank has computed, as the collective waits for every rank. When the job has
// more ranks than the host has cores, the ranks' computations take turns on the cores
// (a collective's ranks all compute, unlike p2p/overlap's senders, which wait), and
// the last rank finishes about ranks / cores x f x T_lat0 after the first started:
// with the nominal value, 4 ranks on 2 cores would show -100 % without any fault of
// MPI. On a host with a core per rank, T_syn is f x T_lat0. A polling progress thread
// that shares a core with the computation lengthens T_syn: compare work_ across
// configurations for that cost.
//
//   blocking_<c>      us   the blocking form (MPI_Bcast ...), per repetition
//   latency_<c>       us   T_lat: I-collective + MPI_Wait without work, per repetition
//   work_<c>_<p>      us   T_syn: the computation alone until every rank is done
//   total_<c>_<p>     us   T_total: the I-collective, the computation, MPI_Wait
//   overlap_<c>_<p>   %    eq. 4.2 of p2p/overlap, (T_syn - (T_total - T_lat)) / T_lat,
//                          one value per round from the round's medians
//
// --idle-root: rank 0 does not compute (it waits at once), leaving its core free, the
// case where asynchronous progress has a core to use on a full host; the command line
// in the CSV's context says which case a file holds.
//
// <c> is the collective (ibcast), <p> the factor in percent (100: T_syn = T_lat, the
// thesis' case). Overlap is not clamped, so that its statistics are not biased: noise
// can take it a little below 0 or above 100. After the timed loops each rank checks
// what the last call left in its outputs, then the outputs are cleared and one more
// I-collective is checked, so that a result of the blocking form cannot pass for the
// nonblocking one's.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "collectives/collective_call.hpp"
#include "common/bench.hpp"
#include "common/work.hpp"

namespace {

namespace bench = si::bench;
namespace coll = si::bench::coll;

// The counts: 1000 repetitions after 100 dropped; fewer above 64 KiB, where
// a 4-rank all-to-all of a few MiB takes milliseconds.
constexpr bench::ScheduleDefaults kCollectiveSchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 100, .large_warmup = 10};
constexpr int kMaxRounds = 10;

double to_us(double seconds) {
    return seconds * 1e6;
}

double median_of(std::vector<double> values) {
    return bench::summarize(values).median;
}

// One timed block: this rank's seconds per repetition, then the maximum over the ranks
// of each repetition (identical on every rank).
template <typename Body>
std::vector<double> time_block(MPI_Comm comm, int warmup, int iterations, Body&& body) {
    const auto mine = bench::time_synchronized(comm, warmup, iterations, body);
    return bench::max_over_ranks(comm, mine);
}

// What one collective at one size measured.
struct Timings {
    std::vector<double> blocking;              // per repetition, every round
    std::vector<double> latency;               // per repetition, every round
    std::vector<std::vector<double>> work;     // [factor]: per repetition, every round
    std::vector<std::vector<double>> total;    // [factor]: per repetition, every round
    std::vector<std::vector<double>> overlap;  // [factor]: per round, %
};

Timings measure(coll::CollectiveCall& call, MPI_Comm comm, const bench::Schedule& schedule,
                const std::vector<double>& factors, const bench::Work& work, bool idle_root) {
    const int rounds = std::min(kMaxRounds, schedule.iterations);
    const int per_round = std::max(1, schedule.iterations / rounds);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const bool computes = !(idle_root && rank == 0);
    auto nonblocking = [&](double work_seconds) {
        return [&call, &work, work_seconds, computes] {
            MPI_Request request = MPI_REQUEST_NULL;
            call.start(&request);
            if (computes) work.run(work_seconds);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        };
    };
    auto blocking = [&call] { call.run_blocking(); };

    // Both forms warm up; the nonblocking one's first timed block calibrates T_syn.
    time_block(comm, schedule.warmup, 0, blocking);
    const double t_lat0 = median_of(time_block(comm, schedule.warmup, per_round, nonblocking(0)));

    Timings t;
    t.work.resize(factors.size());
    t.total.resize(factors.size());
    t.overlap.resize(factors.size());
    auto barrier = [comm] { MPI_Barrier(comm); };
    for (int round = 0; round < rounds; ++round) {
        // What a barrier adds to the computation's blocks below.
        const double t_barrier = median_of(time_block(comm, 0, per_round, barrier));
        const auto b = time_block(comm, 0, per_round, blocking);
        t.blocking.insert(t.blocking.end(), b.begin(), b.end());
        const auto lat = time_block(comm, 0, per_round, nonblocking(0));
        t.latency.insert(t.latency.end(), lat.begin(), lat.end());
        const double t_lat = median_of(lat);
        for (std::size_t f = 0; f < factors.size(); ++f) {
            const double seconds = factors[f] * t_lat0;
            // Until every rank has computed, as the collective waits for every rank.
            auto alone = time_block(comm, 0, per_round, [&] {
                if (computes) work.run(seconds);
                MPI_Barrier(comm);
            });
            for (double& value : alone) value -= t_barrier;
            t.work[f].insert(t.work[f].end(), alone.begin(), alone.end());
            const auto total = time_block(comm, 0, per_round, nonblocking(seconds));
            t.total[f].insert(t.total[f].end(), total.begin(), total.end());
            const double t_syn = median_of(alone);
            const double t_total = median_of(total);
            t.overlap[f].push_back((t_syn - (t_total - t_lat)) / t_lat * 100);
        }
    }
    return t;
}

int percent_of(double factor) {
    return static_cast<int>(std::lround(factor * 100));
}

void report(bench::Session& session, coll::Collective collective, std::size_t size,
            const bench::Schedule& schedule, const std::vector<double>& factors, const Timings& t) {
    const std::string name(coll::name_of(collective));
    const auto timed = [&](const std::string& metric, const std::string& unit,
                           const bench::Summary& summary) {
        session.report({.metric = metric,
                        .unit = unit,
                        .msg_size = size,
                        .summary = summary,
                        .schedule = schedule,
                        .batch = 1});
    };
    timed("blocking_" + name, "us", bench::summarize(t.blocking, to_us));
    timed("latency_" + name, "us", bench::summarize(t.latency, to_us));
    for (std::size_t f = 0; f < factors.size(); ++f) {
        const int percent = percent_of(factors[f]);
        timed(fmt::format("work_{}_{}", name, percent), "us", bench::summarize(t.work[f], to_us));
        timed(fmt::format("total_{}_{}", name, percent), "us", bench::summarize(t.total[f], to_us));
        // Statistics over the rounds; the CSV's iterations stay the repetitions.
        auto overlap = bench::per_rank(fmt::format("overlap_{}_{}", name, percent), "%", size,
                                       t.overlap[f], schedule);
        overlap.iterations = static_cast<long long>(t.total[f].size());
        session.report(overlap);
    }
}

// The sizes a collective is measured at: a barrier once at 0 B; the others at every
// size above 0; the reductions at positive multiples of an int.
std::vector<std::size_t> sizes_for(coll::Collective collective,
                                   const std::vector<std::size_t>& sizes) {
    if (!coll::moves_data(collective)) return {0};
    std::vector<std::size_t> result;
    for (std::size_t size : sizes)
        if (size > 0 && (!coll::is_reduction(collective) || size % sizeof(int) == 0))
            result.push_back(size);
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "collectives",
                            .benchmark = "coll_overlap",
                            .description = "Nonblocking collectives: latency of the blocking and "
                                           "nonblocking forms, overlap with computation",
                            .min_ranks = 2,
                            .default_min_size = 1 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    std::vector<std::string> names;
    for (auto collective : coll::all_collectives()) names.emplace_back(coll::name_of(collective));
    std::vector<std::string> wanted = names;
    std::vector<double> factors = {1.0};
    bool idle_root = false;
    session.cli()
        .add_option("--collective", wanted, "Comma-separated collectives to measure (default: all)")
        ->delimiter(',')
        ->check(CLI::IsMember(names));
    session.cli()
        .add_option("--work-factor", factors,
                    "Comma-separated T_syn / T_lat factors of the computation between the "
                    "I-collective and MPI_Wait (the thesis: 1; progression-like: 1.5 .. 3)")
        ->delimiter(',')
        ->check(CLI::Range(0.01, 10.0))
        ->capture_default_str();
    session.cli().add_flag(
        "--idle-root", idle_root,
        "Rank 0 (the root of the rooted collectives) does not compute: it waits in MPI_Wait "
        "at once, as p2p/overlap's senders do, so that a core is free for asynchronous "
        "progress even when every other rank computes on a full machine");
    session.cli().footer(fmt::format(
        "Defaults: {} timed repetitions after {} warm-up ones ({} after {} above "
        "--large-above), in up to {} interleaved rounds. Reductions add MPI_INTs (size / 4) "
        "with MPI_SUM; the barrier runs once, at size 0.",
        kCollectiveSchedule.iterations, kCollectiveSchedule.warmup,
        kCollectiveSchedule.large_iterations, kCollectiveSchedule.large_warmup, kMaxRounds));
    if (!session.start()) return session.exit_code();

    // Factors as given, once each, in the order of their metric names.
    std::sort(factors.begin(), factors.end());
    factors.erase(std::unique(factors.begin(), factors.end(),
                              [](double a, double b) { return percent_of(a) == percent_of(b); }),
                  factors.end());
    const bench::Work work;
    const std::vector<std::size_t> sizes = session.sizes();
    for (const auto& name : wanted) {
        const coll::Collective collective = *coll::parse_collective(name);
        const auto measured = sizes_for(collective, sizes);
        if (measured.size() < sizes.size() && coll::is_reduction(collective) && session.rank() == 0)
            fmt::print(stderr,
                       "coll_overlap: {}: sizes that are not positive multiples of {} B "
                       "left out\n",
                       name, sizeof(int));
        if (measured.empty()) continue;
        coll::CollectiveCall call(collective, session.comm(), measured.back());
        for (std::size_t size : measured) {
            const bench::Schedule schedule = session.schedule(size, kCollectiveSchedule);
            call.prepare(size);
            const Timings timings =
                measure(call, session.comm(), schedule, factors, work, idle_root);
            session.check(call.outputs_hold(),
                          fmt::format("{} of {} B: outputs after the timed loops", name, size));
            call.clear_outputs();
            MPI_Request request = MPI_REQUEST_NULL;
            call.start(&request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            session.check(call.outputs_hold(),
                          fmt::format("{} of {} B: outputs of one more call", name, size));
            report(session, collective, size, schedule, factors, timings);
        }
    }
    return session.finish();
}
