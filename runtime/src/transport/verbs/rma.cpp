#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::transport::verbs {

// ---- registration ------------------------------------------------------------------

std::optional<PinnedRange> VerbsTransport::pin(std::uintptr_t begin, std::size_t bytes) {
    void* address = reinterpret_cast<void*>(begin);
    ibv_mr* mr =
        ::ibv_reg_mr(pd_, address, bytes,
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    bool writable = true;
    int err = errno;
    if (mr == nullptr && err != ENOMEM) {
        // Read-only memory (a constant buffer sent with the rendezvous) cannot
        // be pinned for writing; peers may still read it.
        mr = ::ibv_reg_mr(pd_, address, bytes, static_cast<int>(IBV_ACCESS_REMOTE_READ));
        writable = false;
        if (mr == nullptr) err = errno;
    }
    if (mr == nullptr) {
        log::error("verbs: cannot register {} bytes at {:#x} for RDMA: {}{}", bytes, begin,
                   std::strerror(err),
                   err == ENOMEM || err == EPERM || err == EAGAIN
                       ? " (the locked-memory limit, `ulimit -l`, may be too low)"
                       : "");
        return std::nullopt;
    }
    return PinnedRange{mr, mr->lkey, mr->rkey, writable};
}

void VerbsTransport::unpin(const PinnedRange& range) {
    if (int err = ::ibv_dereg_mr(static_cast<ibv_mr*>(range.handle)))
        log::warn("verbs: ibv_dereg_mr failed: {}", std::strerror(err));
}

Registration VerbsTransport::register_memory(const void* address, std::size_t bytes) {
    if (bytes == 0) return Registration{const_cast<void*>(address), 0, 0, nullptr};
    RegistrationCache::Entry* entry = cache_->acquire(address, bytes, false);
    // An empty registration tells the engine it failed (pin() said why).
    if (entry == nullptr) return Registration{};
    return Registration{const_cast<void*>(address), bytes, entry->pinned.rkey, entry};
}

void VerbsTransport::deregister_memory(Registration& registration) {
    if (registration.handle != nullptr)
        cache_->release(static_cast<RegistrationCache::Entry*>(registration.handle));
    registration = {};
}

// ---- RDMA Read and Write -------------------------------------------------------------

Result VerbsTransport::rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                                 std::uint64_t cookie) {
    return start_rdma(IBV_WR_RDMA_READ, peer, local, bytes, remote, cookie);
}

Result VerbsTransport::rdma_write(int peer, const void* local, std::size_t bytes, RemoteKey remote,
                                  std::uint64_t cookie) {
    return start_rdma(IBV_WR_RDMA_WRITE, peer, local, bytes, remote, cookie);
}

Result VerbsTransport::start_rdma(ibv_wr_opcode opcode, int peer_rank, const void* local,
                                  std::size_t bytes, RemoteKey remote, std::uint64_t cookie) {
    const int index = index_of_[static_cast<std::size_t>(peer_rank)];
    if (peers_[static_cast<std::size_t>(index)].failed) return Result::failed;
    if (bytes == 0) return Result::done;
    // The NIC writes into the local buffer of a read. In a signal handler
    // nothing may be pinned: the engine registered the buffer beforehand
    // (Capabilities::pins_memory), and ops_ has room (complete_in_signal_handler).
    const bool writable = opcode == IBV_WR_RDMA_READ;
    RegistrationCache::Entry* registration = in_signal_handler_
                                                 ? cache_->find(local, bytes, writable)
                                                 : cache_->acquire(local, bytes, writable);
    if (registration == nullptr) return Result::failed;

    std::uint32_t op_index = 0;
    if (free_ops_.empty()) {
        if (ops_.size() == ops_.capacity()) reserve_ops(2 * ops_.capacity());
        op_index = static_cast<std::uint32_t>(ops_.size());
        ops_.emplace_back();
    } else {
        op_index = free_ops_.back();
        free_ops_.pop_back();
    }
    RdmaOp& op = ops_[op_index];
    op = RdmaOp{};
    op.cookie = cookie;
    op.peer = index;
    op.opcode = opcode;
    op.local = static_cast<std::byte*>(const_cast<void*>(local));
    op.remote = remote.address;
    op.rkey = static_cast<std::uint32_t>(remote.key);
    op.bytes = bytes;
    op.registration = registration;
    post_rdma(op_index);
    if (op.in_flight == 0 && op.error != 0) {
        cache_->release(registration);
        free_ops_.push_back(op_index);
        return Result::failed;
    }
    return Result::posted;
}

void VerbsTransport::reserve_ops(std::size_t ops) {
    ops_.reserve(ops);
    free_ops_.reserve(ops);
    backlog_.reserve(ops);
}

void VerbsTransport::post_rdma(std::uint32_t op_index) {
    RdmaOp& op = ops_[op_index];
    Peer& peer = peers_[static_cast<std::size_t>(op.peer)];
    if (peer.failed && op.error == 0) op.error = EPIPE;
    // Messages larger than the port carries go in pieces; the cookie is
    // reported once the last piece completed.
    while (op.error == 0 && op.posted_bytes < op.bytes && peer.sq_used < sq_depth_) {
        const std::size_t length = std::min(max_chunk_, op.bytes - op.posted_bytes);
        ibv_sge sge{reinterpret_cast<std::uint64_t>(op.local + op.posted_bytes),
                    static_cast<std::uint32_t>(length), op.registration->pinned.lkey};
        ibv_send_wr wr{};
        wr.wr_id = work_id(Work::rdma, op.peer, op_index);
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = op.opcode;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.rdma.remote_addr = op.remote + op.posted_bytes;
        wr.wr.rdma.rkey = op.rkey;
        ibv_send_wr* bad = nullptr;
        if (int err = ::ibv_post_send(peer.qp, &wr, &bad)) {
            log::error("verbs: cannot post an RDMA {} of {} bytes to rank {}: {}",
                       op.opcode == IBV_WR_RDMA_READ ? "Read" : "Write", length, peer.rank,
                       std::strerror(err));
            op.error = err;
            break;
        }
        ++peer.sq_used;
        ++op.in_flight;
        op.posted_bytes += length;
    }
    if (op.error == 0 && op.posted_bytes < op.bytes && !op.backlogged) {
        op.backlogged = true;
        backlog_.push_back(op_index);
    }
}

int VerbsTransport::post_backlog(Events& events) {
    int finished = 0;
    for (std::size_t i = 0; i < backlog_.size();) {
        const std::uint32_t op_index = backlog_[i];
        post_rdma(op_index);
        RdmaOp& op = ops_[op_index];
        if (op.error == 0 && op.posted_bytes < op.bytes) {
            ++i;
            continue;
        }
        op.backlogged = false;
        backlog_[i] = backlog_.back();
        backlog_.pop_back();
        if (op.in_flight == 0) {
            finish_rdma(op_index, events);
            ++finished;
        }
    }
    return finished;
}

void VerbsTransport::finish_rdma(std::uint32_t op_index, Events& events) {
    RdmaOp& op = ops_[op_index];
    const std::uint64_t cookie = op.cookie;
    const int error = op.error;
    cache_->release(op.registration);
    op.registration = nullptr;
    free_ops_.push_back(op_index);
    events.rdma_completed(cookie, error);
}

}  // namespace si::transport::verbs
