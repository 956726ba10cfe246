// Ping-pong between two ranks.
//
// latency:     half of one MPI_Send/MPI_Recv round trip, in microseconds.
// bandwidth:   rank 0 posts a window of MPI_Isend, rank 1 a window of MPI_Irecv into
//              distinct slots, then a 0-byte ack closes the window; window * size
//              bytes / time, in MB/s (1e6 bytes/s).
// bibandwidth: both ranks post a window of MPI_Irecv into distinct slots, then a
//              window of MPI_Isend to each other, then MPI_Waitall on both; the
//              bytes of both directions, 2 * window * size, / time, in MB/s. No ack:
//              each rank's Waitall covers its receives, so the window ends when the
//              peer's last message has arrived. Timed on rank 0.
// The harness batches round trips (or windows) that are too short to time one by one.
//
// Payloads are checked once per size, after the timed loop: the receive buffers are
// cleared before it and must hold the sender's pattern after it.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"

namespace {

namespace bench = si::bench;

constexpr int kPingTag = 1;
constexpr int kDataTag = 2;
constexpr int kAckTag = 3;

// A round trip costs about two messages, a bandwidth window `window` of them (a
// bidirectional one twice that): the bandwidth tests take fewer samples so that all
// finish in seconds.
constexpr bench::ScheduleDefaults kLatencySchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 100, .large_warmup = 10};
// Large windows (64 x 1 MiB and up) run faster for the first few until the cache and
// TLB settle; measured here, 2 warm-up windows left the 1 MiB median swinging between
// 5.6 and 8.4 GB/s from run to run, 10 keep it within about 10%.
constexpr bench::ScheduleDefaults kBandwidthSchedule{
    .iterations = 100, .warmup = 10, .large_iterations = 30, .large_warmup = 10};

// Receive memory of one bandwidth window, per receiving rank (both ranks in the
// bidirectional test); the default (64 x 4 MiB) takes 256 MiB.
constexpr std::size_t kMaxWindowBytes = std::size_t{1} << 30;

std::uint64_t seed_for(std::size_t size) {
    return size;
}

// Both directions at once carry different patterns, so that a rank that got its own
// data back (or the other direction's) fails the check.
std::uint64_t seed_for(std::size_t size, int sender) {
    return 2 * size + static_cast<std::uint64_t>(sender) + 1;
}

// Whether every slot of a window received `size` bytes of `seed`'s pattern.
bool window_intact(bench::Buffer& slots, std::size_t window, std::size_t size, std::uint64_t seed) {
    for (std::size_t i = 0; i < window; ++i)
        if (!bench::check_pattern(slots.bytes(i * size, size), seed)) return false;
    return true;
}

// Bytes moved per window / seconds per window, in MB/s.
bench::Summary rate_of(const bench::Samples& samples, double bytes) {
    return bench::summarize(samples.seconds, [&](double t) { return bytes / t / 1e6; });
}

void measure_latency(bench::Session& s) {
    const int peer = 1 - s.rank();
    const MPI_Comm comm = s.comm();
    bench::Buffer send(s.options().max_size);
    bench::Buffer recv(s.options().max_size);
    for (std::size_t size : s.sizes()) {
        const bench::Schedule schedule = s.schedule(size, kLatencySchedule);
        const int count = static_cast<int>(size);
        bench::fill_pattern(send.bytes(0, size), seed_for(size));
        bench::clear(recv.bytes(0, size));
        auto ping = [&] {
            MPI_Send(send.data(), count, MPI_BYTE, peer, kPingTag, comm);
            MPI_Recv(recv.data(), count, MPI_BYTE, peer, kPingTag, comm, MPI_STATUS_IGNORE);
        };
        // Echoes what arrived, so that rank 0's check covers both directions.
        auto pong = [&] {
            MPI_Recv(recv.data(), count, MPI_BYTE, peer, kPingTag, comm, MPI_STATUS_IGNORE);
            MPI_Send(recv.data(), count, MPI_BYTE, peer, kPingTag, comm);
        };
        const auto samples = s.rank() == 0 ? bench::time_samples(comm, schedule, ping)
                                           : bench::time_samples(comm, schedule, pong);
        s.check(bench::check_pattern(recv.bytes(0, size), seed_for(size)),
                fmt::format("latency payload of {} B", size));
        s.report(
            {.metric = "latency",
             .unit = "us",
             .msg_size = size,
             .summary = bench::summarize(samples.seconds, [](double t) { return t / 2 * 1e6; }),
             .schedule = schedule,
             .batch = samples.batch});
    }
}

void measure_bandwidth(bench::Session& s, int window) {
    const int peer = 1 - s.rank();
    const MPI_Comm comm = s.comm();
    const bool sender = s.rank() == 0;
    const std::size_t slots = static_cast<std::size_t>(window);
    // The sender may pass one buffer to every MPI_Isend of a window; receives need
    // one slot each (overlapping receive buffers are erroneous MPI).
    bench::Buffer buffer(sender ? s.options().max_size : slots * s.options().max_size);
    std::vector<MPI_Request> requests(slots, MPI_REQUEST_NULL);
    for (std::size_t size : s.sizes(1)) {
        const bench::Schedule schedule = s.schedule(size, kBandwidthSchedule);
        const int count = static_cast<int>(size);
        if (sender)
            bench::fill_pattern(buffer.bytes(0, size), seed_for(size));
        else
            bench::clear(buffer.bytes(0, slots * size));
        auto send_window = [&] {
            for (MPI_Request& request : requests)
                MPI_Isend(buffer.data(), count, MPI_BYTE, peer, kDataTag, comm, &request);
            MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
            MPI_Recv(buffer.data(), 0, MPI_BYTE, peer, kAckTag, comm, MPI_STATUS_IGNORE);
        };
        auto receive_window = [&] {
            for (std::size_t i = 0; i < slots; ++i)
                MPI_Irecv(buffer.data() + i * size, count, MPI_BYTE, peer, kDataTag, comm,
                          &requests[i]);
            MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
            MPI_Send(buffer.data(), 0, MPI_BYTE, peer, kAckTag, comm);
        };
        const auto samples = sender ? bench::time_samples(comm, schedule, send_window)
                                    : bench::time_samples(comm, schedule, receive_window);
        s.check(sender || window_intact(buffer, slots, size, seed_for(size)),
                fmt::format("bandwidth payload of {} B", size));
        s.report({.metric = "bandwidth",
                  .unit = "MB/s",
                  .msg_size = size,
                  .summary = rate_of(samples, static_cast<double>(slots * size)),
                  .schedule = schedule,
                  .batch = samples.batch});
    }
}

void measure_bibandwidth(bench::Session& s, int window) {
    const int peer = 1 - s.rank();
    const MPI_Comm comm = s.comm();
    const std::size_t slots = static_cast<std::size_t>(window);
    // One send buffer for every MPI_Isend of a window, one slot per MPI_Irecv.
    bench::Buffer send(s.options().max_size);
    bench::Buffer receive(slots * s.options().max_size);
    // Receives first, then sends: the first `window` requests are the receives.
    std::vector<MPI_Request> requests(2 * slots, MPI_REQUEST_NULL);
    for (std::size_t size : s.sizes(1)) {
        const bench::Schedule schedule = s.schedule(size, kBandwidthSchedule);
        const int count = static_cast<int>(size);
        bench::fill_pattern(send.bytes(0, size), seed_for(size, s.rank()));
        bench::clear(receive.bytes(0, slots * size));
        auto exchange_window = [&] {
            for (std::size_t i = 0; i < slots; ++i)
                MPI_Irecv(receive.data() + i * size, count, MPI_BYTE, peer, kDataTag, comm,
                          &requests[i]);
            for (std::size_t i = 0; i < slots; ++i)
                MPI_Isend(send.data(), count, MPI_BYTE, peer, kDataTag, comm, &requests[slots + i]);
            MPI_Waitall(2 * window, requests.data(), MPI_STATUSES_IGNORE);
        };
        const auto samples = bench::time_samples(comm, schedule, exchange_window);
        s.check(window_intact(receive, slots, size, seed_for(size, peer)),
                fmt::format("bidirectional bandwidth payload of {} B", size));
        s.report({.metric = "bibandwidth",
                  .unit = "MB/s",
                  .msg_size = size,
                  .summary = rate_of(samples, 2.0 * static_cast<double>(slots * size)),
                  .schedule = schedule,
                  .batch = samples.batch});
    }
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "pingpong",
                            .description = "Ping-pong latency, bandwidth and bidirectional "
                                           "bandwidth between two ranks",
                            .min_ranks = 2,
                            .max_ranks = 2});
    int window = 64;
    std::vector<std::string> tests = {"latency", "bandwidth", "bibandwidth"};
    session.cli()
        .add_option("--window", window, "Messages in flight per bandwidth sample")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    session.cli()
        .add_option("--tests", tests, "Which measurements to run")
        ->check(CLI::IsMember({"latency", "bandwidth", "bibandwidth"}))
        ->delimiter(',')
        ->capture_default_str();
    constexpr auto lat = kLatencySchedule;
    constexpr auto bw = kBandwidthSchedule;
    session.cli().footer(fmt::format(
        "Defaults: latency {} round trips after {} warm-up ({} after {} above --large-above); "
        "bandwidth and bibandwidth {} windows after {} ({} after {}).",
        lat.iterations, lat.warmup, lat.large_iterations, lat.large_warmup, bw.iterations,
        bw.warmup, bw.large_iterations, bw.large_warmup));
    if (!session.start()) return session.exit_code();
    // A receiving rank takes a whole window into distinct slots.
    const auto wanted = [&](const char* test) {
        return std::find(tests.begin(), tests.end(), test) != tests.end();
    };
    if ((wanted("bandwidth") || wanted("bibandwidth")) &&
        static_cast<std::size_t>(window) * session.options().max_size > kMaxWindowBytes)
        return session.reject(fmt::format("--window {} x --max-size {} needs more than {} MiB",
                                          window, session.options().max_size,
                                          kMaxWindowBytes / bench::MiB));

    for (const std::string& test : tests) {
        if (test == "latency") measure_latency(session);
        if (test == "bandwidth") measure_bandwidth(session, window);
        if (test == "bibandwidth") measure_bibandwidth(session, window);
    }
    return session.finish();
}
