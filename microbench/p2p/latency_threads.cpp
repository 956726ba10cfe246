// Ping-pong latency when several threads of a rank wait in MPI at once
// (MPI_THREAD_MULTIPLE), after osu_latency_mt.
//
// Rank 0 has one thread; rank 1 answers with --threads threads, each on a
// communicator of its own, and rank 0 sends round trip i to thread i mod
// --threads. While one thread of rank 1 answers, the others are blocked in
// MPI_Recv, so each message has to reach a thread that waits in the same
// progress engine as the rest: what this measures is how the library hands its
// progress over between the threads of a rank (and whether a thread confined to
// the same core as its siblings spins against them).
//
//   latency   half of one round trip, in microseconds.
//
// Payloads are checked after the timed loop, as in pingpong.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"

namespace {

namespace bench = si::bench;

constexpr int kPingTag = 1;
constexpr int kStopTag = 2;  // rank 0 to each answering thread after a size

constexpr bench::ScheduleDefaults kSchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 100, .large_warmup = 10};

// One of rank 1's threads: echoes every ping on its communicator until told to stop.
void answer(MPI_Comm comm, int count, bench::Buffer& buffer) {
    for (;;) {
        MPI_Status status;
        MPI_Recv(buffer.data(), count, MPI_BYTE, 0, MPI_ANY_TAG, comm, &status);
        if (status.MPI_TAG == kStopTag) return;
        MPI_Send(buffer.data(), count, MPI_BYTE, 0, kPingTag, comm);
    }
}

void measure(bench::Session& s, const std::vector<MPI_Comm>& comms) {
    const std::size_t threads = comms.size();
    const std::size_t max_size = s.options().max_size;
    for (std::size_t size : s.sizes()) {
        const bench::Schedule schedule = s.schedule(size, kSchedule);
        const int count = static_cast<int>(size);
        bench::Samples samples;
        if (s.rank() == 0) {
            bench::Buffer send(max_size), recv(max_size);
            bench::fill_pattern(send.bytes(0, size), size);
            bench::clear(recv.bytes(0, size));
            std::size_t round = 0;
            const auto ping = [&] {
                const MPI_Comm comm = comms[round++ % threads];
                MPI_Send(send.data(), count, MPI_BYTE, 1, kPingTag, comm);
                MPI_Recv(recv.data(), count, MPI_BYTE, 1, kPingTag, comm, MPI_STATUS_IGNORE);
            };
            samples = bench::time_samples(s.comm(), schedule, ping);
            for (const MPI_Comm comm : comms) MPI_Send(nullptr, 0, MPI_BYTE, 1, kStopTag, comm);
            s.check(bench::check_pattern(recv.bytes(0, size), size),
                    fmt::format("latency payload of {} B", size));
        } else {
            std::vector<bench::Buffer> buffers;
            for (std::size_t t = 0; t < threads; ++t) buffers.emplace_back(max_size);
            std::vector<std::thread> answering;
            for (std::size_t t = 0; t < threads; ++t)
                answering.emplace_back(answer, comms[t], count, std::ref(buffers[t]));
            // This thread only joins the timing loop's collectives (batch, barrier).
            samples = bench::time_samples(s.comm(), schedule, [] {});
            for (std::thread& thread : answering) thread.join();
        }
        s.report({.metric = "latency",
                  .unit = "us",
                  .msg_size = size,
                  .summary = bench::summarize(samples.seconds, [](double t) { return t / 2 * 1e6; }),
                  .schedule = schedule,
                  .batch = samples.batch});
    }
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "latency_threads",
                            .description = "Ping-pong latency to a rank whose threads all wait "
                                           "in MPI_Recv, taking turns",
                            .min_ranks = 2,
                            .max_ranks = 2,
                            .default_max_size = 64 * bench::KiB,
                            .needs_thread_multiple = true});
    int threads = 2;
    session.cli()
        .add_option("--threads", threads, "Threads of rank 1 answering in turn")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    session.cli().footer(fmt::format("Defaults: {} round trips after {} warm-up ({} after {} above "
                                     "--large-above).",
                                     kSchedule.iterations, kSchedule.warmup,
                                     kSchedule.large_iterations, kSchedule.large_warmup));
    if (!session.start()) return session.exit_code();
    std::vector<MPI_Comm> comms(static_cast<std::size_t>(threads));
    for (MPI_Comm& comm : comms) MPI_Comm_dup(session.comm(), &comm);
    measure(session, comms);
    for (MPI_Comm& comm : comms) MPI_Comm_free(&comm);
    return session.finish();
}
