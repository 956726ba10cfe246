// Sleeping and waking across processes without losing a wake-up.
//
// A WakeWord is a 32-bit word in shared memory, owned by one sleeper (an
// interrupt thread, or an idle helper process) and poked by any number of
// wakers. Its low two bits are its state; the bits above count the sleeps
// (the generation), so that a waker that decided to wake one sleep cannot end
// a later one (wake_if_still_sleeping). States:
//
//     running --sleeper arms--> sleeping --waker--> woken --sleeper--> running
//        \____________________waker____________________/
//
// Sleeper (sleep()):   arm:      CAS running -> sleeping, generation + 1; if
//                                that fails the word is `woken`: a wake came
//                                while we ran, consume it (store running) and
//                                return.
//                      re-check: ask the caller whether there is still
//                                nothing to do (`idle`); if there is, disarm
//                                with an exchange and return.
//                      sleep:    in the backend while the word is `sleeping`.
//                      disarm:   exchange -> running; the old value says
//                                whether we were woken or timed out.
// Waker (wake_if_sleeping()):  publish the work first (the caller), then
//                      read the word with a read-modify-write; only if it
//                      is `sleeping`, CAS sleeping -> woken and enter the
//                      kernel. A waker that finds the word `running` does
//                      nothing: the sleeper has not armed yet, and its
//                      re-check will see the published work.
// Waker (post()):      exchange -> woken, enter the kernel only if the old
//                      value was `sleeping`; the next sleep() returns at once
//                      if the sleeper was running. Used to stop a sleeper.
//
// No wake-up is lost: the sleeper's arm and the waker's read are both
// read-modify-writes of the word, so one precedes the other in the word's
// modification order. If the waker's comes first, the sleeper's arm reads
// from its release sequence, so the re-check sees the work published before
// it; otherwise the waker reads `sleeping` and wakes. (RMWs rather than a
// fence plus a plain load: the argument needs only acquire/release, and
// ThreadSanitizer can check it.) None is spurious: a waker enters the kernel
// only for a word it moved out of `sleeping` itself, so each wake-up fired
// ends exactly one sleep.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace si::wake {

enum WordState : std::uint32_t { kRunning = 0, kSleeping = 1, kWoken = 2 };
inline constexpr std::uint32_t kStateMask = 3;
constexpr WordState state_of(std::uint32_t word) { return static_cast<WordState>(word & kStateMask); }
constexpr std::uint32_t with_state(std::uint32_t word, WordState state) {
    return (word & ~kStateMask) | state;
}

// How a sleeper waits in the kernel and a waker gets it out. A backend only
// moves threads; the WakeWord protocol decides when.
class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;
    // Blocks while the word stays the sleeping value it holds, at most
    // `timeout`; may return early.
    virtual void wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout) = 0;
    // Ends the wait of the one sleeper of word.
    virtual void wake(std::atomic<std::uint32_t>& word) = 0;

    // A backend that cannot find a sleeper from its word's address (kmod:
    // the word sits at a different address in every process mapping it)
    // names the sleeper with a handle the sleeper publishes in a cell next to
    // the word, in the same shared memory; 0 there means "no handle", and
    // sleeper and wakers of that word then use the futex. The sleeper
    // attaches before its first sleep on the word, each waker process before
    // its first wake. Attach before the word's users start: the bindings are
    // read without a lock. A waker reads the cell after its read-modify-write
    // of the word found `sleeping`, so it sees the handle the sleeper stored
    // before arming.
    virtual void attach_sleeper(std::atomic<std::uint32_t>& word,
                                std::atomic<std::uint32_t>& handle) {
        handle.store(kNoHandle, std::memory_order_release);
    }
    virtual void attach_waker(std::atomic<std::uint32_t>& word,
                              std::atomic<std::uint32_t>& handle) {}
    static constexpr std::uint32_t kNoHandle = 0;
};

enum class SleepResult { woken, timed_out, not_idle };

// The sleeper's side. `idle` runs after arming and must return false if
// there is work after all (it is the re-check of the protocol).
SleepResult sleep(Backend& backend, std::atomic<std::uint32_t>& word,
                  std::chrono::milliseconds timeout, const std::function<bool()>& idle);

// Wakes the sleeper only if the word still holds `seen`, read earlier while
// it slept: a waker that decided from what it saw meanwhile (a helper's scan)
// must not end a sleep that began after the sleeper acted on the same thing
// (a futile wake-up). Fires nothing if `seen` was not a sleep.
bool wake_if_still_sleeping(Backend& backend, std::atomic<std::uint32_t>& word,
                            std::uint32_t seen);

// Wakes the sleeper if it sleeps; true if this call fired the wake-up.
inline bool wake_if_sleeping(Backend& backend, std::atomic<std::uint32_t>& word) {
    // A read-modify-write, not a load: see "No wake-up is lost" above.
    const std::uint32_t seen = word.fetch_add(0);
    if (state_of(seen) != kSleeping) return false;
    return wake_if_still_sleeping(backend, word, seen);
}

// Plain wakers: the same protocol with the cost moved to the sleeper. A
// waker that reads the word with a plain load (wake_if_sleeping_plain) saves
// the read-modify-write on every message it delivers (8-byte message rate on
// shared memory: +7 % on this VM's fast periods, +45 % on its slow ones);
// that is correct against a sleeper that, after arming and before its
// re-check, makes every CPU running a registered process pass a full memory
// barrier (barrier_for_plain_wakers: membarrier(2) GLOBAL_EXPEDITED), the
// asymmetric form of the argument above: a waker's plain load either comes
// after that barrier on its CPU and sees `sleeping`, or it came before, and
// then the work it published before the load in program order is visible to
// the re-check once the barrier returns. Sleeps come after a blocked call
// polled for a while, so the barrier's system call is off the message path.

// Registers this process for the sleepers' barriers (once, at start-up);
// false where the kernel cannot, and then its wakers keep the
// read-modify-write.
bool enable_plain_wakers();
// The sleeper's barrier, between arming and the re-check; false if it failed,
// and then the sleeper must not sleep.
bool barrier_for_plain_wakers();

namespace detail {
extern bool plain_wakers;  // set once by enable_plain_wakers(), before any waker runs
}  // namespace detail

// wake_if_sleeping for a word whose sleeper calls barrier_for_plain_wakers().
// Inline: every message on shared memory asks it of its receiver.
inline bool wake_if_sleeping_plain(Backend& backend, std::atomic<std::uint32_t>& word) {
    if (!detail::plain_wakers) return wake_if_sleeping(backend, word);
    const std::uint32_t seen = word.load(std::memory_order_relaxed);
    if (state_of(seen) != kSleeping) return false;
    return wake_if_still_sleeping(backend, word, seen);
}

// Makes the sleeper's current or next sleep return (to stop it).
void post(Backend& backend, std::atomic<std::uint32_t>& word);

}  // namespace si::wake
