// Progression mode `interrupt`: the classic interrupt-driven progress thread,
// the design whose futile wake-ups SmartInterrupts removes (thesis L2274-2284).
// Each rank's thread sleeps on the rank's interrupt word. Every message that
// arrives for the rank rings it (the shared-memory sender once the message is
// published, ShmTransport::ring_interrupt_threads; on verbs the completion
// notifier, VerbsTransport::also_ring), eager data, RTS, FIN or credit alike,
// and the thread makes one progress pass, whether or not that message lets
// anything progress. Its counters, with the engine's messages_received, give
// the wake-ups per message and the futile ones that the comparison with
// `smart` is about.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "base/config.hpp"
#include "node/region.hpp"
#include "p2p/engine.hpp"
#include "progress/counter.hpp"
#include "wake/wake_word.hpp"

namespace si::progress {

class InterruptProgress {
  public:
    // `block` is the rank's block of the node region (its interrupt word).
    // `arming_needed`: a transport rings only once armed (verbs).
    InterruptProgress(p2p::Engine& engine, node::RankBlock& block,
                      const config::Settings& settings, bool arming_needed);
    ~InterruptProgress();
    InterruptProgress(const InterruptProgress&) = delete;
    InterruptProgress& operator=(const InterruptProgress&) = delete;

    // Ends the thread (the destructor does, if this was not called): after
    // it, nothing touches the engine but the application.
    void stop();
    std::vector<Counter> counters() const;

  private:
    void run();

    p2p::Engine& engine_;
    node::RankBlock& block_;
    const bool every_cpu_;
    const bool arming_needed_;
    std::unique_ptr<wake::Backend> backend_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> wakeups_{0};
    // Woken, made its pass, and it advanced nothing (Engine::advances): the
    // message was an RTS whose receive is not posted yet, a credit, ...
    std::atomic<std::uint64_t> futile_wakeups_{0};
    // Woken while the application was inside MPI (the lock taken): the
    // thread waited for the lock, then made its pass.
    std::atomic<std::uint64_t> locked_wakeups_{0};
    // The last look before a sleep found work, so the thread made progress
    // without sleeping: a message that came while it was still awake.
    std::atomic<std::uint64_t> rechecks_with_work_{0};
    std::thread thread_;
};

}  // namespace si::progress
