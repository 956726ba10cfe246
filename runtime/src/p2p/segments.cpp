#include "p2p/segments.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/cpu.hpp"
#include "base/log.hpp"
#include "p2p/engine.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

transport::Result read_into(transport::Transport& transport, int peer,
                            std::span<const Segment> pieces, std::size_t skip,
                            transport::RemoteKey remote, std::size_t bytes) {
    for (; !pieces.empty() && skip >= pieces.front().bytes; pieces = pieces.subspan(1))
        skip -= static_cast<std::size_t>(pieces.front().bytes);
    std::array<Segment, transport::kMaxSegmentsPerCall> call;
    while (bytes > 0 && !pieces.empty()) {
        std::size_t count = 0;
        std::uint64_t batch = 0;
        for (; count < call.size() && !pieces.empty() && batch < bytes;
             pieces = pieces.subspan(1), skip = 0) {
            const Segment& piece = pieces.front();
            const std::uint64_t n = std::min<std::uint64_t>(piece.bytes - skip, bytes - batch);
            call[count++] = Segment{piece.address + skip, n};
            batch += n;
            if (skip + n < piece.bytes) {  // the batch ends inside this piece
                skip += static_cast<std::size_t>(n);
                break;
            }
        }
        if (transport.rdma_readv(peer, std::span(call.data(), count), remote) !=
            transport::Result::done)
            return transport::Result::failed;
        remote.address += batch;
        bytes -= static_cast<std::size_t>(batch);
    }
    return bytes == 0 ? transport::Result::done : transport::Result::failed;
}

void scatter(std::span<const Segment> pieces, const std::byte* data, std::size_t bytes) {
    for (const Segment& piece : pieces) {
        if (bytes == 0) return;
        const std::size_t n = std::min<std::size_t>(piece.bytes, bytes);
        std::memcpy(reinterpret_cast<void*>(piece.address), data, n);
        data += n;
        bytes -= n;
    }
}

bool Engine::streams_with(int world_peer) const {
    if (!options_.stream_noncontiguous) return false;
    if (world_peer != kAnySource) return transport_of_[world_peer]->capabilities().vectored;
    return std::ranges::all_of(transports_, [](const transport::Transport* t) {
        return t->capabilities().vectored;
    });
}

namespace {
// A reader behind a sender that packs looks this many times, about 2 us,
// before it yields.
constexpr unsigned kLooksPerYield = 64;
// Every this many looks (milliseconds) it reads the count through the
// kernel even when the transport exposes it as memory: that read fails if
// the sender died, where a count in shared memory would only stop moving.
constexpr unsigned kLooksPerLivenessCheck = 1u << 16;
}  // namespace

transport::Result Engine::read_streamed(const Request& request, int peer, const RtsHeader& rts,
                                        std::size_t bytes) {
    transport::Transport& transport = *transport_of_[peer];
    if (!transport.capabilities().vectored) {
        log::error("internal: a streamed rendezvous with rank {} over {}, which cannot stream",
                   peer, transport.capabilities().name);
        return transport::Result::failed;
    }
    if (!request.segments.empty()) ++stats_.piecewise_reads;
    if (rts.ready != 0) ++stats_.reads_behind_packing;
    // The sender is inside its send call, packing: it soon has more ready.
    // Yielding now and then lets it run if it shares this CPU; not at every
    // look, which on a busy host gives the CPU away for a time slice.
    std::size_t done = 0;
    bool unpacking = false;
    unsigned looks = 0;
    while (done < bytes) {
        std::uint64_t ready = bytes;
        const bool check_liveness = looks % kLooksPerLivenessCheck == kLooksPerLivenessCheck - 1;
        if (rts.ready != 0 &&
            transport.rdma_read(peer, &ready, sizeof ready,
                                transport::RemoteKey{rts.ready, check_liveness ? 0 : rts.key},
                                0) != transport::Result::done)
            return transport::Result::failed;
        const std::size_t until = static_cast<std::size_t>(std::min<std::uint64_t>(ready, bytes));
        if (until < bytes && until < done + kStreamPart) {
            cpu_relax();
            if (++looks % kLooksPerYield == 0) sched_yield();
            continue;
        }
        // Vectored even into a contiguous buffer (one segment): rdma_readv
        // never splits the copy with the sender (transport/shm/split_read.hpp),
        // whose core packs meanwhile; its progress thread would only copy
        // bytes its packing thread had just written.
        const transport::RemoteKey remote{rts.address + done, rts.key};
        // Data the transport exposes as memory goes straight to a receive
        // that unpacks it, saving the copy into its scratch: every part or
        // none (one registration is either exposed or not).
        const std::byte* data = (done == 0 || unpacking) && request.hook != nullptr &&
                                        request.segments.empty()
                                    ? transport.view(peer, remote, until - done)
                                    : nullptr;
        if (data != nullptr && request.hook->unpack_part(data, until - done)) {
            unpacking = true;
            done = until;
            continue;
        }
        if (unpacking) return transport::Result::failed;
        const Segment rest{reinterpret_cast<std::uint64_t>(request.buffer) + done, until - done};
        const transport::Result result =
            request.segments.empty()
                ? read_into(transport, peer, std::span(&rest, 1), 0, remote, until - done)
                : read_into(transport, peer, request.segments, done, remote, until - done);
        if (result != transport::Result::done) return transport::Result::failed;
        done = until;
    }
    return transport::Result::done;
}

}  // namespace si::p2p
