// Completion polling, and blocking waits.
//
// A rank blocked in MPI_Wait sleeps on its doorbell futex (p2p/engine.cpp),
// which the shared-memory transport rings on every delivery. A NIC can only
// write memory, so this transport rings the doorbell for it: arm() asks the
// completion queue for an event (ibv_req_notify_cq) and a notifier thread,
// asleep in poll() on the completion channel, acknowledges the event and
// rings the doorbell. The order in the engine's sleep protocol is: arm the
// doorbell, arm() here, one last progress pass, sleep. A completion before
// ibv_req_notify_cq is found by that pass; one after it raises an event, and
// the notifier's ring either stops the futex wait or makes it return at once
// (wake/wake_word.hpp). The thread costs nothing while nobody sleeps: it
// runs only when an armed queue gets a completion. Under SI_PROGRESS=interrupt
// it rings the rank's interrupt thread too (also_ring), which arms the queue
// before it sleeps. The alternative, having
// the engine sleep on the channel's descriptor itself, would miss the
// shared-memory peers' doorbell; polling with a timeout would add its period
// to every blocked receive from a verbs peer.
//
// Under SI_PROGRESS=pef a timer signal may poll the queue from the
// application thread it interrupted outside MPI (progress_in_signal_handler).
// That code may hold any lock but the progress lock, which the handler took:
// every verbs call of this transport is made under that lock, so the
// provider's queue locks are free, and posting work is a doorbell write or a
// write(2). What the pass cannot do without allocating or unpinning memory
// waits in stash_: a message the engine refuses (with everything after it
// from that peer, so that per-peer order holds), RDMA completions (finishing
// one releases a registration and may run completion hooks), and errors.
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <system_error>

#include "base/log.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::transport::verbs {

namespace {

constexpr int kPollBatch = 16;
// Completions handled per progress call, so one call stays short.
constexpr int kPollRounds = 4;
// How long tear-down waits for this rank's last messages to leave.
constexpr auto kDrainLimit = std::chrono::seconds(3);

}  // namespace

void VerbsTransport::mark_failed(Peer& peer, const char* what, const ibv_wc* wc) {
    if (peer.failed) return;  // the flushed work requests that follow say nothing new
    peer.failed = true;
    failed_to_report_.push_back(peer.rank);
    log::error(
        "verbs: {} with rank {} over {} port {} failed: {} (vendor error {:#x}); rank {} is "
        "unreachable from now on (did it die, or did a link between us go down?)",
        what, peer.rank, device_.name, device_.port,
        wc != nullptr ? ::ibv_wc_status_str(wc->status) : "error",
        wc != nullptr ? wc->vendor_err : 0, peer.rank);
}

int VerbsTransport::complete(const ibv_wc& wc, Events& events) {
    const auto kind = static_cast<Work>(wc.wr_id >> 56);
    const int index = static_cast<int>((wc.wr_id >> 32) & 0xffffff);
    const auto low = static_cast<std::uint32_t>(wc.wr_id);
    Peer& peer = peers_[static_cast<std::size_t>(index)];
    const bool ok = wc.status == IBV_WC_SUCCESS;
    switch (kind) {
        case Work::receive: {
            if (!ok) {
                mark_failed(peer, "a receive", &wc);
                return 0;
            }
            const int credits =
                (wc.wc_flags & IBV_WC_WITH_IMM) != 0 ? static_cast<int>(ntohl(wc.imm_data)) : 0;
            peer.credits += credits;
            if (wc.byte_len < kTupleBytes) {  // a credit message
                repost_receive(index, low);
                return 1;
            }
            Arrival arrival;
            arrival.peer = peer.rank;
            arrival.tuple = icb_slot(index, low).load(std::memory_order_relaxed);
            arrival.body = receive_slot(index, low);
            arrival.bytes = wc.byte_len - kTupleBytes;
            arrival.slot = static_cast<std::uint64_t>(index) << 32 | low;
            if (events.message_arrived(arrival)) return 1;
            // Refused in a signal handler: its credits count when it is taken.
            peer.credits -= credits;
            return 0;
        }
        case Work::send:
            --peer.sq_used;
            ++peer.sends_done;
            if (!ok) mark_failed(peer, "a send", &wc);
            return 1;
        case Work::credit:
            --peer.sq_used;
            if (!ok) mark_failed(peer, "a credit return", &wc);
            return 1;
        case Work::probe:
            --peer.sq_used;
            peer.probing = false;
            if (!ok) mark_failed(peer, "a liveness probe", &wc);
            return 0;
        case Work::rdma: {
            --peer.sq_used;
            RdmaOp& op = ops_[low];
            --op.in_flight;
            if (!ok) {
                mark_failed(peer, op.opcode == IBV_WR_RDMA_READ ? "an RDMA Read" : "an RDMA Write",
                            &wc);
                if (op.error == 0) op.error = EIO;
            }
            if (op.in_flight == 0 && !op.backlogged &&
                (op.error != 0 || op.posted_bytes == op.bytes))
                finish_rdma(low, events);
            return 1;
        }
    }
    log::error("verbs: completion with unknown work id {:#x}", wc.wr_id);
    return 0;
}

int VerbsTransport::progress(Events& events) {
    int handled = stashed_ == 0 ? 0 : handle_stash(events);
    ibv_wc wcs[kPollBatch];
    for (int round = 0; round < kPollRounds; ++round) {
        const int polled = ::ibv_poll_cq(cq_, kPollBatch, wcs);
        if (polled < 0) {
            log::error("verbs: ibv_poll_cq failed ({})", polled);
            break;
        }
        for (int i = 0; i < polled; ++i) handled += complete(wcs[i], events);
        if (polled < kPollBatch) break;
    }
    if (!credit_due_.empty()) handled += send_credits();
    if (!backlog_.empty()) handled += post_backlog(events);
    if (!failed_to_report_.empty()) {
        std::vector<int> failed;
        failed.swap(failed_to_report_);
        for (int rank : failed) events.peer_failed(rank);
        handled += static_cast<int>(failed.size());
    }
    return handled;
}

int VerbsTransport::handle_stash(Events& events) {
    int handled = 0;
    for (int i = 0; i < stashed_; ++i)
        handled += complete(stash_[static_cast<std::size_t>(i)], events);
    stashed_ = 0;
    return handled;
}

int VerbsTransport::progress_in_signal_handler(Events& events) {
    in_signal_handler_ = true;
    if (++signal_passes_ == 0) ++signal_passes_;  // 0 means "never held"
    int handled = 0;
    int kept = 0;
    for (int i = 0; i < stashed_; ++i) {
        const ibv_wc& wc = stash_[static_cast<std::size_t>(i)];
        if (complete_in_signal_handler(wc, events))
            ++handled;
        else
            stash_[static_cast<std::size_t>(kept++)] = wc;
    }
    stashed_ = kept;
    ibv_wc wcs[kPollBatch];
    for (int round = 0; round < kPollRounds && stashed_ < kStashCapacity; ++round) {
        // No more than the stash can keep: the rest stays in the queue.
        const int room = std::min(kPollBatch, kStashCapacity - stashed_);
        const int polled = ::ibv_poll_cq(cq_, room, wcs);
        if (polled <= 0) break;
        for (int i = 0; i < polled; ++i) {
            if (complete_in_signal_handler(wcs[i], events))
                ++handled;
            else
                stash_[static_cast<std::size_t>(stashed_++)] = wcs[i];
        }
        if (polled < room) break;
    }
    // Credit messages post work and touch only reserved vectors; the RDMA
    // backlog and peer failures wait for the next progress().
    if (!credit_due_.empty()) handled += send_credits();
    in_signal_handler_ = false;
    return handled;
}

bool VerbsTransport::complete_in_signal_handler(const ibv_wc& wc, Events& events) {
    const auto kind = static_cast<Work>(wc.wr_id >> 56);
    Peer& peer = peers_[static_cast<std::size_t>((wc.wr_id >> 32) & 0xffffff)];
    const bool receive = kind == Work::receive;
    if (receive && peer.held_in_pass == signal_passes_) return false;
    bool taken = false;
    if (wc.status == IBV_WC_SUCCESS && kind != Work::rdma) {
        // The engine may start an RDMA Read for a message: ops_ must not grow.
        const bool read_fits = !free_ops_.empty() || ops_.size() < ops_.capacity();
        taken = (!receive || read_fits || wc.byte_len < kTupleBytes) && complete(wc, events) > 0;
    }
    if (receive && !taken) peer.held_in_pass = signal_passes_;
    return taken;
}

Armed VerbsTransport::arm() {
    if (arm_failed_) return Armed::busy;
    if (!notifier_.joinable()) {
        stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        try {
            if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category());
            notifier_ = std::thread([this] { run_notifier(); });
        } catch (const std::exception& e) {
            log::warn(
                "verbs: cannot start the completion notifier ({}); blocked calls will "
                "poll instead of sleeping",
                e.what());
            arm_failed_ = true;
            return Armed::busy;
        }
    }
    if (int err = ::ibv_req_notify_cq(cq_, 0)) {
        log::warn(
            "verbs: ibv_req_notify_cq failed ({}); blocked calls will poll instead of "
            "sleeping",
            std::strerror(err));
        arm_failed_ = true;
        return Armed::busy;
    }
    return Armed::ok;
}

void VerbsTransport::run_notifier() {
    // Signals belong to the application's threads.
    sigset_t all;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            log::error("verbs: the completion notifier stops: {}", std::strerror(errno));
            return;
        }
        if (fds[1].revents != 0) return;
        ibv_cq* cq = nullptr;
        void* context = nullptr;
        while (::ibv_get_cq_event(channel_, &cq, &context) == 0) ::ibv_ack_cq_events(cq, 1);
        wake::wake_if_sleeping(*doorbell_backend_, doorbell_);
        if (also_ring_ != nullptr) wake::wake_if_sleeping(*doorbell_backend_, *also_ring_);
    }
}

void VerbsTransport::drain_sends() {
    // MPI_Finalize's barrier may complete here before our last message to a
    // peer has left (a send is done for the engine once it is posted);
    // destroying the queue pair now would lose it and hang that peer.
    const auto until = std::chrono::steady_clock::now() + kDrainLimit;
    const auto count_send = [this](const ibv_wc& wc) {
        if (static_cast<Work>(wc.wr_id >> 56) != Work::send) return;
        Peer& peer = peers_[static_cast<std::size_t>((wc.wr_id >> 32) & 0xffffff)];
        ++peer.sends_done;
        if (wc.status != IBV_WC_SUCCESS) peer.failed = true;
    };
    for (int i = 0; i < stashed_; ++i) count_send(stash_[static_cast<std::size_t>(i)]);
    stashed_ = 0;
    ibv_wc wcs[kPollBatch];
    for (;;) {
        bool pending = false;
        for (const Peer& peer : peers_)
            pending |= !peer.failed && peer.sends_done < peer.sends_posted;
        if (!pending || std::chrono::steady_clock::now() > until) return;
        const int polled = ::ibv_poll_cq(cq_, kPollBatch, wcs);
        if (polled < 0) return;
        for (int i = 0; i < polled; ++i) count_send(wcs[i]);
    }
}

}  // namespace si::transport::verbs
