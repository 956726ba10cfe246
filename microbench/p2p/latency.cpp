// Latency of the thesis' latency-overhead template (Fig. 4.5 with neither the
// sender's delay nor the receiver's work; pairs and timing: common/pairs.hpp).
// One repetition: MPI_Barrier; the sender MPI_Isend + MPI_Wait at once; the
// receiver times MPI_Irecv + MPI_Wait.
//
//   latency   each receiver's mean time, in microseconds; the statistics are
//             over the receivers.
//
// The overhead of a progression mode, T_lat(mode) - T_lat(none), takes two runs
// and is computed by the harness. Payloads are checked after the timed loop.
#include <mpi.h>

#include <fmt/format.h>

#include "common/bench.hpp"
#include "common/pairs.hpp"

namespace bench = si::bench;

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "latency",
                            .description = "Receiver-timed MPI_Irecv + MPI_Wait of a message "
                                           "sent at once (the latency-overhead template)",
                            .min_ranks = 2,
                            .default_min_size = 16 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    bench::describe_thesis_defaults(session.cli());
    if (!session.start()) return session.exit_code();
    const bench::Work work;  // computes nothing here: no delay, no work
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    bench::Buffer buffer(session.options().max_size);
    for (std::size_t size : session.sizes()) {
        const bench::Schedule schedule = session.schedule(size, bench::kThesisSchedule);
        const auto message = buffer.bytes(0, size);
        bench::prepare_message(pair, message, size);
        const double t_lat =
            bench::time_exchange(session.comm(), pair, message, schedule, work, 0, 0);
        session.check(bench::received_intact(pair, message, size),
                      fmt::format("latency payload of {} B", size));
        session.report(
            bench::over_receivers(session.comm(), "latency", "us", size, t_lat * 1e6, schedule));
    }
    return session.finish();
}
