// The thesis' two-sided template (Fig. 4.5), shared by the pairwise benchmarks
// (latency, overlap, progression, memory).
//
// Ranks pair up across the two halves of the job: rank i sends to rank i + P/2,
// so with SI_NODE_SIZE = P/2 every pair spans two simulated nodes. One
// repetition: MPI_Barrier; the sender may compute a short delay (so that the
// receiver posts first), then MPI_Isend + MPI_Wait; the receiver times its side.
// All timing is on the receivers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/options.hpp"
#include "common/report.hpp"
#include "common/work.hpp"

namespace CLI {
class App;
}

namespace si::bench {

// The thesis: 10,000 iterations, the first 200 dropped, at every size.
inline constexpr ScheduleDefaults kThesisSchedule{
    .iterations = 10000, .warmup = 200, .large_iterations = 10000, .large_warmup = 200};

// The tag of every pairwise message.
inline constexpr int kPairTag = 11;

struct Pair {
    bool sender = false;
    bool receiver = false;
    int peer = MPI_PROC_NULL;

    // The same pair with the roles swapped (the odd rank out stays out).
    [[nodiscard]] Pair reversed() const { return {receiver, sender, peer}; }
};

// With an odd rank count the last rank is in no pair: it joins the barriers only.
[[nodiscard]] Pair pair_of(int rank, int ranks);

// Collective: every rank's value, on every rank, in rank order.
[[nodiscard]] std::vector<double> ranks_values(MPI_Comm comm, double value);

// Collective: the receivers' values (the others pass anything), on every rank, in
// rank order.
[[nodiscard]] std::vector<double> receivers_values(MPI_Comm comm, double value);

// Collective: per_rank over the receivers' `value`s (the others pass anything).
[[nodiscard]] Measurement over_receivers(MPI_Comm comm, std::string metric, std::string unit,
                                         std::size_t msg_size, double value,
                                         const Schedule& schedule);

// Before a size: the sender fills `message` with the pattern of `seed`, the
// receiver clears it. After the timed loops: whether the receiver holds that
// pattern (true on the other ranks).
void prepare_message(const Pair& pair, std::span<std::byte> message, std::uint64_t seed);
[[nodiscard]] bool received_intact(const Pair& pair, std::span<const std::byte> message,
                                   std::uint64_t seed);

// Says in --help what kThesisSchedule and `more` (the benchmark's own defaults) are.
void describe_thesis_defaults(CLI::App& app, std::string_view more = {});

// Registers --sender-delay-us (microseconds, default `delay_us`).
void add_sender_delay_option(CLI::App& app, double& delay_us);

// Runs `schedule.warmup + schedule.iterations` repetitions: MPI_Barrier, then
// send(i) on the sender and receive(i) on the receiver, which returns the seconds
// it timed. Returns the receiver's mean over the timed repetitions, 0 elsewhere.
template <typename Send, typename Receive>
double mean_receive_time(MPI_Comm comm, const Pair& pair, const Schedule& schedule, Send&& send,
                         Receive&& receive) {
    double total = 0;
    for (int i = 0; i < schedule.warmup + schedule.iterations; ++i) {
        MPI_Barrier(comm);
        if (pair.sender) send(i);
        if (!pair.receiver) continue;
        const double seconds = receive(i);
        if (i >= schedule.warmup) total += seconds;
    }
    return pair.receiver ? total / schedule.iterations : 0;
}

// The sender's side of the template: `delay` seconds of computation, then
// MPI_Isend + MPI_Wait of `message` to the peer.
void send_after(MPI_Comm comm, const Pair& pair, std::span<const std::byte> message,
                const Work& work, double delay);

// The plain template: the sender computes `sender_delay` seconds, then MPI_Isend +
// MPI_Wait of `message`; the receiver times MPI_Irecv + `work_seconds` of
// computation + MPI_Wait into `message`. Returns the receiver's mean time.
double time_exchange(MPI_Comm comm, const Pair& pair, std::span<std::byte> message,
                     const Schedule& schedule, const Work& work, double work_seconds,
                     double sender_delay);

}  // namespace si::bench
