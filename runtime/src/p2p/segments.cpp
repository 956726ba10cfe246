#include "p2p/segments.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/log.hpp"
#include "p2p/engine.hpp"

namespace si::p2p {

transport::Result read_into(transport::Transport& transport, int peer,
                            std::span<const Segment> pieces, std::uint64_t remote,
                            std::size_t bytes) {
    // Pieces 64 at a time: enough to amortise the system call, few enough
    // for the stack of any thread that progresses.
    std::array<Segment, 64> call;
    while (bytes > 0 && !pieces.empty()) {
        std::size_t count = 0;
        std::uint64_t batch = 0;
        for (; count < call.size() && !pieces.empty() && batch < bytes;
             pieces = pieces.subspan(1)) {
            const std::uint64_t n = std::min<std::uint64_t>(pieces.front().bytes, bytes - batch);
            call[count++] = Segment{pieces.front().address, n};
            batch += n;
        }
        if (transport.rdma_readv(peer, std::span(call.data(), count), remote) !=
            transport::Result::done)
            return transport::Result::failed;
        remote += batch;
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

bool Engine::reads_into_pieces_from(int world_peer) const {
    if (!options_.receive_in_pieces) return false;
    if (world_peer != kAnySource) return transport_of_[world_peer]->capabilities().vectored;
    return std::ranges::all_of(
        transports_, [](const transport::Transport* t) { return t->capabilities().vectored; });
}

transport::Result Engine::read_into_pieces(const Request& request, int peer, std::uint64_t remote,
                                           std::size_t bytes) {
    transport::Transport& transport = *transport_of_[peer];
    if (!transport.capabilities().vectored) {
        log::error(
            "internal: a receive in pieces met a rendezvous from rank {} over {}, which "
            "cannot read into pieces",
            peer, transport.capabilities().name);
        return transport::Result::failed;
    }
    ++stats_.piecewise_reads;
    return read_into(transport, peer, request.segments, remote, bytes);
}

}  // namespace si::p2p
