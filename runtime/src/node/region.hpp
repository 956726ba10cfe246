// The node-wide shared region: one segment per host, strided per rank.
//
// Each rank's block holds what a helper process must see about that rank
// without asking it: the progress-engine lock word, the interrupt thread's
// wake word, the ICB (the slots where arriving control messages deposit their
// 8-byte matching tuple) and the IRB (the receives that asked for help).
// Helper blocks hold each helper's wake word and counters.
//
// Layout: Header | RankBlock x local ranks | HelperBlock x local ranks |
//         ICB slots x local ranks | IRB x local ranks.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/shm_segment.hpp"

namespace si::node {

// Cache lines grouped by who writes them, so that one writer's store does not
// cost another process a miss on its critical path: the rank's lock word and
// what never changes after MPI_Init; the doorbell, which every sender to the
// rank writes; the interrupt thread's word and what its wakers stamp; the
// rank's count of requests, which it writes at every posted and matched
// receive while helpers and senders read it.
struct alignas(64) RankBlock {
    // Word of the rank's ProgressLock (p2p/progress_lock.hpp): 0 when free.
    std::atomic<std::uint32_t> progress_lock;
    std::int32_t pid;
    std::int32_t world_rank;
    // The HelperBlock of the helper that serves this rank (-1: none), which a
    // sender rings after depositing an RTS when that helper sleeps.
    std::atomic<std::int32_t> helper_block;
    // A word other ranks read with cross-memory attach at start-up, to find out
    // early whether the kernel allows it.
    std::uint64_t probe_word;
    // The rank's CPU affinity at MPI_Init, so that helpers can be placed on
    // cores no rank uses; and as its launcher gave it, before SI_BIND=auto.
    cpu_set_t affinity;
    cpu_set_t launch_affinity;
    // Wake word of a thread that sleeps in MPI_Wait: whoever delivers a
    // message to this rank rings it.
    alignas(64) std::atomic<std::uint32_t> doorbell;
    // The interrupt thread's wake word (wake/wake_word.hpp), and the id under
    // which a wake backend that needs one (SI_WAKE=kmod) knows its sleeper.
    alignas(64) std::atomic<std::uint32_t> interrupt_word;
    std::atomic<std::uint32_t> interrupt_handle;
    // The interrupt thread's kernel id (0 until it runs), and the CPU a
    // helper last bound it to (-1: none), for SI_INTERRUPT_CPU=helper.
    std::atomic<std::int32_t> interrupt_tid;
    std::atomic<std::int32_t> interrupt_cpu;
    // When a helper last woke the interrupt thread (base/clock.hpp), so the
    // thread can count how long it took to get a core.
    std::atomic<std::uint64_t> woken_at_ns;
    // The ICB slot (index in the rank's ICB, -1: a one-sided signal) and
    // tuple a helper woke the thread for: if the slot no longer holds it when
    // the thread runs, the application took that message itself meanwhile.
    // Like woken_at_ns, what the last helper to decide wrote: it only sorts
    // a pass that found nothing into late or futile.
    std::atomic<std::int32_t> woken_icb_slot;
    std::atomic<std::uint64_t> woken_icb_tuple;
    // IRB entries in use, so that a helper skips a rank with none at once.
    alignas(64) std::atomic<std::uint32_t> irb_in_use;
    // Posted receives with no IRB entry (blocking ones, or the IRB was full):
    // while there are any, no sender may deliver into this rank directly.
    std::atomic<std::uint32_t> posted_outside_irb;
    // Every receive posted, counted before it is published: a sender that
    // scans the IRB for the first matching receive keeps its claim only if
    // this did not change meanwhile (progress/receive_claim.hpp).
    std::atomic<std::uint32_t> receives_posted;
    // One-sided SmartInterrupts (rma/), the thesis' IRD: the peers (bit:
    // world rank % 64) whose signal (a grant, a lock, a fence) this rank
    // waits for with operations recorded for when it comes; each signal of
    // `rma_awaited_any` lets some go, the signals of `rma_awaited_all` only
    // all together (a fence). Written by the rank, read by helpers.
    alignas(64) std::atomic<std::uint64_t> rma_awaited_any;
    std::atomic<std::uint64_t> rma_awaited_all;
    // The ICB of one-sided signals: a peer sets byte world rank % 64 when it
    // signals this rank (one byte, so that a peer on another host sets it
    // with an RDMA Write); the helper that wakes the rank for it resets it.
    // Per peer rather than the thesis' single byte, so that a signal from a
    // peer the rank does not wait for wakes nobody.
    alignas(64) std::atomic<std::uint8_t> rma_signals[64];
};

// One interrupt request (IRD): a receive's matching tuple with wildcards as
// cleared mask bits. An ICB tuple t asks for this receive if
// (t & mask) == value; value == 0 marks a free entry. `value` has the kind of
// an RTS; with `eager_too` set, eager data asks too (p2p::Request::wake_for_eager).
//
// The rest serves direct delivery on shared memory (progress/smart_delivery.cpp):
// where the receive's data goes, and `delivery`, the word a sender claims the
// receive with by a compare-and-swap. It packs the posting's sequence number
// (so that a claim cannot land on a later receive reusing the entry), the
// claiming sender's world rank + 1, and a DeliveryState.
struct alignas(64) InterruptRequest {
    std::atomic<std::uint64_t> value;
    std::atomic<std::uint64_t> mask;
    std::atomic<std::uint64_t> address;  // 0 with a capacity: in pieces, not claimable
    std::atomic<std::uint64_t> capacity;
    std::atomic<std::uint64_t> delivery;
    std::atomic<std::uint64_t> written;  // bytes the sender delivered
    std::atomic<std::uint64_t> eager_too;
};
enum class DeliveryState : std::uint64_t { open, taken, claimed, delivered, failed };
struct DeliveryWord {
    std::uint64_t sequence = 0;  // the posting's, 36 bits
    int claimant = -1;           // world rank, or -1
    DeliveryState state = DeliveryState::open;

    std::uint64_t pack() const {
        return sequence << 28 | static_cast<std::uint64_t>(claimant + 1) << 4 |
               static_cast<std::uint64_t>(state);
    }
    static DeliveryWord unpack(std::uint64_t word) {
        return {word >> 28, static_cast<int>((word >> 4) & 0xFFFFFF) - 1,
                static_cast<DeliveryState>(word & 0xF)};
    }
};
// IRB entries per rank unless SI_IRB_ENTRIES says otherwise (Region::create).
inline constexpr std::size_t kIrbEntries = 64;

// Three cache lines, by who writes them: ranks read `word` on every RTS and
// receive they post (ring_helper_of) while the helper writes it only to sleep;
// every rank of the helper writes `outstanding`; the helper writes its
// counters at every scan. Sharing a line, each writer's store would cost the
// others a cache miss on their critical path.
struct alignas(64) HelperBlock {
    std::atomic<std::uint32_t> word;         // idle sleep and stop (wake/wake_word.hpp)
    std::atomic<std::uint32_t> word_handle;  // its sleeper's id for SI_WAKE=kmod
    std::atomic<std::uint32_t> stop;
    std::atomic<std::int32_t> pid;
    alignas(64) std::atomic<std::uint32_t> outstanding;  // IRB entries in use over its ranks
    // Counters, written by the helper, read at MPI_Finalize.
    alignas(64) std::atomic<std::uint64_t> scans;  // ranks examined
    std::atomic<std::uint64_t> skipped_locked;     // ... whose progress lock was held
    std::atomic<std::uint64_t> wakes;              // interrupt threads woken
    std::atomic<std::uint64_t> idle_sleeps;        // times it slept with nothing outstanding
    std::atomic<std::uint64_t> request_sleeps;     // ... with requests outstanding, no RTS for them
    std::atomic<std::uint64_t> cpu_ns;             // its CPU time, updated as it goes
};

class Region {
  public:
    Region() = default;

    // The first rank of a host creates the region; the others open it after a fence.
    static Region create(const std::string& job_id, int local_size, std::size_t icb_slots_per_rank,
                         std::size_t irb_entries = kIrbEntries);
    static Region open(const std::string& job_id);
    // Once every local rank has opened the region the name can go.
    void unlink() { segment_.unlink(); }

    int local_size() const;
    std::size_t icb_slots_per_rank() const;
    // Every rank's IRB has this many entries (the creating rank's setting).
    std::size_t irb_entries() const;
    // This job's token for /dev/si_wake (SI_WAKE=kmod): its helpers may wake
    // its threads, no other job's processes.
    std::uint64_t wake_token() const;
    RankBlock& rank_block(int local_index) const;
    HelperBlock& helper_block(int index) const;
    std::atomic<std::uint64_t>* icb(int local_index) const;
    InterruptRequest* irb(int local_index) const;
    // Threads of the host's ranks waiting for their rank's progress lock
    // (ranks with several threads in MPI at once), which want a CPU too
    // (SI_WAIT_SPIN_US=auto, p2p/wait.cpp).
    std::atomic<std::int32_t>& lock_waiters() const;

  private:
    struct Header;
    Header& header() const;

    SharedSegment segment_;
};

}  // namespace si::node
