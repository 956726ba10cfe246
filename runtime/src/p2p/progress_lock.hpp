// The progress-engine lock of one rank.
//
// Its word lives in the rank's block of the node region, so helper processes
// can see whether the rank is inside its progress engine (word != 0) and skip
// it. States: 0 free, 1 held, 2 held and someone may sleep in futex_wait, 3
// reserved: handed over by a holder that only waits to the threads that want
// the lock for work.
//
// Threads that want the lock come in two kinds. Workers (lock()) post, send or
// test and hand it back soon; a holder that only waits yields to them.
// Pollers (lock_unless()) are blocking calls waiting for their own requests:
// the holder completes those as well as they would, so it keeps the lock and
// only wakes them (wake_pollers()) when a pass completed something, and a
// poller whose request is complete leaves without the lock. Both are counted,
// so that a background progress thread can step aside (it only try_lock()s).
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "base/cpu.hpp"
#include "base/futex.hpp"
#include "wake/wake_word.hpp"

namespace si::p2p {

class ProgressLock {
public:
    // `host_waiters` (may be null) counts the threads of every rank of the
    // host that wait for their rank's lock.
    explicit ProgressLock(std::atomic<std::uint32_t>& word,
                          std::atomic<std::int32_t>* host_waiters = nullptr)
        : word_(word), host_waiters_(host_waiters) {}
    ProgressLock(const ProgressLock&) = delete;
    ProgressLock& operator=(const ProgressLock&) = delete;

    bool try_lock() {
        if (exclusive_) {
            word_.store(kHeld, std::memory_order_relaxed);
            return true;
        }
        if (biased_) return try_lock_biased();
        std::uint32_t expected = kFree;
        return word_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire,
                                             std::memory_order_relaxed);
    }
    // No other thread or signal handler of the process ever takes the lock
    // (SI_PROGRESS=none below MPI_THREAD_MULTIPLE), nor reads the word from
    // another process: taking and releasing it are plain stores, which keep
    // the word truthful for a debugger at no cost on the message path (two
    // read-modify-writes per MPI call otherwise, 0.01-0.02 us each).
    void set_exclusive() { exclusive_ = true; }
    // The application's threads take turns (below MPI_THREAD_MULTIPLE) and
    // one background thread try_lock_in_background()s now and then (a
    // SmartInterrupts interrupt thread, woken only when it is useful). Then
    // the application takes and releases the lock with plain stores and the
    // background thread pays instead: its attempt makes every thread of the
    // process pass a full barrier (membarrier(2) PRIVATE_EXPEDITED), the
    // asymmetric form of the store-then-load handshake. 8 B message rate in
    // `smart`, 2 ranks: 0.5x of `none` with the read-modify-writes. False
    // (and nothing changes) where the kernel cannot, or under ThreadSanitizer,
    // which cannot see that barrier. A signal handler on the application's
    // thread uses try_lock_in_signal_handler() instead, without the barrier.
    bool set_biased();
    void lock() {
        if (!try_lock()) contend_as_worker();
    }
    // Takes the lock as a poller, or returns false without it once done()
    // holds; done() must not need the lock.
    template <typename Done>
    bool lock_unless(Done done);
    void unlock() {
        if (exclusive_) {
            word_.store(kFree, std::memory_order_relaxed);
            return;
        }
        if (biased_) {
            // Also for a signal handler on this thread (try_lock_in_signal_handler).
            std::atomic_signal_fence(std::memory_order_release);
            word_.store(kFree, std::memory_order_release);
            return;
        }
        if (word_.exchange(kFree) == kContended) futex::wake(word_, 1);
        // After the release, so that a thread spinning on it finds the lock
        // free rather than falling asleep on a lock about to be freed. A rank
        // has one background thread, so no other background holder's mark
        // can be erased meanwhile.
        background_cpu_.store(-1, std::memory_order_relaxed);
        wake_pollers_unfenced();  // the exchange orders it after the release
    }

    // For a holder that only waits (Engine::block_until) while workers want
    // the lock: reserves it for them, waits as a poller until it is free
    // again and takes it back. `maybe_done` (lock-free) says whether the
    // holder's own wait may be over: then it waits as a worker instead, so
    // that a holder that only waits yields to it too.
    template <typename MaybeDone>
    void yield_to_workers(MaybeDone maybe_done);
    // For a holder whose pass completed something: lets each poller check.
    void wake_pollers() {
        store_load_fence();  // the completions before the count of pollers
        wake_pollers_unfenced();
    }

    // try_lock() for a background thread (interrupt or progress thread): it
    // says where it runs until its unlock, so that a thread of the rank that
    // wants the lock meanwhile spins on another CPU while the pass ends
    // (at most the spin budget) instead of sleeping: a cross-CPU wake-up
    // costs more than a 64 KiB copy on a virtual machine (20-25 us on the
    // 2-vCPU KVM guest), and the waiter would pay it after every pass.
    bool try_lock_in_background() {
        if (biased_) return try_lock_biased_in_background();
        if (!try_lock()) return false;
        background_cpu_.store(::sched_getcpu(), std::memory_order_relaxed);
        return true;
    }
    // try_lock() for a signal handler that interrupted the only thread that
    // takes the lock (set_biased(), a PEF timer below MPI_THREAD_SERIALIZED):
    // that thread cannot run until the handler returns, so the word it
    // stored is the whole truth and a free one stays free. unlock() after.
    bool try_lock_in_signal_handler() {
        if (!biased_) return try_lock();
        if (word_.load(std::memory_order_relaxed) != kFree) return false;
        word_.store(kHeld, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        return true;
    }
    // The unlock of a background holder.
    void unlock_background() {
        if (biased_) {
            background_cpu_.store(-1, std::memory_order_relaxed);
            if (background_.exchange(kFree) == kContended) futex::wake(background_, kEveryone);
            wake_pollers_unfenced();  // the exchange orders it after the release
            return;
        }
        unlock();
    }
    // lock_unless() for a background thread, which then says where it runs
    // as try_lock_in_background() does.
    // Not with set_biased().
    template <typename Done>
    bool lock_in_background_unless(Done done) {
        if (!lock_unless(done)) return false;
        background_cpu_.store(::sched_getcpu(), std::memory_order_relaxed);
        return true;
    }
    // How long a thread spins for a lock held on another CPU in the
    // background (the rank's SI_WAIT_SPIN_US; negative: no limit).
    void set_background_spin(std::chrono::nanoseconds budget) { background_spin_ = budget; }

    bool held() const { return word_.load(std::memory_order_relaxed) != kFree; }
    bool wanted() const { return workers_.load() + pollers_.load() != 0; }
    bool wanted_by_workers() const { return workers_.load() != 0; }

    // A holder may sleep on this word (Engine::wait); lock() rings it so that
    // the holder wakes and hands the lock over.
    void set_doorbell(std::atomic<std::uint32_t>& word, wake::Backend& backend) {
        doorbell_ = &word;
        backend_ = &backend;
    }

private:
    static constexpr std::uint32_t kFree = 0, kHeld = 1, kContended = 2, kReserved = 3;

    // set_biased(), the application's side: store, then look at the
    // background's flag; the background's barrier between its own store and
    // its look makes at least one of the two see the other.
    bool try_lock_biased() {
        word_.store(kHeld, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (background_.load(std::memory_order_acquire) == kFree) return true;
        word_.store(kFree, std::memory_order_relaxed);
        return false;
    }
    bool try_lock_biased_in_background();
    // The application's wait for a background pass to end (set_biased()).
    void wait_for_background();

    void count(std::atomic<int>& kind, int delta) {
        kind.fetch_add(delta);  // sequentially consistent, against the holder's checks
        if (host_waiters_ != nullptr) host_waiters_->fetch_add(delta, std::memory_order_relaxed);
    }
    // How long a thread that wants the lock spins before it sleeps.
    static int spins_worth_trying();
    // Counts the caller as a worker, rings a holder asleep on the doorbell
    // so that it hands the lock over, and takes it.
    void contend_as_worker();
    // Worker, counted: takes the lock, a reservation included. Taking it in
    // state 2 is conservative: the next unlock makes one extra futex_wake
    // call at worst, and no wake-up is ever lost.
    void work_for_lock();
    // Poller, counted: true once it holds the lock, false once done() holds.
    template <typename Done>
    bool poll_for_lock(Done done);
    // Spins while a background thread holds the lock on another CPU, within
    // the budget: true as soon as `stop` does.
    template <typename Stop>
    bool spin_while_background_runs(Stop stop) {
        const int background = background_cpu_.load(std::memory_order_relaxed);
        if (background < 0 || background == ::sched_getcpu()) return false;
        const auto until = background_spin_.count() < 0
                               ? std::chrono::steady_clock::time_point::max()
                               : std::chrono::steady_clock::now() + background_spin_;
        while (background_cpu_.load(std::memory_order_relaxed) >= 0 &&
               std::chrono::steady_clock::now() < until) {
            if (stop()) return true;
            cpu_relax();
        }
        return false;
    }
    void wake_pollers_unfenced() {
        if (pollers_.load() == 0) return;
        poll_sequence_.fetch_add(1);
        futex::wake(poll_sequence_, kEveryone);
    }

    static constexpr int kEveryone = 1 << 30;

    std::atomic<std::uint32_t>& word_;
    bool exclusive_ = false;
    bool biased_ = false;
    // set_biased(): the background holder's flag (kFree, kHeld, kContended:
    // the application waits on it).
    std::atomic<std::uint32_t> background_{kFree};
    std::atomic<int> workers_{0};
    std::atomic<int> pollers_{0};
    // Pollers sleep here, apart from the workers on word_: a wake-up for
    // pollers changes it, so that none is lost between a poller's last check
    // and its sleep.
    std::atomic<std::uint32_t> poll_sequence_{0};
    std::atomic<int> background_cpu_{-1};  // of a background holder, else -1
    std::chrono::nanoseconds background_spin_{std::chrono::microseconds(50)};
    std::atomic<std::int32_t>* host_waiters_;
    std::atomic<std::uint32_t>* doorbell_ = nullptr;
    wake::Backend* backend_ = nullptr;
};

template <typename Done>
bool ProgressLock::poll_for_lock(Done done) {
    // Pollers take the lock only when it is free: a reservation is for the
    // workers. Taking it as held (1) is safe: a worker woken by the unlock
    // that freed it marks it contended again before it sleeps.
    for (int spin = spins_worth_trying(); spin > 0; --spin) {
        if (word_.load(std::memory_order_relaxed) == kFree && try_lock()) return true;
        if (done()) return false;
        cpu_relax();
    }
    bool taken = false;
    if (spin_while_background_runs([&] {
            taken = word_.load(std::memory_order_relaxed) == kFree && try_lock();
            return taken || done();
        }))
        return taken;
    for (;;) {
        const std::uint32_t sequence = poll_sequence_.load();
        if (word_.load() == kFree && try_lock()) return true;
        if (done()) return false;
        futex::wait(poll_sequence_, sequence);
    }
}

template <typename Done>
bool ProgressLock::lock_unless(Done done) {
    if (try_lock()) return true;
    count(pollers_, 1);
    const bool taken = poll_for_lock(done);
    count(pollers_, -1);
    return taken;
}

template <typename MaybeDone>
void ProgressLock::yield_to_workers(MaybeDone maybe_done) {
    count(pollers_, 1);
    if (word_.exchange(kReserved) == kContended) futex::wake(word_, 1);
    const bool taken = poll_for_lock(maybe_done);
    count(pollers_, -1);
    if (!taken) contend_as_worker();
}

// Scoped holder.
class ProgressGuard {
public:
    explicit ProgressGuard(ProgressLock& lock) : lock_(lock) { lock_.lock(); }
    // Of a lock the caller has taken already.
    ProgressGuard(ProgressLock& lock, std::adopt_lock_t) : lock_(lock) {}
    ~ProgressGuard() { lock_.unlock(); }
    ProgressGuard(const ProgressGuard&) = delete;
    ProgressGuard& operator=(const ProgressGuard&) = delete;

private:
    ProgressLock& lock_;
};

}  // namespace si::p2p
