// Counters that explain where a rank's communication time goes; printed or
// written at MPI_Finalize when SI_STATS asks.
#pragma once

#include <cstdint>

namespace si::p2p {

struct Stats {
    std::uint64_t eager_sent = 0;
    std::uint64_t eager_bytes = 0;
    std::uint64_t rendezvous_sent = 0;
    std::uint64_t rendezvous_bytes = 0;
    std::uint64_t rdma_reads = 0;
    std::uint64_t rdma_read_bytes = 0;
    // ... of which issued by a pass of the progress thread, an interrupt thread or
    // PEF's signal handler: data that did not wait for the application's next call.
    std::uint64_t rdma_read_bytes_in_background = 0;
    // ... of which into a receive in pieces, which saved the unpack, and
    // behind a sender still packing (p2p/segments.hpp).
    std::uint64_t piecewise_reads = 0;
    std::uint64_t reads_behind_packing = 0;
    // One-sided transfers of the RMA layer (Engine::rdma_locked): Put and
    // Get data, and the epoch counters written into peers' windows.
    std::uint64_t rma_writes = 0;
    std::uint64_t rma_write_bytes = 0;
    std::uint64_t rma_reads = 0;
    std::uint64_t rma_read_bytes = 0;
    // Puts and Gets copied straight into or out of a window on this node,
    // mapped into this process (no transfer at all).
    std::uint64_t rma_copies = 0;
    std::uint64_t rma_copy_bytes = 0;
    // RMA epochs activated, and those that could not be when opened (behind a
    // closed epoch still completing: the seed 002 deferral); messages this
    // rank served as a target (accumulates, atomics, non-contiguous layouts,
    // lock requests and releases), and lock requests it queued behind a holder.
    std::uint64_t rma_epochs = 0;
    std::uint64_t rma_epochs_deferred = 0;
    std::uint64_t rma_messages_served = 0;
    std::uint64_t rma_lock_waits = 0;
    // RMA operations started by a pass of the progress thread or an interrupt
    // thread: a Put or Get that moved while the application computed.
    std::uint64_t rma_started_in_background = 0;
    // Direct delivery on shared memory: sends this rank wrote into the
    // receive buffer itself, and receives its senders wrote.
    std::uint64_t direct_writes = 0;
    std::uint64_t direct_write_bytes = 0;
    // Claims given up because the receiver took the RTS meanwhile.
    std::uint64_t direct_writes_abandoned = 0;
    std::uint64_t direct_deliveries = 0;
    std::uint64_t messages_received = 0;  // every arrival: eager data, RTS, FIN, ...
    std::uint64_t requests_completed = 0;
    std::uint64_t unexpected = 0;       // arrivals that found no posted receive
    std::uint64_t send_retries = 0;     // sends queued because the peer had no free slot
    std::uint64_t progress_calls = 0;
    std::uint64_t progress_events = 0;
    std::uint64_t wait_sleeps = 0;    // times a blocked call slept on the doorbell
    std::uint64_t wait_timeouts = 0;  // ... and woke by its 200 ms safety timeout
    std::uint64_t lost_wakeups = 0;   // ... and then found a message that had not rung (must stay 0)
    // Rounds of collective schedules started, and those started by a pass of
    // the progress thread or an interrupt thread (while the application was
    // elsewhere).
    std::uint64_t collective_rounds = 0;
    std::uint64_t collective_rounds_in_background = 0;
    // Blocking collectives run through the node's shared memory
    // (coll/node_collectives.hpp) instead of messages.
    std::uint64_t collectives_on_node = 0;
    // Rendezvous receives: from the RTS leaving the sender to the RDMA Read
    // being issued (same-host peers only, where both read one clock).
    std::uint64_t rts_to_read_count = 0;
    std::uint64_t rts_to_read_ns_total = 0;
    std::uint64_t rts_to_read_ns_max = 0;
};

}  // namespace si::p2p
