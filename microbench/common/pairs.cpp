#include "common/pairs.hpp"

#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/buffer.hpp"

namespace si::bench {

Pair pair_of(int rank, int ranks) {
    const int half = ranks / 2;
    if (rank < half) return {true, false, rank + half};
    if (rank < 2 * half) return {false, true, rank - half};
    return {};
}

std::vector<double> ranks_values(MPI_Comm comm, double value) {
    int ranks = 0;
    MPI_Comm_size(comm, &ranks);
    std::vector<double> all(static_cast<std::size_t>(ranks));
    MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
    return all;
}

std::vector<double> receivers_values(MPI_Comm comm, double value) {
    const std::vector<double> all = ranks_values(comm, value);
    const int ranks = static_cast<int>(all.size());
    std::vector<double> values;
    for (int r = 0; r < ranks; ++r)
        if (pair_of(r, ranks).receiver) values.push_back(all[static_cast<std::size_t>(r)]);
    return values;
}

Measurement over_receivers(MPI_Comm comm, std::string metric, std::string unit,
                           std::size_t msg_size, double value, const Schedule& schedule) {
    return per_rank(std::move(metric), std::move(unit), msg_size, receivers_values(comm, value),
                    schedule);
}

void prepare_message(const Pair& pair, std::span<std::byte> message, std::uint64_t seed) {
    if (pair.sender) fill_pattern(message, seed);
    if (pair.receiver) clear(message);
}

bool received_intact(const Pair& pair, std::span<const std::byte> message, std::uint64_t seed) {
    return !pair.receiver || check_pattern(message, seed);
}

void describe_thesis_defaults(CLI::App& app, std::string_view more) {
    app.footer(
        fmt::format("Defaults (the thesis): {} timed repetitions after {} warm-up ones at "
                    "every size. {}",
                    kThesisSchedule.iterations, kThesisSchedule.warmup, more));
}

void add_sender_delay_option(CLI::App& app, double& delay_us) {
    app.add_option("--sender-delay-us", delay_us,
                   "Computation before each MPI_Isend, so that the receiver posts first")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
}

void send_after(MPI_Comm comm, const Pair& pair, std::span<const std::byte> message,
                const Work& work, double delay) {
    work.run(delay);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE, pair.peer, kPairTag, comm,
              &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

double time_exchange(MPI_Comm comm, const Pair& pair, std::span<std::byte> message,
                     const Schedule& schedule, const Work& work, double work_seconds,
                     double sender_delay) {
    const int count = static_cast<int>(message.size());
    auto send = [&](int) { send_after(comm, pair, message, work, sender_delay); };
    auto receive = [&](int) {
        const double start = MPI_Wtime();
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Irecv(message.data(), count, MPI_BYTE, pair.peer, kPairTag, comm, &request);
        work.run(work_seconds);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        return MPI_Wtime() - start;
    };
    return mean_receive_time(comm, pair, schedule, send, receive);
}

}  // namespace si::bench
