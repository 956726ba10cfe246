// Asynchronous progression, after the thesis' progression template: how long a
// receiver-first message takes to arrive while the receiver computes and makes
// no MPI call. Pairs, the sender's delay and the receiver-side timing:
// common/pairs.hpp.
//
//   latency       T_lat: MPI_Irecv + MPI_Wait with no work, measured in this run
//                 for every size (the thesis takes T_lat of the run without
//                 progression; the harness can rescale with that run's latency).
//   arrival_<p>   for T_syn = p/100 x T_lat, p = 150, 160, ..., 300: the receiver
//                 posts MPI_Irecv, then computes T_syn in chunks of about 1 us and
//                 between chunks reads the message's sentinels (its first and
//                 last 8 bytes, which the sender sets to the repetition's number
//                 and the receiver clears before MPI_Irecv) with plain atomic
//                 loads, no MPI call. Timing stops when both hold the number;
//                 when they do not by the end of the work, after MPI_Wait.
//
// Both in microseconds, the mean over the repetitions of each receiver, with
// statistics over the receivers. With progression the arrival stays near T_lat
// whatever T_syn; without it the data arrives only in MPI_Wait, after T_syn.
// Arrival is seen with a chunk's granularity (about 1 us). Payloads are checked
// after the timed loops.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "common/bench.hpp"
#include "common/pairs.hpp"

namespace {

namespace bench = si::bench;

constexpr int kFirstPercent = 150;
constexpr int kLastPercent = 300;
constexpr int kStepPercent = 10;
// Short enough to see arrival within a microsecond, long enough that two loads
// between chunks cost nothing next to the work.
constexpr double kChunkSeconds = 1e-6;

constexpr std::size_t kSentinelBytes = sizeof(std::uint64_t);
constexpr std::uint64_t kCleared = 0;

// The first and last 8 bytes of a message. The receiver's loads race with the
// runtime writing the buffer (an RDMA read, a progress thread), so they are
// atomic; the message is page-aligned and its size a power of two >= 16, so both
// words are aligned.
class Sentinels {
  public:
    explicit Sentinels(std::span<std::byte> message)
        : first_(*reinterpret_cast<std::uint64_t*>(message.data())),
          last_(*reinterpret_cast<std::uint64_t*>(message.data() + message.size() -
                                                  kSentinelBytes)) {}

    void set(std::uint64_t value) {
        std::atomic_ref(first_).store(value, std::memory_order_relaxed);
        std::atomic_ref(last_).store(value, std::memory_order_relaxed);
    }
    // Only the words matter: the payload is read after MPI_Wait, which orders it.
    [[nodiscard]] bool hold(std::uint64_t value) const {
        return std::atomic_ref(first_).load(std::memory_order_relaxed) == value &&
               std::atomic_ref(last_).load(std::memory_order_relaxed) == value;
    }

  private:
    std::uint64_t& first_;
    std::uint64_t& last_;
};

std::uint64_t stamp(int repetition) {
    return static_cast<std::uint64_t>(repetition) + 1;  // never kCleared
}

// Receiver's mean time from MPI_Irecv to the data's arrival, with `work_seconds`
// of computation after MPI_Irecv.
double time_arrival(MPI_Comm comm, const bench::Pair& pair, std::span<std::byte> message,
                    const bench::Schedule& schedule, const bench::Work& work, double work_seconds,
                    double sender_delay) {
    Sentinels sentinels(message);
    const int chunks = std::max(1, static_cast<int>(std::lround(work_seconds / kChunkSeconds)));
    const double chunk = work_seconds / chunks;
    auto send = [&](int i) {
        sentinels.set(stamp(i));
        bench::send_after(comm, pair, message, work, sender_delay);
    };
    auto receive = [&](int i) {
        sentinels.set(kCleared);
        const double start = MPI_Wtime();
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Irecv(message.data(), static_cast<int>(message.size()), MPI_BYTE, pair.peer,
                  bench::kPairTag, comm, &request);
        double arrival = 0;
        for (int c = 0; c < chunks; ++c) {
            work.run(chunk);
            if (arrival == 0 && sentinels.hold(stamp(i))) arrival = MPI_Wtime();
        }
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (arrival == 0) arrival = MPI_Wtime();
        return arrival - start;
    };
    return bench::mean_receive_time(comm, pair, schedule, send, receive);
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "progression",
                            .description = "Arrival time of a receiver-first message while the "
                                           "receiver computes (the progression template)",
                            .min_ranks = 2,
                            .default_min_size = 16 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    double delay_us = 5;
    bench::add_sender_delay_option(session.cli(), delay_us);
    bench::describe_thesis_defaults(
        session.cli(),
        fmt::format("T_syn = {:.1f}, {:.1f}, ..., {:.1f} x T_lat.", kFirstPercent / 100.0,
                    (kFirstPercent + kStepPercent) / 100.0, kLastPercent / 100.0));
    if (!session.start()) return session.exit_code();
    // Smaller messages have no room for two sentinels and are left out.
    const std::vector<std::size_t> sizes = session.sizes(2 * kSentinelBytes);
    for (std::size_t size : sizes)
        if (size % kSentinelBytes != 0)
            return session.reject(
                fmt::format("sizes must be multiples of {} B (aligned sentinels), got {}",
                            kSentinelBytes, size));
    const bench::Work work;
    const bench::Pair pair = bench::pair_of(session.rank(), session.ranks());
    bench::Buffer buffer(session.options().max_size);
    const double delay = delay_us * 1e-6;
    for (std::size_t size : sizes) {
        const bench::Schedule schedule = session.schedule(size, bench::kThesisSchedule);
        const auto message = buffer.bytes(0, size);
        // The pattern fills what lies between the sentinels.
        const auto payload = message.subspan(kSentinelBytes, size - 2 * kSentinelBytes);
        bench::prepare_message(pair, payload, size);
        const double t_lat =
            bench::time_exchange(session.comm(), pair, message, schedule, work, 0, delay);
        session.report(
            bench::over_receivers(session.comm(), "latency", "us", size, t_lat * 1e6, schedule));
        for (int percent = kFirstPercent; percent <= kLastPercent; percent += kStepPercent) {
            const double t_syn = percent / 100.0 * t_lat;
            const double arrival =
                time_arrival(session.comm(), pair, message, schedule, work, t_syn, delay);
            session.report(bench::over_receivers(session.comm(), fmt::format("arrival_{}", percent),
                                                 "us", size, arrival * 1e6, schedule));
        }
        const std::uint64_t last = stamp(schedule.warmup + schedule.iterations - 1);
        session.check(bench::received_intact(pair, payload, size) &&
                          (!pair.receiver || Sentinels(message).hold(last)),
                      fmt::format("progression payload of {} B", size));
    }
    return session.finish();
}
