// A rank blocked in MPI for long: the CPU it uses meanwhile, and what its wait
// policy costs it when the message finally comes.
//
// For each blocking call (MPI_Recv, MPI_Wait, MPI_Probe, MPI_Waitany,
// MPI_Waitsome, MPI_Mprobe, MPI_Bcast), each repetition: MPI_Barrier; the
// sender computes --block-seconds, then sends 8 bytes holding the time they
// left (CLOCK_MONOTONIC, which the processes of one host read alike); the
// receiver, blocked in the call all along, notes its thread's CPU time and the
// time the call returned.
//
//   cpu_share_<call>    CPU time of the blocked thread over the wall time, in %
//                       (about 100 for a rank that polls, near 0 for one that
//                       sleeps)
//   wake_delay_<call>   how much later than a rank that waited only briefly
//                       (--short-wait-us, under every policy's polling time)
//                       the blocked rank returned after the send, in us: the
//                       price of a sleep (a wake-up) or of a descheduled poller
//
// Both per receiver, each the mean of its repetitions; msg_size is 8. Pairs
// must share a host (the send time is read on the sender's clock).
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "common/pairs.hpp"

namespace {

namespace bench = si::bench;

constexpr bench::ScheduleDefaults kDefaults{
    .iterations = 2, .warmup = 0, .large_iterations = 2, .large_warmup = 0};
// Repetitions behind the brief-wait reference, and how many are dropped first.
constexpr int kReferenceRounds = 200;
constexpr int kReferenceWarmup = 20;

enum class Call { recv, wait, probe, waitany, waitsome, mprobe, bcast };
constexpr std::array kCalls{Call::recv,     Call::wait,   Call::probe, Call::waitany,
                            Call::waitsome, Call::mprobe, Call::bcast};

const char* name_of(Call call) {
    switch (call) {
        case Call::recv: return "recv";
        case Call::wait: return "wait";
        case Call::probe: return "probe";
        case Call::waitany: return "waitany";
        case Call::waitsome: return "waitsome";
        case Call::mprobe: return "mprobe";
        case Call::bcast: return "bcast";
    }
    return "?";
}

double monotonic_seconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// The pair's communicator, for MPI_Bcast: the sender is its rank 0.
MPI_Comm pair_comm(MPI_Comm comm, int rank, const bench::Pair& pair) {
    const bool paired = pair.sender || pair.receiver;
    MPI_Comm result = MPI_COMM_NULL;
    MPI_Comm_split(comm, paired ? std::min(rank, pair.peer) : MPI_UNDEFINED, pair.sender ? 0 : 1,
                   &result);
    return result;
}

// The sender's side of one repetition: the stamped message.
void send_stamped(Call call, const bench::Pair& pair, MPI_Comm pair_world, int tag) {
    double stamp = monotonic_seconds();
    if (call == Call::bcast)
        MPI_Bcast(&stamp, 1, MPI_DOUBLE, 0, pair_world);
    else
        MPI_Send(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD);
}

// The receiver's side: blocked in `call` until the message is in; returns its
// stamp.
double receive_stamped(Call call, const bench::Pair& pair, MPI_Comm pair_world, int tag) {
    double stamp = 0;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Message message = MPI_MESSAGE_NULL;
    int index = 0, count = 0, indices[2] = {0, 0};
    switch (call) {
        case Call::recv:
            MPI_Recv(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case Call::wait:
            MPI_Irecv(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD, &requests[0]);
            MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
            break;
        case Call::probe:
            MPI_Probe(pair.peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case Call::waitany:
            MPI_Irecv(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD, &requests[1]);
            MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
            break;
        case Call::waitsome:
            MPI_Irecv(&stamp, 1, MPI_DOUBLE, pair.peer, tag, MPI_COMM_WORLD, &requests[0]);
            MPI_Waitsome(2, requests, &count, indices, MPI_STATUSES_IGNORE);
            break;
        case Call::mprobe:
            MPI_Mprobe(pair.peer, tag, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
            MPI_Mrecv(&stamp, 1, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
            break;
        case Call::bcast: MPI_Bcast(&stamp, 1, MPI_DOUBLE, 0, pair_world); break;
    }
    return stamp;
}

struct Blocked {
    double cpu_share = 0;  // mean over the repetitions, in %
    double delay_s = 0;    // mean arrival delay after the send
};

// `repetitions` of: barrier, the sender computes `seconds`, one stamped
// message. Meaningful on the receiver only.
Blocked run(Call call, const bench::Pair& pair, MPI_Comm pair_world, const bench::Work& work,
            double seconds, int repetitions, int tag) {
    Blocked mean;
    for (int i = 0; i < repetitions; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (pair.sender) {
            work.run(seconds);
            send_stamped(call, pair, pair_world, tag);
        } else if (pair.receiver) {
            const double wall_start = monotonic_seconds(), cpu_start = thread_cpu_seconds();
            const double stamp = receive_stamped(call, pair, pair_world, tag);
            const double returned = monotonic_seconds();
            mean.cpu_share += 100 * (thread_cpu_seconds() - cpu_start) / (returned - wall_start);
            mean.delay_s += returned - stamp;
        }
    }
    mean.cpu_share /= std::max(repetitions, 1);
    mean.delay_s /= std::max(repetitions, 1);
    return mean;
}

// The arrival delay of a receiver that has waited only `seconds` in `call`:
// median over kReferenceRounds.
double reference_delay(Call call, const bench::Pair& pair, MPI_Comm pair_world,
                       const bench::Work& work, double seconds, int tag) {
    std::vector<double> delays;
    for (int i = 0; i < kReferenceWarmup + kReferenceRounds; ++i) {
        const Blocked one = run(call, pair, pair_world, work, seconds, 1, tag);
        if (i >= kReferenceWarmup) delays.push_back(one.delay_s);
    }
    std::nth_element(delays.begin(), delays.begin() + kReferenceRounds / 2, delays.end());
    return delays[kReferenceRounds / 2];
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "blocked",
                            .description = "CPU use of a rank blocked long in each blocking MPI "
                                           "call, and the delay its wait policy adds when the "
                                           "message comes",
                            .min_ranks = 2,
                            .default_min_size = 8,
                            .default_max_size = 8});
    double block_seconds = 2;
    double short_wait_us = 10;
    session.cli()
        .add_option("--block-seconds", block_seconds,
                    "how long the sender computes before each message (default 2)")
        ->check(CLI::Range(0.001, 600.0));
    session.cli()
        .add_option("--short-wait-us", short_wait_us,
                    "the sender's compute time in the reference runs, in microseconds "
                    "(default 10)")
        ->check(CLI::Range(0.0, 1e4));
    session.cli().footer(fmt::format(
        "Defaults: {} blocked repetitions per call, no warm-up; the reference is the median of "
        "{} short waits after {} dropped.",
        kDefaults.iterations, kReferenceRounds, kReferenceWarmup));
    if (!session.start()) return session.exit_code();
    const bench::Work work;
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    MPI_Comm pair_world = pair_comm(session.comm(), session.rank(), pair);
    const std::size_t size = 8;
    const bench::Schedule schedule = session.schedule(size, kDefaults);
    int tag = 0;
    for (Call call : kCalls) {
        ++tag;
        const double reference =
            reference_delay(call, pair, pair_world, work, short_wait_us * 1e-6, tag);
        const Blocked blocked =
            run(call, pair, pair_world, work, block_seconds, schedule.iterations, tag);
        session.report(bench::over_receivers(session.comm(),
                                             fmt::format("cpu_share_{}", name_of(call)), "%",
                                             size, blocked.cpu_share, schedule));
        session.report(bench::over_receivers(session.comm(),
                                             fmt::format("wake_delay_{}", name_of(call)), "us",
                                             size, (blocked.delay_s - reference) * 1e6, schedule));
    }
    if (pair_world != MPI_COMM_NULL) MPI_Comm_free(&pair_world);
    return session.finish();
}
