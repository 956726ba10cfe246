// A SmartInterrupts helper process: polls the node region for the ranks it
// serves and wakes a rank's interrupt thread only when waking it is useful,
// that is when an RTS sitting in the rank's ICB matches a receive in its IRB
// or a one-sided signal the rank awaits was raised (rma/window.hpp), the
// rank is not inside its progress engine, and its thread sleeps.
//
// A helper never touches the transport. With nothing outstanding in the IRBs
// of its ranks it sleeps on its own wake word, and the rank that posts the
// first interrupt request wakes it: an idle helper costs no CPU. When every
// sender to its ranks rings it (the whole job on one host), it also sleeps
// while requests are outstanding but no RTS is there for them, and a sender
// that deposits an RTS, or a rank that posts a request, rings it
// (ring_helper_of): a receive that waits for seconds costs no core either.
#pragma once

#include <span>
#include <vector>

#include "base/config.hpp"
#include "node/region.hpp"
#include "wake/wake_word.hpp"

namespace si::progress {

struct HelperAssignment {
    int block = 0;           // index of its HelperBlock in the region
    std::vector<int> ranks;  // local indices of the ranks it serves
    std::vector<int> cpus;   // where to run; empty: leave it to the OS
    // No core of its own: it shares the ranks' cores (and yields them, see
    // spawn_helper).
    bool shares_cores = true;
    // SI_INTERRUPT_CPU=helper: bind an interrupt thread to the CPU this
    // helper runs on before waking it.
    bool wake_on_own_cpu = false;
    // Every sender to its ranks rings it after depositing an RTS: it may sleep
    // with requests outstanding. False when RTSs also arrive from other hosts,
    // which only polling sees.
    bool rung_by_senders = false;
    // SI_RMA_ICB=single: any raised one-sided signal flag wakes a rank that
    // awaits one (the thesis' single ICB), not only an awaited peer's.
    bool any_rma_signal = false;
};

// Wakes the helper that serves local rank `local_index` if it sleeps, after
// the caller published what the helper may act on (an RTS in the rank's ICB,
// an IRB entry). True if it fired a wake-up (a system call).
bool ring_helper_of(const node::Region& region, int local_index, wake::Backend& backend);

// The first slot of `icb` whose RTS tuple matches an active request in
// `irb`, or whose eager data one whose `eager_too` is set: its index (-1:
// none) and the tuple it held.
struct AskingSlot {
    int index = -1;
    std::uint64_t tuple = 0;
};
AskingSlot icb_slot_asking_for_help(std::span<const std::atomic<std::uint64_t>> icb,
                                    std::span<const node::InterruptRequest> irb);

// The raised one-sided signals that make waking `rank` useful (bit: world
// rank % 64): each raised one of its `rma_awaited_any`, and those of its
// `rma_awaited_all` once all are raised; with `any` (SI_RMA_ICB=single),
// every raised one if it awaits any.
std::uint64_t raised_signals(const node::RankBlock& rank, bool any);

// What one pass over a rank decided (exposed for tests).
enum class RankVerdict { nothing_requested, locked, awake, no_match, woken };
struct ScanOptions {
    int wake_cpu = -1;            // >= 0: bind the interrupt thread there before waking it
    bool any_rma_signal = false;  // HelperAssignment::any_rma_signal
};
// Helpers and ranks blocked in MPI both call it; it changes no counter.
// Waking the rank for one-sided signals resets their flags.
RankVerdict examine_rank(const node::Region& region, int local_index, wake::Backend& backend,
                         ScanOptions options = {});
// True if an RTS in the ICB of local rank `local_index` matches one of its
// interrupt requests, or an awaited one-sided signal was raised (the
// helper's test before sleeping with requests).
bool rank_needs_help(const node::Region& region, int local_index, bool any_rma_signal);
// A helper's counters: ranks examined, skipped as locked, woken.
void count_verdict(node::HelperBlock& counters, RankVerdict verdict);

// The helper's main loop; returns when its block's stop flag is set.
void run_helper(const node::Region& region, wake::Backend& backend,
                const HelperAssignment& assignment);

// Forks a helper process that runs run_helper and exits; it dies with its
// parent (PR_SET_PDEATHSIG). Returns the child's pid.
int spawn_helper(const node::Region& region, config::WakeBackend wake_choice,
                 const HelperAssignment& assignment);

}  // namespace si::progress
