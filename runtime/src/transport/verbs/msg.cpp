#include <arpa/inet.h>

#include <cstring>

#include "base/log.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::transport::verbs {

namespace {

// Normal sends leave this many credits for credit messages (see the header).
constexpr int kReservedCredits = 1;

}  // namespace

void VerbsTransport::post_receive(int index, std::uint32_t slot) {
    Peer& peer = peers_[static_cast<std::size_t>(index)];
    // Two elements: the tuple into the ICB slot, where helpers look, and the
    // body into the receive buffer.
    ibv_sge sge[2];
    sge[0] = {reinterpret_cast<std::uint64_t>(&icb_slot(index, slot)), kTupleBytes, icb_mr_->lkey};
    sge[1] = {reinterpret_cast<std::uint64_t>(receive_slot(index, slot)),
              static_cast<std::uint32_t>(receive_slot_bytes_), receive_mr_->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = work_id(Work::receive, index, slot);
    wr.sg_list = sge;
    wr.num_sge = 2;
    ibv_recv_wr* bad = nullptr;
    if (int err = ::ibv_post_recv(peer.qp, &wr, &bad)) {
        log::error("verbs: cannot post a receive for rank {}: {}", peer.rank, std::strerror(err));
        mark_failed(peer, "posting work", nullptr);
    }
}

Result VerbsTransport::send(int peer_rank, std::uint64_t tuple, std::span<const std::byte> header,
                            std::span<const std::byte> payload) {
    const int index = index_of_[static_cast<std::size_t>(peer_rank)];
    Peer& peer = peers_[static_cast<std::size_t>(index)];
    if (peer.failed) return Result::failed;
    if (peer.credits <= kReservedCredits ||
        peer.sends_posted - peer.sends_done == static_cast<std::uint64_t>(options_.credits) ||
        peer.sq_used == sq_depth_)
        return Result::retry;

    const std::size_t bytes = header.size() + payload.size();
    std::byte* slot =
        bounce_slot(index, peer.sends_posted % static_cast<std::uint64_t>(options_.credits));
    std::memcpy(slot, &tuple, kTupleBytes);
    std::byte* body = slot + kBounceHeaderBytes;
    if (!header.empty()) std::memcpy(body, header.data(), header.size());
    if (!payload.empty()) std::memcpy(body + header.size(), payload.data(), payload.size());

    ibv_sge sge[2];
    sge[0] = {reinterpret_cast<std::uint64_t>(slot), kTupleBytes, bounce_mr_->lkey};
    sge[1] = {reinterpret_cast<std::uint64_t>(body), static_cast<std::uint32_t>(bytes),
              bounce_mr_->lkey};
    ibv_send_wr wr{};
    wr.wr_id = work_id(Work::send, index, 0);
    wr.sg_list = sge;
    wr.num_sge = bytes == 0 ? 1 : 2;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    // Every message returns the receives we reposted for this peer so far.
    wr.imm_data = htonl(static_cast<std::uint32_t>(peer.owed));
    ibv_send_wr* bad = nullptr;
    if (int err = ::ibv_post_send(peer.qp, &wr, &bad)) {
        log::error("verbs: cannot send to rank {}: {}", peer.rank, std::strerror(err));
        mark_failed(peer, "posting work", nullptr);
        return Result::failed;
    }
    peer.owed = 0;
    --peer.credits;
    ++peer.sends_posted;
    ++peer.sq_used;
    return Result::done;
}

void VerbsTransport::probe(int peer_rank) {
    const int index = index_of_[static_cast<std::size_t>(peer_rank)];
    if (index < 0) return;
    Peer& peer = peers_[static_cast<std::size_t>(index)];
    // Work in its queue fails by itself if the peer is gone.
    if (peer.failed || peer.probing || peer.sq_used > 0) return;
    ibv_send_wr wr{};
    wr.wr_id = work_id(Work::probe, index, 0);
    wr.num_sge = 0;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr* bad = nullptr;
    if (int err = ::ibv_post_send(peer.qp, &wr, &bad)) {
        log::error("verbs: cannot probe rank {}: {}", peer.rank, std::strerror(err));
        mark_failed(peer, "posting a liveness probe", nullptr);
        return;
    }
    peer.probing = true;
    ++peer.sq_used;
    ++probes_;
}

void VerbsTransport::repost(const Arrival& arrival) {
    repost_receive(static_cast<int>(arrival.slot >> 32), static_cast<std::uint32_t>(arrival.slot));
}

void VerbsTransport::repost_receive(int index, std::uint32_t slot) {
    Peer& peer = peers_[static_cast<std::size_t>(index)];
    // Empty the ICB slot first, so that a helper never matches a consumed RTS;
    // the NIC writes it again only after the receive is posted below.
    icb_slot(index, slot).store(0, std::memory_order_relaxed);
    if (peer.failed) return;
    post_receive(index, slot);
    ++peer.owed;
    if (peer.owed >= credit_threshold_ && !peer.credit_due) {
        peer.credit_due = true;
        credit_due_.push_back(index);
    }
}

int VerbsTransport::send_credits() {
    int sent = 0;
    for (std::size_t i = 0; i < credit_due_.size();) {
        Peer& peer = peers_[static_cast<std::size_t>(credit_due_[i])];
        bool keep = false;
        if (!peer.failed && peer.owed >= credit_threshold_) {
            if (peer.credits >= 1 && peer.sq_used < sq_depth_) {
                // A zero-byte send: it takes a receive at the peer (a credit,
                // possibly the reserved one) and carries only the count.
                ibv_send_wr wr{};
                wr.wr_id = work_id(Work::credit, credit_due_[i], 0);
                wr.num_sge = 0;
                wr.opcode = IBV_WR_SEND_WITH_IMM;
                wr.send_flags = IBV_SEND_SIGNALED;
                wr.imm_data = htonl(static_cast<std::uint32_t>(peer.owed));
                ibv_send_wr* bad = nullptr;
                if (int err = ::ibv_post_send(peer.qp, &wr, &bad)) {
                    log::error("verbs: cannot return credits to rank {}: {}", peer.rank,
                               std::strerror(err));
                    mark_failed(peer, "posting work", nullptr);
                } else {
                    peer.owed = 0;
                    --peer.credits;
                    ++peer.sq_used;
                    ++sent;
                }
            } else {
                keep = true;  // its credit message will free one of ours
            }
        }
        if (keep) {
            ++i;
        } else {
            peer.credit_due = false;
            credit_due_[i] = credit_due_.back();
            credit_due_.pop_back();
        }
    }
    return sent;
}

}  // namespace si::transport::verbs
