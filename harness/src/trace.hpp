// `sibench trace`: what the SI_TRACE files of one run say about every
// rendezvous transfer (runtime/src/base/trace.hpp lists the events): when the
// RTS left, when a helper or a blocked rank matched it and woke the receiver's
// interrupt thread, when that thread ran, when the data started and finished
// moving and who moved it, when the sender learnt it was over. From those:
// the latency of each stage (median, 90th percentile), a histogram of each,
// and a timeline of a few transfers, so that one sees which stage eats the
// overlap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace si::harness {

struct TraceEvent {
    std::uint64_t t_ns = 0;
    std::string process;  // rank3, helper0
    std::string thread;   // application, interrupt, helper
    std::string event;
    int peer = -1;
    std::uint64_t id = 0;
    std::int64_t value = 0;
};

// Every event of the files <prefix>.rank* and <prefix>.helper*, in time order.
// Throws std::runtime_error naming the file and line of a malformed row, or
// when no file exists.
std::vector<TraceEvent> read_trace(const std::string& prefix);

struct Transfer {
    int sender = -1;
    int receiver = -1;
    std::uint64_t bytes = 0;
    std::uint64_t rts_ns = 0;
    // Absent when the transfer did not pass through that stage.
    std::optional<std::uint64_t> matched_ns;  // helper or blocked rank saw the RTS match
    std::optional<std::uint64_t> wake_ns;     // ... and woke the interrupt thread
    std::optional<std::uint64_t> running_ns;  // the interrupt thread ran
    std::optional<std::uint64_t> move_start_ns, move_end_ns;  // the data moved
    std::optional<std::uint64_t> sender_done_ns;  // FIN seen, or the sender's own write done
    std::optional<std::uint64_t> receiver_posted_ns;  // its receive asked for help
    std::optional<std::uint64_t> receiver_waits_ns;   // the receiver came back into MPI
    std::string moved_by;  // "interrupt thread", "application", "sender", or "" if never
};

// One Transfer per RTS whose data moved, matched by (sender, request id).
std::vector<Transfer> rebuild_transfers(const std::vector<TraceEvent>& events);

struct Stage {
    std::string name;
    std::vector<double> us;  // one value per transfer that passed through it
};
// The stages, in path order: rts->match, match->wake, wake->running,
// running->move, rts->move, move, move->sender done, and rts->receiver in MPI.
std::vector<Stage> stages_of(const std::vector<Transfer>& transfers);

// Writes into `dir`: transfers.csv (one row per transfer, times relative to
// its RTS), stages.txt (per stage: count, median, 90th percentile, and who
// moved the data), and the figures stages.png (a histogram per stage) and
// timeline.png (`repetitions` transfers from the middle of the run, one lane
// per process and thread) with their .dat and .gp. Returns the text of
// stages.txt; problems (no gnuplot) go to `notes`.
std::string write_trace_report(const std::vector<Transfer>& transfers,
                               const std::vector<TraceEvent>& events, const std::string& dir,
                               int repetitions, std::vector<std::string>& notes);

}  // namespace si::harness
