#include "progress/helper.hpp"
#include "progress/node_process.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <ctime>

#include "base/clock.hpp"
#include "base/cpu.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "p2p/tuple.hpp"
#include "wake/backends.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;

// Scans without work before the helper yields its core once, so that under
// oversubscription it does not keep a rank off the CPU for a whole time slice.
constexpr int kScansBeforeYield = 16;
// How long a helper polls after it last had a reason to (a wake-up it issued,
// a ring) before it sleeps. Applications communicate in bursts; sleeping at
// once would make the next MPI_Irecv or RTS pay a wake-up (a system call) and
// the helper a scheduling delay. Polling this long costs under 1% of a core in
// an idle second.
constexpr auto kIdlePolling = std::chrono::milliseconds(5);

constexpr std::uint64_t kKindBits = 3;
constexpr auto kRts = static_cast<std::uint64_t>(p2p::MessageKind::rts);
constexpr auto kEager = static_cast<std::uint64_t>(p2p::MessageKind::eager);

}  // namespace

AskingSlot icb_slot_asking_for_help(std::span<const std::atomic<std::uint64_t>> icb,
                                    std::span<const node::InterruptRequest> irb) {
    for (std::size_t index = 0; index < icb.size(); ++index) {
        const std::uint64_t tuple = icb[index].load(std::memory_order_acquire);
        const std::uint64_t kind = tuple & kKindBits;
        if (kind != kRts && kind != kEager) continue;
        // Patterns carry an RTS's kind: eager data is matched as if it were one.
        const std::uint64_t as_rts = (tuple & ~kKindBits) | kRts;
        for (const node::InterruptRequest& entry : irb) {
            const std::uint64_t value = entry.value.load(std::memory_order_acquire);
            if (value == 0) continue;
            if (kind == kEager && entry.eager_too.load(std::memory_order_relaxed) == 0) continue;
            // A receive its sender claimed needs nobody woken: the data comes.
            const std::uint64_t word = entry.delivery.load(std::memory_order_acquire);
            if (node::DeliveryWord::unpack(word).state != node::DeliveryState::open) continue;
            const std::uint64_t mask = entry.mask.load(std::memory_order_acquire);
            // The rank may have reused the entry between the two loads; a mask
            // read with a value that changed meanwhile would be a guess.
            if (entry.value.load(std::memory_order_acquire) != value) continue;
            if (p2p::InterruptPattern{value, mask}.asked_by(as_rts))
                return {static_cast<int>(index), tuple};
        }
    }
    return {};
}

// Moves a sleeping interrupt thread to `cpu` (it runs there once woken). The
// CPU the helper runs on holds no computing rank at this moment, so a thread
// that copies a message there takes no cycles from the computation. Failing
// is harmless: the thread runs where it ran before.
void move_interrupt_thread(node::RankBlock& rank, int cpu) {
    const int tid = rank.interrupt_tid.load(std::memory_order_acquire);
    if (tid <= 0 || rank.interrupt_cpu.load(std::memory_order_relaxed) == cpu) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (::sched_setaffinity(tid, sizeof set, &set) == 0)
        rank.interrupt_cpu.store(cpu, std::memory_order_relaxed);
}

namespace {

std::uint64_t raised_of(const node::RankBlock& rank, std::uint64_t peers) {
    std::uint64_t raised = 0;
    for (std::uint64_t bits = peers; bits != 0; bits &= bits - 1)
        if (rank.rma_signals[__builtin_ctzll(bits)].load(std::memory_order_acquire) != 0)
            raised |= bits & -bits;
    return raised;
}

}  // namespace

std::uint64_t raised_signals(const node::RankBlock& rank, bool any) {
    const std::uint64_t each = rank.rma_awaited_any.load(std::memory_order_acquire);
    const std::uint64_t all = rank.rma_awaited_all.load(std::memory_order_acquire);
    if ((each | all) == 0) return 0;
    if (any) return raised_of(rank, ~std::uint64_t{0});
    const std::uint64_t together = raised_of(rank, all);
    return raised_of(rank, each) | (together == all ? together : 0);
}

namespace {

// The ICB slot whose message one of the rank's receives asked help for.
AskingSlot slot_needing_help(const node::Region& region, int local_index) {
    if (region.rank_block(local_index).irb_in_use.load(std::memory_order_acquire) == 0) return {};
    const std::span<const std::atomic<std::uint64_t>> icb(region.icb(local_index),
                                                          region.icb_slots_per_rank());
    const std::span<const node::InterruptRequest> irb(region.irb(local_index), region.irb_entries());
    return icb_slot_asking_for_help(icb, irb);
}

void set_signals(node::RankBlock& rank, std::uint64_t bits, std::uint8_t value) {
    for (; bits != 0; bits &= bits - 1)
        rank.rma_signals[__builtin_ctzll(bits)].store(value, std::memory_order_relaxed);
}

}  // namespace

bool rank_needs_help(const node::Region& region, int local_index, bool any_rma_signal) {
    return raised_signals(region.rank_block(local_index), any_rma_signal) != 0 ||
           slot_needing_help(region, local_index).index >= 0;
}

bool ring_helper_of(const node::Region& region, int local_index, wake::Backend& backend) {
    const int index = region.rank_block(local_index).helper_block.load(std::memory_order_relaxed);
    if (index < 0) return false;
    std::atomic<std::uint32_t>& word = region.helper_block(index).word;
    // Pairs with the fence in the helper's last look before it sleeps
    // (run_helper): either it sees what the caller published, or the load
    // below sees it asleep. A plain load keeps the word's cache line shared
    // while the helper runs; only a sleeping helper costs a read-modify-write.
    store_load_fence();
    if (wake::state_of(word.load(std::memory_order_relaxed)) != wake::kSleeping) return false;
    return wake::wake_if_sleeping(backend, word);
}

RankVerdict examine_rank(const node::Region& region, int local_index, wake::Backend& backend,
                         ScanOptions options) {
    node::RankBlock& rank = region.rank_block(local_index);
    if (rank.irb_in_use.load(std::memory_order_acquire) == 0 &&
        rank.rma_awaited_any.load(std::memory_order_acquire) == 0 &&
        rank.rma_awaited_all.load(std::memory_order_acquire) == 0)
        return RankVerdict::nothing_requested;
    // Optimisation 1 of the thesis: a rank inside its progress engine will
    // see the RTS itself.
    if (rank.progress_lock.load(std::memory_order_acquire) != 0) return RankVerdict::locked;
    // A thread that is running (or already woken) makes a pass before it
    // sleeps again; only a sleeping one needs us.
    const std::uint32_t sleep = rank.interrupt_word.load(std::memory_order_acquire);
    if (wake::state_of(sleep) != wake::kSleeping) return RankVerdict::awake;
    const std::uint64_t signals = raised_signals(rank, options.any_rma_signal);
    const AskingSlot slot = signals == 0 ? slot_needing_help(region, local_index) : AskingSlot{};
    if (signals == 0 && slot.index < 0) return RankVerdict::no_match;
    trace::record(trace::Event::helper_matched, rank.world_rank);
    // Optimisation 2: the rank may have entered its engine while we matched.
    if (rank.progress_lock.load(std::memory_order_acquire) != 0) return RankVerdict::locked;
    // Stamped before the wake-up, which publishes it to the thread; a wake-up
    // that does not fire leaves a stamp the next one overwrites.
    const int wake_cpu = options.wake_cpu;
    if (wake_cpu >= 0) move_interrupt_thread(rank, wake_cpu);
    rank.woken_at_ns.store(monotonic_ns(), std::memory_order_relaxed);
    rank.woken_icb_slot.store(slot.index, std::memory_order_relaxed);
    rank.woken_icb_tuple.store(slot.tuple, std::memory_order_relaxed);
    // Recorded before: the woken thread may run (and the helper wait) at once.
    trace::record(trace::Event::wake_issued, rank.world_rank, 0, wake_cpu);
    // The thesis resets the ICB as it wakes: the signals are the woken
    // thread's now. Reset before, so that one raised meanwhile stays raised.
    set_signals(rank, signals, 0);
    // Only the sleep we saw before matching: had the thread woken and slept
    // again meanwhile, it would have acted on this RTS already (but maybe
    // not on the signals: a liveness timeout makes no pass; they stay raised).
    if (!wake::wake_if_still_sleeping(backend, rank.interrupt_word, sleep)) {
        set_signals(rank, signals, 1);
        return RankVerdict::awake;
    }
    return RankVerdict::woken;
}

void count_verdict(node::HelperBlock& counters, RankVerdict verdict) {
    if (verdict == RankVerdict::nothing_requested) return;
    counters.scans.fetch_add(1, std::memory_order_relaxed);
    if (verdict == RankVerdict::locked)
        counters.skipped_locked.fetch_add(1, std::memory_order_relaxed);
    if (verdict == RankVerdict::woken) counters.wakes.fetch_add(1, std::memory_order_relaxed);
}

void run_helper(const node::Region& region, wake::Backend& backend,
                const HelperAssignment& assignment) {
    node::HelperBlock& block = region.helper_block(assignment.block);
    backend.attach_sleeper(block.word, block.word_handle);
    for (int rank : assignment.ranks) {
        node::RankBlock& served = region.rank_block(rank);
        backend.attach_waker(served.interrupt_word, served.interrupt_handle);
    }
    // The helper's last look before sleeping: nothing to do, or something a
    // ring would have announced. Its fence pairs with ring_helper_of's.
    const auto nothing_to_do = [&] {
        store_load_fence();
        if (block.stop.load() != 0) return false;
        if (block.outstanding.load() == 0) return true;
        if (!assignment.rung_by_senders) return false;
        return std::none_of(assignment.ranks.begin(), assignment.ranks.end(), [&](int rank) {
            return rank_needs_help(region, rank, assignment.any_rma_signal);
        });
    };
    int fruitless = 0;
    auto quiet_since = std::chrono::steady_clock::now();  // last reason to poll
    while (block.stop.load(std::memory_order_acquire) == 0) {
        const bool outstanding = block.outstanding.load() != 0;
        if (!outstanding || assignment.rung_by_senders) {
            const auto now = std::chrono::steady_clock::now();
            if (now - quiet_since >= kIdlePolling) {
                block.cpu_ns.store(process_cpu_ns(), std::memory_order_relaxed);
                (outstanding ? block.request_sleeps : block.idle_sleeps)
                    .fetch_add(1, std::memory_order_relaxed);
                const wake::SleepResult result =
                    wake::sleep(backend, block.word, 1s, nothing_to_do);
                // Poll again when rung or when there is work; after a timeout,
                // sleep on.
                if (result != wake::SleepResult::timed_out)
                    quiet_since = std::chrono::steady_clock::now();
                continue;
            }
            if (!outstanding) {
                ::sched_yield();
                continue;
            }
        }
        bool woke = false;
        const ScanOptions options{assignment.wake_on_own_cpu ? ::sched_getcpu() : -1,
                                  assignment.any_rma_signal};
        for (int rank : assignment.ranks) {
            const RankVerdict verdict = examine_rank(region, rank, backend, options);
            count_verdict(block, verdict);
            woke |= verdict == RankVerdict::woken;
        }
        // A helper that must poll while requests are outstanding counts them as
        // a reason to poll, as before it sleeps with nothing outstanding.
        if (woke || !assignment.rung_by_senders) quiet_since = std::chrono::steady_clock::now();
        // After a wake-up the helper steps aside at once: when the woken
        // thread was queued on this core, it runs now rather than after our
        // time slice.
        if (woke || ++fruitless >= kScansBeforeYield) {
            fruitless = 0;
            ::sched_yield();
        } else {
            cpu_relax();
        }
    }
    block.cpu_ns.store(process_cpu_ns(), std::memory_order_relaxed);
}

int spawn_helper(const node::Region& region, config::WakeBackend wake_choice,
                 const HelperAssignment& assignment) {
    // Without a core of its own, a helper must not take one from a rank or
    // from an interrupt thread copying a message: SCHED_IDLE runs it only on
    // a CPU nothing else wants (ranks blocked in MPI scan for it meanwhile,
    // SmartProgress::rank_blocked), and the scheduler counts a CPU that runs
    // only it as idle when it places a woken rank.
    const NodeProcess process{"si-helper", fmt::format("helper{}", assignment.block),
                              assignment.cpus, assignment.shares_cores};
    return fork_node_process(process, [&] {
        std::unique_ptr<wake::Backend> backend =
            wake::make_backend(wake_choice, region.wake_token());
        run_helper(region, *backend, assignment);
    });
}

}  // namespace si::progress
