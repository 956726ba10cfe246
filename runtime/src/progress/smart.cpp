#include "progress/smart.hpp"
#include "progress/node_process.hpp"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/clock.hpp"
#include "base/cpu.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "node/placement.hpp"
#include "p2p/tuple.hpp"
#include "wake/backends.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;

// How often a sleeping interrupt thread checks that its helper still lives.
constexpr auto kLivenessPeriod = 500ms;
// How long MPI_Finalize waits for a helper to stop before killing it.
constexpr auto kHelperStopGrace = 2s;

struct NodeLayout {
    std::vector<int> members;  // local indices of the node's ranks, ascending
    int helpers = 1;
    int my_position = 0;
};

NodeLayout node_layout(const node::Locality& locality, int requested_helpers) {
    NodeLayout layout;
    const int my_node = locality.node_of[locality.world_rank];
    for (int rank : locality.host_ranks) {
        if (locality.node_of[rank] != my_node) continue;
        if (rank == locality.world_rank)
            layout.my_position = static_cast<int>(layout.members.size());
        layout.members.push_back(locality.local_index_of[rank]);
    }
    layout.helpers = std::min<int>(requested_helpers, static_cast<int>(layout.members.size()));
    return layout;
}

int helper_block_of(const NodeLayout& layout, int position) {
    return layout.members.front() + position % layout.helpers;
}

}  // namespace

SmartProgress::SmartProgress(p2p::Engine& engine, const node::Region& region,
                             const node::Locality& locality, const config::Settings& settings)
    : engine_(engine),
      region_(region),
      settings_(settings),
      local_index_(locality.local_index()),
      world_rank_(locality.world_rank),
      local_of_world_(static_cast<std::size_t>(locality.world_size), -1),
      block_(region.rank_block(local_index_)),
      backend_(wake::make_backend(settings.wake, region.wake_token())),
      doorbell_backend_(wake::make_backend(config::WakeBackend::futex)) {
    for (int rank : locality.host_ranks)
        local_of_world_[static_cast<std::size_t>(rank)] = locality.local_index_of[rank];
    // The region's IRB size (a multiple of 64: api/runtime.cpp rounds it up).
    free_count_ = region.irb_entries();
    free_entries_.assign(free_count_ / 64, ~std::uint64_t{0});
    const NodeLayout layout = node_layout(locality, settings.helpers);
    const int my_helper = helper_block_of(layout, layout.my_position);
    helper_ = &region.helper_block(my_helper);
    block_.helper_block.store(my_helper, std::memory_order_relaxed);
    // Before the thread starts and before a helper can see the word sleeping.
    backend_->attach_sleeper(block_.interrupt_word, block_.interrupt_handle);
    block_.interrupt_cpu.store(-1, std::memory_order_relaxed);
    // rank_blocked() may wake any interrupt thread of the host, and a send
    // any helper of the host (ring_helper_of).
    for (int index = 0; index < region.local_size(); ++index) {
        node::RankBlock& other = region.rank_block(index);
        if (index != local_index_)
            backend_->attach_waker(other.interrupt_word, other.interrupt_handle);
        node::HelperBlock& helper = region.helper_block(index);
        backend_->attach_waker(helper.word, helper.word_handle);
    }
    if (layout.my_position == 0) {
        // Helpers are forked now, before this process has runtime threads.
        const std::vector<ProcessPlacement> placement = place_node_processes(region, layout.helpers);
        for (int g = 0; g < layout.helpers; ++g) {
            HelperAssignment assignment;
            assignment.block = helper_block_of(layout, g);
            assignment.cpus = placement[static_cast<std::size_t>(g)].cpus;
            assignment.shares_cores = placement[static_cast<std::size_t>(g)].shares_cores;
            assignment.wake_on_own_cpu =
                settings.interrupt_placement == config::InterruptPlacement::helper;
            // Senders on other hosts deposit RTSs without ringing.
            assignment.rung_by_senders = locality.local_size() == locality.world_size;
            assignment.any_rma_signal = !settings.rma_icb_per_peer;
            for (std::size_t p = static_cast<std::size_t>(g); p < layout.members.size();
                 p += static_cast<std::size_t>(layout.helpers))
                assignment.ranks.push_back(layout.members[p]);
            const int pid = spawn_helper(region, settings.wake, assignment);
            region.helper_block(assignment.block).pid.store(pid, std::memory_order_release);
            started_helpers_.emplace_back(assignment.block, pid);
        }
    }
    engine_.set_progress_observer(this);
    thread_ = std::thread([this] { run_interrupt_thread(); });
}

SmartProgress::~SmartProgress() {
    engine_.set_progress_observer(nullptr);
    stop();
    if (helper_pidfd_ >= 0) ::close(helper_pidfd_);
}

void SmartProgress::stop() {
    if (thread_.joinable()) {
        stop_.store(true);
        wake::post(*backend_, block_.interrupt_word);
        thread_.join();
    }
    stop_helpers();
}

// ---- interrupt requests (called with the progress lock held) ------------------

bool SmartProgress::eager_only(const p2p::Request& request) const {
    return !request.wake_for_eager &&
           request.bytes <= (request.peer >= 0 ? engine_.eager_limit(request.peer)
                                               : engine_.smallest_eager_limit());
}

void SmartProgress::receive_posted(p2p::Request& request, bool blocking) {
    add_to_own(block_.receives_posted, 1);
    const bool without_entry = blocking || eager_only(request) ||
                               helper_lost_.load(std::memory_order_relaxed) || free_count_ == 0;
    if (without_entry) {
        if (!blocking && free_count_ == 0) ++stats_.irb_full;
        // Counted, so that no sender delivers into this rank meanwhile: it
        // could not tell whether this receive comes first.
        request.irb_entry = kOutsideIrb;
        add_to_own(block_.posted_outside_irb, 1);
        return;
    }
    const auto word = std::find_if(free_entries_.begin(), free_entries_.end(),
                                   [](std::uint64_t bits) { return bits != 0; });
    const int bit = __builtin_ctzll(*word);
    *word &= ~(std::uint64_t{1} << bit);
    --free_count_;
    const int entry = static_cast<int>(word - free_entries_.begin()) * 64 + bit;
    const p2p::InterruptPattern pattern = p2p::interrupt_pattern(request.match);
    node::InterruptRequest& slot = region_.irb(local_index_)[entry];
    slot.address.store(reinterpret_cast<std::uint64_t>(request.buffer), std::memory_order_relaxed);
    slot.capacity.store(request.bytes, std::memory_order_relaxed);
    slot.delivery.store(node::DeliveryWord{++next_sequence_}.pack(), std::memory_order_release);
    slot.eager_too.store(request.wake_for_eager ? 1 : 0, std::memory_order_relaxed);
    // Mask first: a helper that sees the value then reads a matching mask.
    slot.mask.store(pattern.mask, std::memory_order_relaxed);
    slot.value.store(pattern.value, std::memory_order_release);
    request.irb_entry = entry;
    ++stats_.interrupt_requests;
    add_to_own(block_.irb_in_use, 1);
    helper_->outstanding.fetch_add(1);
    // A sleeping helper learns of the request (it may match an RTS already
    // in the ICB); one that polls sees it.
    if (ring_helper_of(region_, local_index_, *backend_)) ++stats_.helper_rings;
}

void SmartProgress::rts_sent(int peer) {
    const int local = local_of_world_[static_cast<std::size_t>(peer)];
    if (local >= 0 && local != local_index_ && ring_helper_of(region_, local, *backend_))
        ++stats_.helper_rings;
}

// Beyond the thesis: a rank blocked in MPI does a helper's scan of the other
// ranks of its host while it waits, at its yield points. Its core is the one
// that is free: the thread it wakes runs there (SI_INTERRUPT_CPU=helper), and
// the rank then yields instead of spinning, leaving the core to that thread.
// Where no core is left for helpers (a laptop, a full node), this is what
// finds the idle core at once, without a helper needing to be scheduled.
bool SmartProgress::rank_blocked() {
    const bool here = settings_.interrupt_placement == config::InterruptPlacement::helper;
    const int cpu = here ? ::sched_getcpu() : -1;
    bool handed_over = false;
    for (int index = 0; index < region_.local_size(); ++index) {
        if (index == local_index_) continue;
        const RankVerdict verdict =
            examine_rank(region_, index, *backend_, {cpu, !settings_.rma_icb_per_peer});
        if (verdict == RankVerdict::nothing_requested) continue;
        ++stats_.blocked_scans;
        if (verdict != RankVerdict::woken) continue;
        ++stats_.blocked_wakes;
        handed_over = handed_over || cpu >= 0;
    }
    return handed_over;
}

// ---- one-sided signals (called with the progress lock held) -------------------

namespace {

// Counts, per bit, the windows awaiting it; returns the bits awaited now.
std::uint64_t count_windows(std::array<std::uint32_t, 64>& windows, std::uint64_t before,
                            std::uint64_t after, std::uint64_t awaited) {
    for (std::uint64_t bits = after & ~before; bits != 0; bits &= bits - 1)
        if (windows[__builtin_ctzll(bits)]++ == 0) awaited |= bits & -bits;
    for (std::uint64_t bits = before & ~after; bits != 0; bits &= bits - 1)
        if (--windows[__builtin_ctzll(bits)] == 0) awaited &= ~(bits & -bits);
    return awaited;
}

}  // namespace

bool SmartProgress::signals_awaited(p2p::AwaitedSignals before, p2p::AwaitedSignals after) {
    const p2p::AwaitedSignals old{block_.rma_awaited_any.load(std::memory_order_relaxed),
                                  block_.rma_awaited_all.load(std::memory_order_relaxed)};
    const p2p::AwaitedSignals now{
        count_windows(windows_awaiting_any_, before.any, after.any, old.any),
        count_windows(windows_awaiting_all_, before.all, after.all, old.all)};
    if (now == old) return false;
    // A raised flag of a peer not awaited until now is a signal the rank
    // has seen: it must not wake the rank later.
    const std::uint64_t fresh = now.peers() & ~old.peers();
    for (std::uint64_t bits = fresh; bits != 0; bits &= bits - 1)
        block_.rma_signals[__builtin_ctzll(bits)].store(0, std::memory_order_relaxed);
    stats_.rma_awaits += static_cast<std::uint64_t>(__builtin_popcountll(fresh));
    block_.rma_awaited_any.store(now.any, std::memory_order_release);
    block_.rma_awaited_all.store(now.all, std::memory_order_release);
    // Counted as one outstanding request of the helper, so that it scans.
    if (old.peers() == 0 && now.peers() != 0) {
        helper_->outstanding.fetch_add(1);
        if (ring_helper_of(region_, local_index_, *backend_)) ++stats_.helper_rings;
    } else if (old.peers() != 0 && now.peers() == 0) {
        helper_->outstanding.fetch_sub(1);
    }
    // The resets before the caller reads its counters again: a peer that
    // signals after that read raises its flag after the reset.
    store_load_fence();
    return fresh != 0;
}

// A ring after an RDMA Write comes before the write lands; a helper woken by
// it polls a while (kIdlePolling), long enough to see it. (A send queued for
// want of a cell lands later still: a helper awake at the ring that falls
// asleep before then misses it until the next ring or the rank's next MPI
// call; cells run out only when a target leaves SI_SHM_CELLS messages unread.)
void SmartProgress::ring_peer(int peer, bool raise_signal) {
    const int local = local_of_world_[static_cast<std::size_t>(peer)];
    if (local < 0) return;
    if (raise_signal)
        region_.rank_block(local).rma_signals[world_rank_ % 64].store(1, std::memory_order_release);
    if (local != local_index_ && ring_helper_of(region_, local, *backend_)) ++stats_.helper_rings;
}

std::uint8_t* SmartProgress::signal_flags() {
    return reinterpret_cast<std::uint8_t*>(block_.rma_signals);
}

void SmartProgress::withdraw(p2p::Request& request) {
    if (request.irb_entry < 0) return;
    region_.irb(local_index_)[request.irb_entry].value.store(0, std::memory_order_release);
    free_entries_[static_cast<std::size_t>(request.irb_entry) / 64] |=
        std::uint64_t{1} << (request.irb_entry % 64);
    ++free_count_;
    request.irb_entry = -1;
    add_to_own(block_.irb_in_use, -1);
    helper_->outstanding.fetch_sub(1);
}

// ---- the interrupt thread --------------------------------------------------------

void SmartProgress::run_interrupt_thread() {
    if (settings_.interrupt_placement == config::InterruptPlacement::any)
        node::allow_calling_thread_every_cpu();
    block_.interrupt_tid.store(static_cast<std::int32_t>(::gettid()), std::memory_order_release);
    trace::set_thread_role(trace::Thread::interrupt);
    p2p::ProgressLock& lock = engine_.lock();
    while (!helper_lost_.load(std::memory_order_relaxed)) {
        const wake::SleepResult result = wake::sleep(
            *backend_, block_.interrupt_word, kLivenessPeriod, [this] { return !stop_.load(); });
        if (stop_.load()) return;
        if (result == wake::SleepResult::timed_out) {
            check_helper_alive();
            continue;
        }
        if (result != wake::SleepResult::woken) continue;
        wakeups_.fetch_add(1, std::memory_order_relaxed);
        trace::record(trace::Event::interrupt_running, -1, 0, ::sched_getcpu());
        const std::uint64_t now = monotonic_ns();
        const std::uint64_t stamp = block_.woken_at_ns.load(std::memory_order_relaxed);
        const std::uint64_t latency = now > stamp ? now - stamp : 0;
        wake_latency_ns_total_.fetch_add(latency, std::memory_order_relaxed);
        if (latency > wake_latency_ns_max_.load(std::memory_order_relaxed))
            wake_latency_ns_max_.store(latency, std::memory_order_relaxed);
        // The helper saw the lock free; if an application thread took it since
        // (the thread got a core too late), that thread progresses itself.
        if (!lock.try_lock_in_background()) {
            late_wakeups_.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        // ... or it may have taken the message the helper woke us for and
        // left MPI already: then a pass that finds nothing came late too.
        const bool taken_meanwhile = message_taken_since_wake();
        const std::uint64_t before = engine_.advances();
        engine_.progress_in_background();
        const bool futile = engine_.advances() == before;
        lock.unlock_background();
        if (futile)
            (taken_meanwhile ? late_wakeups_ : futile_wakeups_)
                .fetch_add(1, std::memory_order_relaxed);
    }
}

bool SmartProgress::message_taken_since_wake() const {
    const int slot = block_.woken_icb_slot.load(std::memory_order_relaxed);
    if (slot < 0) return false;  // woken for a one-sided signal
    const std::atomic<std::uint64_t>& tuple = region_.icb(local_index_)[slot];
    return tuple.load(std::memory_order_acquire) !=
           block_.woken_icb_tuple.load(std::memory_order_relaxed);
}

void SmartProgress::check_helper_alive() {
    if (!node_process_exited(helper_->pid.load(std::memory_order_acquire), helper_pidfd_) ||
        helper_->stop.load() != 0)
        return;
    helper_lost_.store(true, std::memory_order_relaxed);
    log::warn(
        "SmartInterrupts helper (pid {}) died; this rank continues without asynchronous "
        "progress",
        helper_->pid.load());
}

// ---- helpers and counters --------------------------------------------------------

void SmartProgress::stop_helpers() {
    for (const auto& [index, pid] : started_helpers_) {
        node::HelperBlock& helper = region_.helper_block(index);
        helper.stop.store(1);
        wake::post(*backend_, helper.word);
    }
    const auto deadline = std::chrono::steady_clock::now() + kHelperStopGrace;
    // Reaped: the block index stays for counters().
    for (auto& [index, pid] : started_helpers_)
        reap_node_process("SmartInterrupts helper", pid, deadline);
}

std::vector<Counter> SmartProgress::counters() const {
    std::vector<Counter> out = {
        {"interrupt_requests", stats_.interrupt_requests},
        {"irb_full", stats_.irb_full},
        {"blocked_scans", stats_.blocked_scans},
        {"blocked_wakes", stats_.blocked_wakes},
        {"helper_rings", stats_.helper_rings},
        {"rma_awaits", stats_.rma_awaits},
        {"wakeups", wakeups_.load()},
        {"futile_wakeups", futile_wakeups_.load()},
        {"late_wakeups", late_wakeups_.load()},
        {"wake_latency_us_mean",
         wakeups_.load() == 0 ? 0 : wake_latency_ns_total_.load() / wakeups_.load() / 1000},
        {"wake_latency_us_max", wake_latency_ns_max_.load() / 1000},
    };
    for (std::size_t g = 0; g < started_helpers_.size(); ++g) {
        const node::HelperBlock& helper = region_.helper_block(started_helpers_[g].first);
        const std::string prefix = "helper" + std::to_string(g) + "_";
        out.emplace_back(prefix + "scans", helper.scans.load());
        out.emplace_back(prefix + "skipped_locked", helper.skipped_locked.load());
        out.emplace_back(prefix + "wakes", helper.wakes.load());
        out.emplace_back(prefix + "idle_sleeps", helper.idle_sleeps.load());
        out.emplace_back(prefix + "request_sleeps", helper.request_sleeps.load());
        out.emplace_back(prefix + "cpu_us", helper.cpu_ns.load() / 1000);
    }
    return out;
}

}  // namespace si::progress
