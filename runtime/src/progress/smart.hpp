// Progression mode `smart` (SmartInterrupts), one rank's side:
//  - posts an interrupt request (IRD) in its IRB for every receive that waits
//    in the posted-receive queue, and withdraws it when the receive matches;
//  - runs the rank's interrupt thread, which sleeps on its wake word until a
//    helper wakes it, then makes one progress pass (which issues the RDMA
//    Read of a matched RTS) and sleeps again;
//  - on the first rank of each node, starts the node's helper processes at
//    MPI_Init and stops them at MPI_Finalize.
// If a helper dies, its ranks carry on without asynchronous progress and say
// so once.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/config.hpp"
#include "node/locality.hpp"
#include "node/region.hpp"
#include "p2p/engine.hpp"
#include "progress/counter.hpp"
#include "progress/helper.hpp"
#include "wake/wake_word.hpp"

namespace si::progress {

struct InterruptStats {
    std::uint64_t interrupt_requests = 0;  // IRDs posted
    std::uint64_t irb_full = 0;            // receives that found the IRB full
    std::uint64_t blocked_scans = 0;       // ranks it examined while blocked in MPI
    std::uint64_t blocked_wakes = 0;       // ... whose interrupt thread it woke
    std::uint64_t helper_rings = 0;        // sleeping helpers its sends and receives woke
    std::uint64_t rma_awaits = 0;          // one-sided signals awaited (bits newly set)
};

// Request::irb_entry of a posted receive that got no IRB entry.
inline constexpr int kOutsideIrb = -2;

// For the counters of a rank's block that only its progress-lock holder
// writes (irb_in_use, posted_outside_irb, receives_posted): a load and a
// store, ordered for the helpers and senders that read them, with no
// read-modify-write on the message path.
inline void add_to_own(std::atomic<std::uint32_t>& counter, std::int32_t delta) {
    counter.store(counter.load(std::memory_order_relaxed) + static_cast<std::uint32_t>(delta),
                  std::memory_order_release);
}

class SmartProgress final : private p2p::ProgressObserver {
  public:
    SmartProgress(p2p::Engine& engine, const node::Region& region, const node::Locality& locality,
                  const config::Settings& settings);
    // Stops the interrupt thread; the first rank of a node also stops the
    // node's helpers, so every rank of the node must be done communicating.
    ~SmartProgress();
    SmartProgress(const SmartProgress&) = delete;
    SmartProgress& operator=(const SmartProgress&) = delete;

    // This rank's counters, and on a node's first rank its helpers' counters
    // (valid once the helpers stopped, i.e. after stop()).
    std::vector<Counter> counters() const;
    // Ends the interrupt thread, then (first rank of a node) the helpers:
    // after it, nothing touches the engine but the application. The
    // destructor does it if this was not called.
    void stop();

  private:
    void receive_posted(p2p::Request& request, bool blocking) override;
    p2p::ReceiveClaim take_receive(p2p::Request& request, int peer) override;
    p2p::Delivery delivery_of(p2p::Request& request) override;
    bool rank_blocked() override;
    void rts_sent(int peer) override;
    std::optional<p2p::DirectTarget> claim_receive(int peer, std::uint64_t tuple) override;
    void finish_claim(const p2p::DirectTarget& target, std::size_t written, bool ok) override;
    void wait_begins(p2p::Request*) override {}
    void wait_ends() override {}
    bool signals_awaited(p2p::AwaitedSignals before, p2p::AwaitedSignals after) override;
    void ring_peer(int peer, bool raise_signal) override;
    std::uint8_t* signal_flags() override;
    void run_interrupt_thread();
    void stop_helpers();
    void check_helper_alive();
    // The ICB slot the helper woke the thread for no longer holds its
    // message (RankBlock::woken_icb_slot): the application took it.
    bool message_taken_since_wake() const;
    void withdraw(p2p::Request& request);
    // A receive that only eager data can fill: it holds no more than every
    // possible sender sends eagerly, so no RTS of a standard send that fits
    // ever asks for it.
    bool eager_only(const p2p::Request& request) const;

    p2p::Engine& engine_;
    const node::Region& region_;
    config::Settings settings_;
    int local_index_;
    int world_rank_;
    std::vector<int> local_of_world_;  // world rank -> local index on this host, or -1
    std::uint64_t next_sequence_ = 0;  // of IRB postings
    node::RankBlock& block_;
    node::HelperBlock* helper_ = nullptr;  // the helper serving this rank
    std::unique_ptr<wake::Backend> backend_;
    // Ranks' doorbells are futex words whatever SI_WAKE says (api/runtime.cpp).
    std::unique_ptr<wake::Backend> doorbell_backend_;
    // The rank's IRB entries, a bit per entry, set = free; and how many are.
    std::vector<std::uint64_t> free_entries_;
    std::size_t free_count_ = 0;
    // Per bit of RankBlock::rma_awaited_any / _all, the windows awaiting it.
    std::array<std::uint32_t, 64> windows_awaiting_any_{};
    std::array<std::uint32_t, 64> windows_awaiting_all_{};
    InterruptStats stats_;
    std::atomic<std::uint64_t> wakeups_{0};
    std::atomic<std::uint64_t> futile_wakeups_{0};  // ran a pass that advanced nothing
    std::atomic<std::uint64_t> late_wakeups_{0};    // the application held the lock by then
    // From the helper's wake-up to the thread running (only the thread writes).
    std::atomic<std::uint64_t> wake_latency_ns_total_{0};
    std::atomic<std::uint64_t> wake_latency_ns_max_{0};
    std::atomic<bool> helper_lost_{false};
    int helper_pidfd_ = -1;
    // Helpers this rank started (node leader only): block index and pid.
    std::vector<std::pair<int, int>> started_helpers_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace si::progress
