// Ping-pong of non-contiguous messages between two ranks: how much a derived
// datatype costs over the same bytes sent contiguously.
//
// For each message size (the bytes of data) and each --blocks size b that
// divides it, both ranks send and receive one MPI_Type_vector of size / b
// blocks of b bytes, a block's gap between blocks (the buffer spans twice
// the data), and the latency is half a round trip in microseconds, as
// pingpong's. The metric names the layout: latency_contiguous (the same bytes
// as MPI_BYTE, the reference), latency_blocks_<b>.
//
// Payloads are checked once per layout and size, after the timed loop: rank
// 1 echoes what it received, so rank 0's blocks must hold its own pattern and
// its gaps stay cleared.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"

namespace {

namespace bench = si::bench;

constexpr int kTag = 1;

constexpr bench::ScheduleDefaults kSchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 100, .large_warmup = 10};

// One message layout: `block` bytes per run, 0 for one contiguous run.
struct Layout {
    std::size_t block;
    std::string name() const {
        return block == 0 ? "latency_contiguous" : fmt::format("latency_blocks_{}", block);
    }
};

// The datatype of `size` data bytes in this layout, and how many items of it.
MPI_Datatype make_type(const Layout& layout, std::size_t size, int& count) {
    MPI_Datatype type = MPI_BYTE;
    count = static_cast<int>(size);
    if (layout.block != 0) {
        const int block = static_cast<int>(layout.block);
        MPI_Type_vector(static_cast<int>(size / layout.block), block, 2 * block, MPI_BYTE, &type);
        MPI_Type_commit(&type);
        count = 1;
    }
    return type;
}

// Whether `received` holds `sent`'s bytes in the layout's blocks and the cleared
// value in its gaps (compared against a cleared buffer's first byte).
bool blocks_intact(const bench::Buffer& received, const bench::Buffer& sent, const Layout& layout,
                   std::size_t size, std::byte cleared) {
    const std::size_t block = layout.block == 0 ? size : layout.block;
    const std::size_t span = layout.block == 0 ? size : 2 * size;
    for (std::size_t at = 0; at < span; ++at) {
        const bool data = (at / block) % 2 == 0 || layout.block == 0;
        const std::byte want = data ? sent.bytes(at, 1)[0] : cleared;
        if (received.bytes(at, 1)[0] != want) return false;
    }
    return true;
}

void measure(bench::Session& s, const Layout& layout, std::size_t size) {
    const int peer = 1 - s.rank();
    const MPI_Comm comm = s.comm();
    int count = 0;
    MPI_Datatype type = make_type(layout, size, count);
    bench::Buffer send(2 * size), recv(2 * size), cleared(1);
    bench::fill_pattern(send.bytes(0, 2 * size), size + layout.block);
    bench::clear(recv.bytes(0, 2 * size));
    bench::clear(cleared.bytes(0, 1));
    auto ping = [&] {
        MPI_Send(send.data(), count, type, peer, kTag, comm);
        MPI_Recv(recv.data(), count, type, peer, kTag, comm, MPI_STATUS_IGNORE);
    };
    auto pong = [&] {
        MPI_Recv(recv.data(), count, type, peer, kTag, comm, MPI_STATUS_IGNORE);
        MPI_Send(recv.data(), count, type, peer, kTag, comm);
    };
    const bench::Schedule schedule = s.schedule(size, kSchedule);
    const auto samples = s.rank() == 0 ? bench::time_samples(comm, schedule, ping)
                                       : bench::time_samples(comm, schedule, pong);
    s.check(s.rank() != 0 || blocks_intact(recv, send, layout, size, cleared.bytes(0, 1)[0]),
            fmt::format("{} payload of {} B", layout.name(), size));
    s.report({.metric = layout.name(),
              .unit = "us",
              .msg_size = size,
              .summary = bench::summarize(samples.seconds, [](double t) { return t / 2 * 1e6; }),
              .schedule = schedule,
              .batch = samples.batch});
    if (type != MPI_BYTE) MPI_Type_free(&type);
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "p2p",
                            .benchmark = "dtype",
                            .description = "Ping-pong latency of strided (MPI_Type_vector) "
                                           "messages against the same bytes contiguous",
                            .min_ranks = 2,
                            .max_ranks = 2});
    std::vector<std::size_t> blocks = {256, 4096, 65536};
    session.cli()
        .add_option("--blocks", blocks, "Block sizes of the strided layouts, in bytes")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
        ->delimiter(',')
        ->capture_default_str();
    session.cli().footer(
        fmt::format("Defaults: {} round trips after {} warm-up ({} after {} above --large-above).",
                    kSchedule.iterations, kSchedule.warmup, kSchedule.large_iterations,
                    kSchedule.large_warmup));
    if (!session.start()) return session.exit_code();
    for (std::size_t size : session.sizes(1)) {
        measure(session, Layout{0}, size);
        for (std::size_t block : blocks)
            if (block < size && size % block == 0) measure(session, Layout{block}, size);
    }
    return session.finish();
}
