// Communication/computation overlap of a receiver-first rendezvous, after the
// template of the thesis (Fig. 4.5) and Rashti & Afsahi's method. Pairs, the
// sender's delay and the receiver's timing: common/pairs.hpp.
//
// Per size, a short calibration gives T_lat0, which sets the steps T_syn =
// 0.1 .. 1.1 x T_lat0. Then rounds, each timing a block of repetitions with no
// work (T_lat) and one block per step (T_et), so that T_lat and every T_et
// come from the same stretch of time: a load that changes during the run moves
// them together and cannot make overlap exceed 100 %.
//
//   latency   T_lat, the mean over the rounds.
//   overlap   T_diff = 1.1 T_lat - T_et (eq. 4.1); at the largest T_syn with
//             T_diff >= 0 on every receiver, overlap = (T_syn - (T_et - T_lat))
//             / T_lat (eq. 4.2), in percent; one value per round and receiver,
//             so min..max is its spread. When no step satisfies the rule the
//             value is missing (NaN) and the benchmark says so: never 0 %.
//   overlap_at_lat   eq. 4.2 at T_syn = T_lat without the T_diff rule (on a
//             noisy machine the rule can fall back to a small T_syn).
//   time_with_work   T_et at T_syn = T_lat (what the application sees).
//   sender_delay_floor   100 x sender delay / T_lat: the overlap any runtime
//             shows because the receiver's work hides the sender's delay.
// Payloads are checked once per size after the timed loops.
#include <mpi.h>

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/bench.hpp"
#include "common/pairs.hpp"

namespace {

namespace bench = si::bench;

constexpr int kSteps = 11;  // T_syn = step / 10 x T_lat0, steps 1..11
constexpr int kLatencyStep = 10;
constexpr int kMaxRounds = 10;

double overlap_percent(double t_syn, double t_et, double t_lat) {
    return (t_syn - (t_et - t_lat)) / t_lat * 100;
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(
        argc, argv,
        {.suite = "p2p",
         .benchmark = "overlap",
         .description = "Overlap of a receiver-first rendezvous with computation",
         .min_ranks = 2,
         .default_max_size = 1 * bench::MiB});
    double delay_us = 5;
    bench::add_sender_delay_option(session.cli(), delay_us);
    bench::describe_thesis_defaults(
        session.cli(), "T_syn = 0.1, 0.2, ..., 1.1 x T_lat, measured in interleaved rounds.");
    if (!session.start()) return session.exit_code();
    const bench::Work work;
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    bench::Buffer buffer(session.options().max_size);
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t size : session.sizes(1)) {
        const bench::Schedule schedule = session.schedule(size, bench::kThesisSchedule);
        const auto message = buffer.bytes(0, size);
        bench::prepare_message(pair, message, size);
        const int rounds = std::min(kMaxRounds, schedule.iterations);
        const int per_round = std::max(1, schedule.iterations / rounds);
        auto time_block = [&](double work_seconds, int iterations, int warmup) {
            const bench::Schedule block{iterations, warmup, 1};
            return bench::time_exchange(session.comm(), pair, message, block, work,
                                        work_seconds, delay_us * 1e-6);
        };
        const double t_lat0 = time_block(0, per_round, schedule.warmup);

        // t[r][s]: round r's mean time; step 0 is the no-work block.
        std::vector<std::vector<double>> t(static_cast<std::size_t>(rounds),
                                           std::vector<double>(kSteps + 1));
        for (auto& round : t)
            for (int step = 0; step <= kSteps; ++step)
                round[static_cast<std::size_t>(step)] = time_block(0.1 * step * t_lat0, per_round, 0);
        auto mean_of = [&](int step) {
            double sum = 0;
            for (const auto& round : t) sum += round[static_cast<std::size_t>(step)];
            return sum / rounds;
        };
        const double t_lat = mean_of(0);
        // The largest step with T_diff >= 0 on every receiver, or 0 if none.
        int chosen = 0;
        for (int step = kSteps; step >= 1 && chosen == 0; --step) {
            const double t_diff = pair.receiver ? 1.1 * t_lat - mean_of(step) : 0;
            double worst = 0;
            MPI_Allreduce(&t_diff, &worst, 1, MPI_DOUBLE, MPI_MIN, session.comm());
            if (worst >= 0) chosen = step;
        }
        // One value per round: its own T_lat and T_et.
        auto per_round_overlap = [&](int step) {
            std::vector<double> values;
            for (const auto& round : t)
                values.push_back(step == 0 ? kNaN
                                           : overlap_percent(0.1 * step * t_lat0,
                                                             round[static_cast<std::size_t>(step)],
                                                             round[0]));
            return values;
        };
        auto receivers_rounds = [&](const std::vector<double>& mine) {
            std::vector<double> all;
            for (int r = 0; r < rounds; ++r) {
                const auto values =
                    bench::receivers_values(session.comm(), mine[static_cast<std::size_t>(r)]);
                all.insert(all.end(), values.begin(), values.end());
            }
            return all;
        };
        const std::vector<double> overlap = receivers_rounds(per_round_overlap(chosen));
        const std::vector<double> at_lat = receivers_rounds(per_round_overlap(kLatencyStep));
        if (chosen == 0 && session.rank() == 0)
            fmt::print(stderr,
                       "overlap: {} B: no T_syn step has T_diff >= 0 on every receiver (T_et > "
                       "1.1 T_lat at every step): overlap not reported\n",
                       size);
        session.check(bench::received_intact(pair, message, size),
                      fmt::format("overlap payload of {} B", size));
        session.report(
            bench::over_receivers(session.comm(), "latency", "us", size, t_lat * 1e6, schedule));
        session.report(bench::over_receivers(session.comm(), "time_with_work", "us", size,
                                             mean_of(kLatencyStep) * 1e6, schedule));
        session.report(bench::per_rank("overlap", "%", size, overlap, schedule));
        session.report(bench::per_rank("overlap_at_lat", "%", size, at_lat, schedule));
        session.report(bench::over_receivers(session.comm(), "sender_delay_floor", "%", size,
                                             delay_us * 1e-6 / t_lat * 100, schedule));
    }
    return session.finish();
}
