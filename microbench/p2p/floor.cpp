// The cache-line floor: what two processes of one host pay to hand each other data
// through shared memory with nothing else on the path, the physical limit of any
// MPI library's small-message latency and message rate on this machine.
//
// MPI only starts the two ranks, shares the mapping (SharedRegion) and reports; the
// timed loops are plain loads and stores on it:
//   latency:      one 64-byte line holding a counter. Rank 0 stores an odd value
//                 (release), rank 1 waits for it (acquire) and stores the next even
//                 one, rank 0 waits for that: half a round trip is the time one line
//                 takes to move from one core to the other, in ns.
//   message_rate: rank 0 streams messages of one cache line each (a sequence number
//                 and 56 bytes of payload) through a ring of kRingSlots lines; rank 1
//                 waits for each slot's sequence number, reads the payload and
//                 publishes how many it has consumed in a line of its own, which rank
//                 0 reads only when its last view of it says the ring is full. A
//                 repetition is a window of kWindow messages, timed on rank 0:
//                 messages per second.
// Each rank pins itself to one CPU of those it may use (rank i to the i-th), unless
// its launcher already bound it to one, so that the two never share a core.
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <new>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "common/shared_region.hpp"

namespace {

namespace bench = si::bench;

constexpr std::size_t kLineBytes = 64;
constexpr std::size_t kRingSlots = 16;
constexpr int kWindow = 256;

struct alignas(kLineBytes) Line {
    std::atomic<std::uint64_t> value{0};
};

// One message: the sequence number says the slot holds message `sequence` (1, 2,
// ...); it is stored last, with release, so the payload is visible when it is.
struct alignas(kLineBytes) Slot {
    std::atomic<std::uint64_t> sequence{0};
    std::uint64_t payload[kLineBytes / sizeof(std::uint64_t) - 1] = {};
};

struct Lines {
    Line ping;      // the ping-pong counter
    Line consumed;  // messages the stream's reader has taken, written by rank 1 only
    Slot ring[kRingSlots];
};
static_assert(sizeof(Slot) == kLineBytes);

constexpr bench::ScheduleDefaults kLatencySchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 1000, .large_warmup = 100};
constexpr bench::ScheduleDefaults kRateSchedule{
    .iterations = 300, .warmup = 30, .large_iterations = 300, .large_warmup = 30};

// The CPU this rank runs on: its launcher's when bound to one, else the rank-th it
// may use. Returns -1 when the affinity cannot be read or set.
int pin_to_own_cpu(int rank) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    std::vector<int> cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
    if (cpus.empty()) return -1;
    if (cpus.size() == 1) return cpus.front();
    const int cpu = cpus[static_cast<std::size_t>(rank) % cpus.size()];
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
}

void measure_latency(bench::Session& s, Lines& lines) {
    const bench::Schedule schedule = s.schedule(kLineBytes, kLatencySchedule);
    std::uint64_t round = 0;
    auto ping = [&] {
        ++round;
        lines.ping.value.store(2 * round - 1, std::memory_order_release);
        while (lines.ping.value.load(std::memory_order_acquire) != 2 * round) {
        }
    };
    auto pong = [&] {
        ++round;
        while (lines.ping.value.load(std::memory_order_acquire) != 2 * round - 1) {
        }
        lines.ping.value.store(2 * round, std::memory_order_release);
    };
    const auto samples = s.rank() == 0 ? bench::time_samples(s.comm(), schedule, ping)
                                       : bench::time_samples(s.comm(), schedule, pong);
    s.report({.metric = "latency",
              .unit = "ns",
              .msg_size = kLineBytes,
              .summary = bench::summarize(samples.seconds, [](double t) { return t / 2 * 1e9; }),
              .schedule = schedule,
              .batch = samples.batch});
}

void measure_rate(bench::Session& s, Lines& lines) {
    const bench::Schedule schedule = s.schedule(kLineBytes, kRateSchedule);
    std::uint64_t sent = 0;
    std::uint64_t consumed_seen = 0;  // the writer's last view of lines.consumed
    auto write_window = [&] {
        for (int i = 0; i < kWindow; ++i) {
            const std::uint64_t sequence = ++sent;
            while (sequence - consumed_seen > kRingSlots)
                consumed_seen = lines.consumed.value.load(std::memory_order_acquire);
            Slot& slot = lines.ring[(sequence - 1) % kRingSlots];
            slot.payload[0] = sequence;
            slot.sequence.store(sequence, std::memory_order_release);
        }
    };
    std::uint64_t received = 0;
    std::uint64_t misdelivered = 0;
    auto read_window = [&] {
        for (int i = 0; i < kWindow; ++i) {
            const std::uint64_t sequence = ++received;
            Slot& slot = lines.ring[(sequence - 1) % kRingSlots];
            while (slot.sequence.load(std::memory_order_acquire) != sequence) {
            }
            misdelivered += slot.payload[0] != sequence;
            lines.consumed.value.store(sequence, std::memory_order_release);
        }
    };
    const auto samples = s.rank() == 0 ? bench::time_samples(s.comm(), schedule, write_window)
                                       : bench::time_samples(s.comm(), schedule, read_window);
    s.check(misdelivered == 0, fmt::format("{} messages with a wrong payload", misdelivered));
    s.report({.metric = "message_rate",
              .unit = "msg/s",
              .msg_size = kLineBytes,
              .summary = bench::summarize(samples.seconds, [](double t) { return kWindow / t; }),
              .schedule = schedule,
              .batch = samples.batch});
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "floor",
                            .description = "The cache-line floor: one 64-byte line's one-way "
                                           "latency and a stream of cache-line messages between "
                                           "two processes in shared memory, without MPI",
                            .min_ranks = 2,
                            .max_ranks = 2});
    session.cli().footer(fmt::format(
        "Sizes do not apply (a message is one {}-byte line). Defaults: latency {} samples "
        "after {} warm-up round trips; rate {} windows of {} messages after {}, through a ring "
        "of {} lines.",
        kLineBytes, kLatencySchedule.iterations, kLatencySchedule.warmup, kRateSchedule.iterations,
        kWindow, kRateSchedule.warmup, kRingSlots));
    if (!session.start()) return session.exit_code();
    const int cpu = pin_to_own_cpu(session.rank());
    int cpus[2] = {-1, -1};
    MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, session.comm());
    if (session.rank() == 0 && !session.options().quiet)
        fmt::print("# cpus: rank 0 on {}, rank 1 on {}\n", cpus[0], cpus[1]);
    if (session.rank() == 0 && cpus[0] >= 0 && cpus[0] == cpus[1])
        fmt::print(stderr, "floor: both ranks run on CPU {}: the numbers are a time slice's\n",
                   cpus[0]);

    bench::SharedRegion region(session.comm(), sizeof(Lines));
    // Constructed once, before either rank starts storing into it.
    if (session.rank() == 0) new (region.data()) Lines;
    MPI_Barrier(session.comm());
    Lines& lines = *std::launder(static_cast<Lines*>(region.data()));
    measure_latency(session, lines);
    measure_rate(session, lines);
    return session.finish();
}
