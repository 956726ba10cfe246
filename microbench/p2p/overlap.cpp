// Communication/computation overlap of a receiver-first rendezvous, after the
// template of the thesis (Fig. 4.5) and Rashti & Afsahi's method. Pairs, the
// sender's delay and the receiver's timing: common/pairs.hpp.
//
//   latency   T_lat: the repetition with no work.
//   overlap   for T_syn = 0.1 .. 1.1 x T_lat (steps of 0.1), T_et is the time
//             with work; T_diff = 1.1 T_lat - T_et (eq. 4.1) and
//             overlap = (T_syn - (T_et - T_lat)) / T_lat (eq. 4.2), in percent.
//             Reported at the largest T_syn for which T_diff >= 0 on every
//             receiver, averaged over the receivers.
//   time_with_work   T_et at T_syn = T_lat (what the application sees).
//   overlap_at_lat   eq. 4.2 at T_syn = T_lat, without the T_diff rule (on a
//             noisy machine the rule can fall back to a small T_syn).
// Payloads are checked once per size after the timed loops.
#include <mpi.h>

#include <vector>

#include <fmt/format.h>

#include "common/bench.hpp"
#include "common/pairs.hpp"

namespace {

namespace bench = si::bench;

double mean(const std::vector<double>& values) {
    return bench::summarize(values).mean;
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
    bench::describe_thesis_defaults(session.cli(), "T_syn = 1.1, 1.0, ..., 0.1 x T_lat.");
    if (!session.start()) return session.exit_code();
    const bench::Work work;
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    bench::Buffer buffer(session.options().max_size);
    for (std::size_t size : session.sizes(1)) {
        const bench::Schedule schedule = session.schedule(size, bench::kThesisSchedule);
        const auto message = buffer.bytes(0, size);
        bench::prepare_message(pair, message, size);
        auto time_with = [&](double work_seconds) {
            return bench::time_exchange(session.comm(), pair, message, schedule, work, work_seconds,
                                        delay_us * 1e-6);
        };
        const double t_lat = time_with(0);

        // Overlap steps from the largest T_syn down: the first with T_diff >= 0
        // on every receiver is the one reported.
        double overlap = 0, with_work = 0, overlap_at_lat = 0;
        bool found = false;
        for (int step = 11; step >= 1; --step) {
            const double t_syn = 0.1 * step * t_lat;
            const double t_et = time_with(t_syn);
            const double t_diff = pair.receiver ? 1.1 * t_lat - t_et : 0;
            double worst = 0;
            MPI_Allreduce(&t_diff, &worst, 1, MPI_DOUBLE, MPI_MIN, session.comm());
            const std::vector<double> overlaps = bench::receivers_values(
                session.comm(), pair.receiver ? (t_syn - (t_et - t_lat)) / t_lat * 100 : 0);
            if (step == 10) {
                with_work = t_et;
                overlap_at_lat = mean(overlaps);
            }
            if (!found && worst >= 0) {
                found = true;
                overlap = mean(overlaps);
            }
            if (found && step <= 10) break;
        }
        session.check(bench::received_intact(pair, message, size),
                      fmt::format("overlap payload of {} B", size));
        const std::vector<double> overlap_value{overlap}, at_lat_value{overlap_at_lat};
        session.report(
            bench::over_receivers(session.comm(), "latency", "us", size, t_lat * 1e6, schedule));
        session.report(bench::over_receivers(session.comm(), "time_with_work", "us", size,
                                             with_work * 1e6, schedule));
        session.report(bench::per_rank("overlap", "%", size, overlap_value, schedule));
        session.report(bench::per_rank("overlap_at_lat", "%", size, at_lat_value, schedule));
    }
    return session.finish();
}
