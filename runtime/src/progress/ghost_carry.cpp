// The ghost's side across nodes (ghost_process.hpp): the sends it carries to
// other nodes' ghosts, and what they carry here.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "base/cross_memory.hpp"
#include "base/log.hpp"
#include "progress/ghost_process.hpp"

namespace si::progress::ghost_detail {

// A send to another node's rank: on to the ghost that serves it
// (ghost_network.hpp), whole if small, else as an RTS for memory this
// ghost registers: the sender's MPI_Alloc_mem block, or a copy.
void Ghost::carry(const Origin& origin, const PostCell& cell) {
    block_.forwarded.fetch_add(1, std::memory_order_relaxed);
    const bool synchronous = (cell.flags & node::kCellSynchronous) != 0;
    Carried carried{origin, assignment_.layout.serving_ghost(cell.peer), {}};
    const RemoteEnvelope envelope{.id = ++last_carried_,
                                  .bytes = cell.bytes,
                                  .receiver = cell.peer,
                                  .source = cell.rank,
                                  .tag = cell.tag,
                                  .context = cell.context,
                                  .synchronous = static_cast<std::uint8_t>(synchronous)};
    const std::byte* data = cell.payload >= 0
                                ? area_.payload(origin.owner, cell.payload)
                                : shared_.find(origin.owner, cell.address, cell.bytes);
    if (data == nullptr && cell.bytes > 0) {
        carried.staging.resize(cell.bytes);
        if (int err = cross_memory::read(pid_of(origin.owner), carried.staging.data(), cell.bytes,
                                         cell.address)) {
            log::error("ghost {}: cannot read the {} bytes rank {} sends to rank {}: {}",
                       assignment_.index, cell.bytes, world_rank_of(origin.owner), cell.peer,
                       std::strerror(err));
            reply(origin, {.error = kErrOther});
            return;
        }
        data = carried.staging.data();
    }
    if (cell.bytes <= network_->eager_bytes()) {
        network_->send(carried.to, envelope, {data, cell.bytes});
        // The data has left: a standard send is complete.
        if (!synchronous) {
            reply(origin, {});
            return;
        }
        carried.staging.clear();
    } else if (!network_->send_rts(carried.to, envelope, data, cell.bytes)) {
        reply(origin, {.error = kErrOther});
        return;
    }
    carried_.emplace(envelope.id, std::move(carried));
}

// GhostNetwork::Handler: a message another node's ghost carried here.
void Ghost::remote_message(int from, const RemoteEnvelope& envelope,
                           std::span<const std::byte> data) {
    const int receiver = local_of_world_[static_cast<std::size_t>(envelope.receiver)];
    Send send{{-1, 0, 0},
              -1,
              false,
              key(envelope.context, envelope.source, envelope.tag, receiver),
              envelope.tag,
              envelope.bytes,
              0,
              {data.begin(), data.end()},
              from,
              envelope};
    if (!matched_on_arrival(send, receiver)) domain(receiver).unexpected.push_back(std::move(send));
}

void Ghost::remote_done(std::uint64_t id, int error) {
    const auto it = carried_.find(id);
    if (it == carried_.end()) return;
    reply(it->second.origin, {.error = error});
    carried_.erase(it);
}

void Ghost::ghost_failed(int ghost) {
    log::error(
        "ghost {}: ghost {} of another node is unreachable; the sends carried to it "
        "fail",
        assignment_.index, ghost);
    std::erase_if(carried_, [&](auto& entry) {
        if (entry.second.to != ghost) return false;
        reply(entry.second.origin, {.error = kErrOther});
        return true;
    });
}

// Reads a matched RTS into the receive, then answers both ends.
void Ghost::start_read(const Send& send, const Receive& to) {
    const std::uint64_t cookie = ++last_read_;
    Read& read =
        reads_.emplace(cookie, Read{send, to, std::min(send.bytes, to.capacity), {}}).first->second;
    std::byte* into = to.payload >= 0 ? area_.payload(to.origin.owner, to.payload)
                                      : shared_.find(to.origin.owner, to.address, read.bytes);
    if (into == nullptr) {
        read.staging.resize(read.bytes);
        into = read.staging.data();
    }
    if (read.bytes == 0 || !network_->read(send.from_ghost, send.remote, into, read.bytes, cookie))
        read_done(cookie, read.bytes == 0 ? 0 : kErrOther);
}

void Ghost::read_done(std::uint64_t cookie, int error) {
    const auto it = reads_.find(cookie);
    if (it == reads_.end()) return;
    const Read read = std::move(it->second);
    reads_.erase(it);
    const int receiver = read.receive.origin.owner;
    if (error == 0 && !read.staging.empty())
        error = cross_memory::write(pid_of(receiver), read.staging.data(), read.bytes,
                                    read.receive.address) != 0
                    ? kErrOther
                    : 0;
    if (error != 0)
        log::error("ghost {}: the {} bytes rank {} receives from another node failed to arrive",
                   assignment_.index, read.bytes, world_rank_of(receiver));
    else
        block_.rdma_read_bytes.fetch_add(read.bytes, std::memory_order_relaxed);
    reply(read.receive.origin, {.bytes = error == 0 ? read.bytes : 0,
                                .source = read.send.key.source,
                                .tag = read.send.tag,
                                .error = error != 0                                ? error
                                         : read.send.bytes > read.receive.capacity ? kErrTruncate
                                                                                   : 0});
    network_->send_done(read.send.from_ghost, read.send.remote.id, error);
}

}  // namespace si::progress::ghost_detail
