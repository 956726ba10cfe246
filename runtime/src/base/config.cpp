#include "base/config.hpp"

#include <algorithm>
#include <cstdlib>
#include <charconv>

#include "base/error.hpp"

extern char** environ;

namespace si::config {

namespace {

using Apply = std::function<std::optional<std::string>(std::string_view, Settings&)>;

// Byte counts accept a plain number or a k/m/g suffix (powers of 1024).
std::optional<std::size_t> parse_bytes(std::string_view text) {
    std::size_t multiplier = 1;
    if (!text.empty()) {
        switch (text.back()) {
            case 'k': case 'K': multiplier = std::size_t{1} << 10; break;
            case 'm': case 'M': multiplier = std::size_t{1} << 20; break;
            case 'g': case 'G': multiplier = std::size_t{1} << 30; break;
            default: break;
        }
        if (multiplier != 1) text.remove_suffix(1);
    }
    std::size_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value * multiplier;
}

std::optional<long> parse_int(std::string_view text) {
    long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// The value `text` names in `table`, or the message listing the valid names.
template <typename Enum>
std::optional<std::string> look_up(const std::vector<std::pair<std::string_view, Enum>>& table,
                                   std::string_view text, Enum& out) {
    for (const auto& [name, value] : table)
        if (name == text) {
            out = value;
            return std::nullopt;
        }
    std::string valid;
    for (const auto& entry : table) valid += (valid.empty() ? "" : ", ") + std::string(entry.first);
    return fmt::format("valid values are {}", valid);
}

template <typename Enum>
Apply choice(std::initializer_list<std::pair<std::string_view, Enum>> names, Enum Settings::*field) {
    std::vector<std::pair<std::string_view, Enum>> table(names);
    return [table, field](std::string_view text, Settings& out) {
        return look_up(table, text, out.*field);
    };
}

// SI_COLL_<NAME>: auto or one of the collective's algorithms.
Apply algorithm(std::initializer_list<std::pair<std::string_view, Algorithm>> names,
                Algorithm CollectiveAlgorithms::*field) {
    std::vector<std::pair<std::string_view, Algorithm>> table{{"auto", Algorithm::automatic}};
    table.insert(table.end(), names.begin(), names.end());
    return [table, field](std::string_view text, Settings& out) {
        return look_up(table, text, out.algorithms.*field);
    };
}

// A byte count from `low` to `high`, or 0 for `off` when `off_is_zero`, into
// `out`; else the error, from `valid`, which says what would be accepted.
std::optional<std::string> bytes_within(std::string_view text, std::size_t low, std::size_t high,
                                        const char* valid, bool off_is_zero, std::size_t& out) {
    if (off_is_zero && text == "off") {
        out = 0;
        return std::nullopt;
    }
    auto value = parse_bytes(text);
    if (!value || *value < low || *value > high) return fmt::format("expected {}", valid);
    out = *value;
    return std::nullopt;
}

Apply bytes_in_range(std::size_t Settings::*field, std::size_t low, std::size_t high,
                     const char* valid, bool off_is_zero = false) {
    return [=](std::string_view text, Settings& out) {
        return bytes_within(text, low, high, valid, off_is_zero, out.*field);
    };
}

// "auto" (unset), or bytes as bytes_in_range.
Apply auto_or_bytes(std::optional<std::size_t> Settings::*field, std::size_t low,
                    std::size_t high, const char* valid, bool off_is_zero = false) {
    return [=](std::string_view text, Settings& out) -> std::optional<std::string> {
        if (text == "auto") {
            (out.*field).reset();
            return std::nullopt;
        }
        std::size_t value = 0;
        auto error = bytes_within(text, low, high, valid, off_is_zero, value);
        if (!error) out.*field = value;
        return error;
    };
}

Apply int_in_range(int Settings::*field, long low, long high) {
    return [=](std::string_view text, Settings& out) -> std::optional<std::string> {
        auto value = parse_int(text);
        if (!value || *value < low || *value > high)
            return fmt::format("expected an integer from {} to {}", low, high);
        out.*field = static_cast<int>(*value);
        return std::nullopt;
    };
}

const std::vector<Knob>& table() {
    static const std::vector<Knob> knobs = {
        {"SI_PROGRESS", "none|thread|interrupt|pef|smart|ghost", "none",
         "How messages progress while the application computes: none (only inside MPI "
         "calls), thread (one polling progress thread per rank), interrupt (one sleeping "
         "thread per rank, woken by every message that arrives for it), pef (no thread: a "
         "timer signal runs a watchdog in the application thread after a receive missed "
         "its RTS) or smart (SmartInterrupts: helper processes wake a sleeping interrupt "
         "thread when a rendezvous request arrives for a receive that asked for help) or "
         "ghost (seed 003: every point-to-point send and receive is handed to a ghost "
         "process of the node, which matches and copies while the ranks compute; one node "
         "only).",
         "progress",
         choice<ProgressMode>({{"none", ProgressMode::none},
                               {"thread", ProgressMode::thread},
                               {"interrupt", ProgressMode::interrupt},
                               {"pef", ProgressMode::pef},
                               {"smart", ProgressMode::smart},
                               {"ghost", ProgressMode::ghost}},
                              &Settings::progress)},
        {"SI_PEF_PHASE_US", "microseconds", "2",
         "SI_PROGRESS=pef: delay from a nonblocking receive that missed its RTS to the "
         "watchdog's first turn, raised to twice what arming the timer takes where that is "
         "more; every such receive restarts the sequence.",
         "progress", int_in_range(&Settings::pef_phase_us, 1, 1000000)},
        {"SI_PEF_PERIOD_US", "microseconds", "10",
         "SI_PROGRESS=pef: delay from the first turn to the second.", "progress",
         int_in_range(&Settings::pef_period_us, 1, 1000000)},
        {"SI_PEF_DECAY", "factor", "2",
         "SI_PROGRESS=pef: the delay to the next turn is multiplied by this after each "
         "turn that leaves a watched receive without its RTS (1: a fixed period).",
         "progress", int_in_range(&Settings::pef_decay, 1, 16)},
        {"SI_PEF_MAX_TURNS", "count", "16",
         "SI_PROGRESS=pef: turns after which the watchdog gives up until the next "
         "receive misses its RTS (16 turns with the defaults span about 330 ms; the delay "
         "between two turns never exceeds 1 s).",
         "progress", int_in_range(&Settings::pef_max_turns, 1, 64)},
        {"SI_BACKGROUND_ROUNDS", "on|off", "on",
         "Whether a progress or interrupt thread's pass also starts the next round of a "
         "nonblocking collective whose receive it completed, so that a whole tree advances "
         "while the application computes (beyond the thesis). off: only the application's "
         "MPI calls start rounds, as in the thesis, where a helper sees a collective's "
         "receives but not what they release.",
         "progress", choice<bool>({{"on", true}, {"off", false}}, &Settings::background_rounds)},
        {"SI_PEF_PREDICT", "on|off", "on",
         "SI_PROGRESS=pef: when this thread's recent receives were waited for within "
         "SI_PEF_PERIOD_US of being posted (it does not compute in between), the first turn "
         "comes only after a tick's worth of time (5 ms), which a virtual machine arms "
         "without reprogramming its timer. off: always SI_PEF_PHASE_US, as in the paper.",
         "progress", choice<bool>({{"on", true}, {"off", false}}, &Settings::pef_predict)},
        {"SI_PEF_SHARED_MEMORY", "wait|copy", "wait",
         "SI_PROGRESS=pef: wait: receives from ranks of the same host are not watched and a "
         "handler's pass leaves their RTSs to MPI, since the read would be a copy on the core "
         "the application computes on, as the wait's is; copy: as in the paper, the handler "
         "makes that copy.",
         "progress",
         choice<bool>({{"wait", false}, {"copy", true}}, &Settings::pef_copy_on_shared_memory)},
        {"SI_HELPERS", "count", "1",
         "SmartInterrupts helper processes per node (sirun --helpers sets it); capped at "
         "the node's rank count.",
         "progress", int_in_range(&Settings::helpers, 1, 64)},
        {"SI_GHOSTS", "count", "1",
         "SI_PROGRESS=ghost: ghost processes per node (sirun --ghosts sets it); capped at the "
         "node's rank count. Each matches the messages of the ranks it serves as receivers.",
         "progress", int_in_range(&Settings::ghosts, 1, 64)},
        {"SI_GHOST_THRESHOLD", "bytes (k suffix)", "8192",
         "SI_PROGRESS=ghost: largest message whose data the sender copies into shared memory "
         "(the send then completes at once, as an eager one); larger ones stay in the "
         "sender's memory until the ghost copies them. Each rank has 128 slots of this "
         "size.",
         "progress",
         bytes_in_range(&Settings::ghost_threshold, 0, std::size_t{1} << 20,
                        "a byte count up to 1m, for example 8192 or 8k")},
        {"SI_GHOST_CELLS", "count", "4096",
         "SI_PROGRESS=ghost: post cells per rank (64 bytes each, rounded up to a power of "
         "two). Operations that wait for a match hold at most three quarters of them until "
         "the ghost answers; more go in overflow cells, which the ghost gives back at once "
         "and answers through a completion ring, so any number may be outstanding.",
         "progress", int_in_range(&Settings::ghost_cells, 2, 65536)},
        {"SI_GHOST_MATCHING", "receiver|dup|tag", "receiver",
         "SI_PROGRESS=ghost: how a ghost keeps apart the messages of the receivers it "
         "serves. receiver: a matching queue per receiver. dup and tag: seed 003's two "
         "strategies, one queue per ghost, with the receiver folded into the communicator "
         "(dup: an internal communicator per receiver) or into the tag (tag: MPI_TAG_UB "
         "shrinks by the bits that need, and MPI_ANY_TAG is refused, as the paper's "
         "wildcard_used=none hint promises).",
         "progress",
         choice<GhostMatching>({{"receiver", GhostMatching::receiver},
                                {"dup", GhostMatching::dup},
                                {"tag", GhostMatching::tag}},
                               &Settings::ghost_matching)},
        {"SI_IRB_ENTRIES", "count", "64",
         "SmartInterrupts: the receives of a rank that may ask a helper for help at once "
         "(its interrupt request buffer; rounded up to a multiple of 64, the first rank of a "
         "node decides for the node). A nonblocking receive posted while all are taken gets "
         "none and progresses only in MPI calls (counter irb_full). A helper's scan reads "
         "every entry, so more cost every scan.",
         "progress", int_in_range(&Settings::irb_entries, 1, 4096)},
        {"SI_WAKE", "futex|kmod", "futex",
         "How a helper wakes an interrupt thread: futex on a word of the node region, or "
         "kmod (the si_wake kernel module, /dev/si_wake; without it, futex and one line on "
         "stderr).",
         "wake",
         choice<WakeBackend>({{"futex", WakeBackend::futex}, {"kmod", WakeBackend::kmod}},
                             &Settings::wake)},
        {"SI_INTERRUPT_CPU", "helper|rank|any", "helper",
         "Where a rank's interrupt thread runs when a helper wakes it: helper (on the CPU "
         "the waking helper runs on, which no computing rank holds at that moment, so that "
         "the transfer does not slow the computation), rank (the CPUs the rank is bound "
         "to, as in the thesis) or any (every CPU of the machine; the scheduler chooses). "
         "In SI_PROGRESS=interrupt, where the waker is the sending rank, helper means rank.",
         "progress",
         choice<InterruptPlacement>({{"helper", InterruptPlacement::helper},
                                     {"rank", InterruptPlacement::rank},
                                     {"any", InterruptPlacement::any}},
                                    &Settings::interrupt_placement)},
        {"SI_DIRECT_WRITE", "on|off", "on",
         "SmartInterrupts on shared memory: a sender blocked in MPI whose receiver "
         "computes with the matching receive posted writes the data into the receive buffer "
         "itself (its core is the idle one), instead of a helper waking the receiver's "
         "interrupt thread to read it. off: always the thesis' path.",
         "p2p", choice<bool>({{"on", true}, {"off", false}}, &Settings::direct_write)},
        {"SI_NONCONTIG", "streamed|packed", "streamed",
         "Rendezvous messages of non-contiguous datatypes on shared memory. streamed: the "
         "sender sends its RTS first and packs while the receiver reads what is packed, and a "
         "receive whose runs average 16 KiB or more takes the data straight into the user's "
         "memory (a vectored cross-memory read) instead of into a copy it then unpacks. "
         "packed: the sender packs everything, then the receiver reads and unpacks.",
         "p2p",
         choice<bool>({{"streamed", true}, {"packed", false}}, &Settings::stream_noncontiguous)},
        {"SI_RMA_ICB", "peers|single", "peers",
         "One-sided SmartInterrupts: which signals (a target's exposure, fence or lock grant) "
         "let a helper wake an origin that awaits one. peers: only a signal from a target the "
         "origin awaits (one flag per peer, beyond the thesis); single: any signal, as with "
         "the thesis' single ICB byte, whose futile wake-ups with several targets this shows.",
         "progress",
         choice<bool>({{"peers", true}, {"single", false}}, &Settings::rma_icb_per_peer)},
        {"SI_TRANSPORT", "auto|shm|verbs", "auto",
         "Transport between ranks: auto uses shared memory within a node and verbs (RDMA) "
         "between nodes (hosts, and the simulated nodes of SI_NODE_SIZE when the host has an "
         "RDMA device; without one they share memory); shm uses shared memory only (one "
         "host); verbs uses RDMA between all ranks, even within a node.",
         "p2p",
         choice<TransportChoice>({{"auto", TransportChoice::automatic},
                                  {"shm", TransportChoice::shm},
                                  {"verbs", TransportChoice::verbs}},
                                 &Settings::transport)},
        {"SI_EAGER_LIMIT", "auto|bytes (k/m suffix)", "auto",
         "Largest message sent eagerly; larger ones use the RDMA-Read rendezvous. auto: "
         "32k between ranks that share memory, 16k over verbs; a byte count sets both.",
         "p2p",
         auto_or_bytes(&Settings::eager_limit, 0, std::size_t{64} << 20,
                       "auto or a byte count up to 64m, for example 16384 or 64k")},
        {"SI_NODE_SIZE", "ranks", "(unset: one node per host)",
         "Groups consecutive ranks into simulated nodes of this many ranks, so that "
         "two-node experiments run on one host.",
         "bootstrap", int_in_range(&Settings::node_size, 1, 1 << 20)},
        {"SI_BIND", "auto|none", "auto",
         "auto: MPI_Init binds a rank that may run on every CPU of the machine (its "
         "launcher did not bind it) to a core of its own, local rank i to core i, when the "
         "host's ranks fit on its cores; a bound rank, or more ranks than cores, is left "
         "as it is. none: never bind.",
         "node",
         choice<Binding>({{"auto", Binding::automatic}, {"none", Binding::none}}, &Settings::bind)},
        {"SI_SHM_CELLS", "count", "64",
         "SI_PROGRESS=smart: ICB slots per pair of ranks of a host, where a message's tuple "
         "waits for helpers to see it: the most messages one rank has in flight to another "
         "on shared memory (more wait in the sender's queue, off the fast path). Other "
         "modes use no ICB and have no such limit.",
         "transport/shm", int_in_range(&Settings::shm_cells, 2, 4096)},
        {"SI_SHM_RING_BYTES", "bytes (k/m suffix)", "128k",
         "Ring each rank sends another rank of its host through: a message takes its size "
         "plus a 16-byte header, rounded up to 16 bytes (an 8-byte message 32). Raised to "
         "hold two of the largest eager messages (SI_EAGER_LIMIT).",
         "transport/shm",
         bytes_in_range(&Settings::shm_ring_bytes, std::size_t{1} << 10, std::size_t{1} << 30,
                        "a byte count from 1k to 1g, for example 131072 or 128k")},
        {"SI_SHM_SPLIT_READ_BYTES", "off|bytes (k/m suffix)", "128k",
         "A rendezvous read on shared memory of at least this many bytes is offered to the "
         "sending rank in chunks, which it copies too whenever a progress pass meets the "
         "offer (it waits for the send, say), so that both cores copy; smaller reads, and "
         "every read with off, are one copy by the reader. At least 64k.",
         "transport/shm",
         bytes_in_range(&Settings::shm_split_read_bytes, std::size_t{64} << 10,
                        std::size_t{1} << 40,
                        "off or a byte count of at least 64k, for example 128k", true)},
        {"SI_SHM_STAGING_BYTES", "auto|off|bytes (k/m suffix)", "auto",
         "Shared memory each rank of a host packs rendezvous messages of non-contiguous "
         "datatypes into, and copies the contiguous ones of its blocking sends into, for its "
         "peers to copy out with plain memory copies meanwhile; a message that does not fit "
         "the free part is packed privately, or sent from the user's memory, and read across "
         "processes. auto: 16m divided among the host's ranks, from 256k to 4m each. off: "
         "none.",
         "transport/shm",
         auto_or_bytes(&Settings::shm_staging_bytes, std::size_t{64} << 10, std::size_t{1} << 30,
                       "auto, off or a byte count from 64k to 1g, for example 4m", true)},
        {"SI_VERBS_CREDITS", "count", "32",
         "Receives the verbs transport pre-posts per peer: how many messages a peer may send "
         "before this rank returns credits; each pins one SI_EAGER_LIMIT buffer per peer on "
         "both sides.",
         "transport/verbs", int_in_range(&Settings::verbs_credits, 4, 4096)},
        {"SI_WAIT_SPIN_US", "auto|microseconds", "auto",
         "How long a blocked MPI call (MPI_Wait, MPI_Recv, ...) polls before it sleeps until "
         "a message for its rank arrives. auto: polls without limit while the host has a CPU "
         "for each of its ranks, polling progress threads, helpers and further threads waiting "
         "in MPI, and 50 us when they outnumber its CPUs, so that sleeping frees the core for "
         "the threads that can make progress; a number fixes it; -1 polls forever.",
         "p2p",
         [](std::string_view text, Settings& out) -> std::optional<std::string> {
             if (text == "auto") {
                 out.wait_spin_us = Settings::kWaitSpinAuto;
                 return std::nullopt;
             }
             if (auto why = int_in_range(&Settings::wait_spin_us, -1, 10'000'000)(text, out))
                 return "auto, or " + *why;
             return std::nullopt;
         }},
        {"SI_COLL_BARRIER", "auto|shm|dissemination|linear", "auto",
         "Barrier algorithm. auto: shm where it can run, else dissemination (ceil(log2 n) "
         "rounds); linear: every rank reports to rank 0, which releases them all. shm: "
         "through the node's shared memory, a flag and cells per rank, for blocking calls on "
         "a communicator whose ranks share a node (SI_NODE_SIZE counts), from its 3rd "
         "collective, while the data fits a cell (16 KiB, 4 KiB per rank beyond 4 ranks); "
         "elsewhere what auto picks without it.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"dissemination", Algorithm::dissemination},
                    {"linear", Algorithm::linear}},
                   &CollectiveAlgorithms::barrier)},
        {"SI_COLL_BCAST", "auto|shm|binomial|linear|scatter_allgather", "auto",
         "Broadcast algorithm. auto: shm where it can run, else binomial tree below 512 KiB "
         "or on fewer than 4 ranks, else scatter_allgather (the root scatters n pieces, a "
         "ring allgathers them: bandwidth-optimal); linear: the root sends to every rank. "
         "shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"binomial", Algorithm::binomial},
                    {"linear", Algorithm::linear},
                    {"scatter_allgather", Algorithm::scatter_allgather}},
                   &CollectiveAlgorithms::bcast)},
        {"SI_COLL_REDUCE", "auto|shm|binomial|linear", "auto",
         "Reduce algorithm. auto: shm where it can run, else binomial tree; linear: the root "
         "receives every input and combines them in rank order. shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"binomial", Algorithm::binomial},
                    {"linear", Algorithm::linear}},
                   &CollectiveAlgorithms::reduce)},
        {"SI_COLL_ALLREDUCE", "auto|shm|reduce_bcast|recursive_doubling|reduce_scatter_allgather",
         "auto",
         "Allreduce algorithm. auto: shm where it can run, else recursive_doubling below "
         "64 KiB, else reduce_scatter_allgather with a commutative operator (pairwise "
         "reduce-scatter, ring allgather) and reduce_bcast with the others (binomial reduce "
         "to rank 0, binomial broadcast). shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"reduce_bcast", Algorithm::reduce_bcast},
                    {"recursive_doubling", Algorithm::recursive_doubling},
                    {"reduce_scatter_allgather", Algorithm::reduce_scatter_allgather}},
                   &CollectiveAlgorithms::allreduce)},
        {"SI_COLL_GATHER", "auto|shm|linear|binomial", "auto",
         "Gather and gatherv algorithm. auto: shm where it can run, else binomial tree for "
         "equal blocks of up to 4 KiB on more than 2 ranks, else linear (every rank sends to "
         "the root, which receives up to 32 blocks at once). A vector form always runs "
         "linear. shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"linear", Algorithm::linear},
                    {"binomial", Algorithm::binomial}},
                   &CollectiveAlgorithms::gather)},
        {"SI_COLL_SCATTER", "auto|shm|linear|binomial", "auto",
         "Scatter and scatterv algorithm; the mirror image of SI_COLL_GATHER.", "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"linear", Algorithm::linear},
                    {"binomial", Algorithm::binomial}},
                   &CollectiveAlgorithms::scatter)},
        {"SI_COLL_ALLGATHER", "auto|shm|ring|recursive_doubling", "auto",
         "Allgather and allgatherv algorithm. auto: shm where it can run, else "
         "recursive_doubling when the ranks are a power of two and the whole result is below "
         "64 KiB, else ring. recursive_doubling on another number of ranks runs ring. "
         "shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"ring", Algorithm::ring},
                    {"recursive_doubling", Algorithm::recursive_doubling}},
                   &CollectiveAlgorithms::allgather)},
        {"SI_COLL_ALLTOALL", "auto|shm|pairwise|linear|bruck", "auto",
         "Alltoall(v,w) algorithm. auto: shm where it can run, else bruck for equal blocks "
         "of up to 256 bytes on more than 2 ranks (ceil(log2 n) rounds of combined blocks), "
         "else pairwise (n - 1 exchanges); linear: every send and receive at once. bruck "
         "runs for equal blocks only (not in place, not the v and w forms); shm for equal "
         "blocks. shm: see SI_COLL_BARRIER.",
         "coll",
         algorithm({{"shm", Algorithm::shm},
                    {"pairwise", Algorithm::pairwise},
                    {"linear", Algorithm::linear},
                    {"bruck", Algorithm::bruck}},
                   &CollectiveAlgorithms::alltoall)},
        {"SI_COLL_REDUCE_SCATTER", "auto|reduce_scatter|pairwise", "auto",
         "Reduce_scatter(_block) algorithm. auto: pairwise from 64 KiB with a commutative "
         "operator, else reduce_scatter (binomial reduce to rank 0, linear scatter). pairwise "
         "needs a commutative operator; with another it runs reduce_scatter.",
         "coll",
         algorithm(
             {{"reduce_scatter", Algorithm::reduce_scatter}, {"pairwise", Algorithm::pairwise}},
             &CollectiveAlgorithms::reduce_scatter)},
        {"SI_STATS", "1|0|path", "(unset: off)",
         "Counters at MPI_Finalize: 1 prints a summary per rank on stderr, a path writes "
         "CSV (one file per rank, the rank number appended), 0 or off: none.",
         "api",
         [](std::string_view text, Settings& out) -> std::optional<std::string> {
             // "0" is what users write for "off"; as a path it would leave files
             // named 0.<rank> in the working directory.
             out.stats = text == "0" || text == "off" ? std::string() : std::string(text);
             return std::nullopt;
         }},
        {"SI_TRACE", "path", "(unset: off)",
         "Timestamped events of the rendezvous path (RTS sent, helper match, wake-up, "
         "interrupt thread running, RDMA Read issued and done, FIN seen, waits), one CSV "
         "per rank and helper at <path>.rank<N> and <path>.helper<N>, written at "
         "MPI_Finalize; sibench draws them. At most 262144 events per process.",
         "base",
         [](std::string_view text, Settings& out) -> std::optional<std::string> {
             out.trace = std::string(text);
             return std::nullopt;
         }},
    };
    return knobs;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::span<const Knob> knobs() { return table(); }

Lookup process_environment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* value = std::getenv(std::string(name).c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
    };
}

Settings load(const Lookup& lookup) {
    Settings settings;
    for (const Knob& knob : table()) {
        auto text = lookup(knob.name);
        if (!text || text->empty()) continue;
        if (auto problem = knob.apply(*text, settings))
            fail("{}={} is not valid: {}", knob.name, *text, *problem);
    }
    return settings;
}

std::vector<std::string> environment_names() {
    std::vector<std::string> names;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        std::string_view text(*entry);
        names.emplace_back(text.substr(0, text.find('=')));
    }
    return names;
}

namespace {

// SI_* variables read by the suite's other programs, not by the runtime: the
// compiler wrappers (SI_CC, SI_CXX, SI_FC), the benchmarks (SI_BENCH_*) and the test
// scripts (SI_TEST_*).
bool belongs_to_tools(std::string_view name) {
    return name == "SI_CC" || name == "SI_CXX" || name == "SI_FC" ||
           name.starts_with("SI_BENCH_") ||
           name.starts_with("SI_TEST_");
}

}  // namespace

std::vector<std::string> unknown_variable_warnings(const std::vector<std::string>& names) {
    std::vector<std::string> warnings;
    for (const std::string& name : names) {
        if (!name.starts_with("SI_") || belongs_to_tools(name)) continue;
        const auto& knobs = table();
        if (std::any_of(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.name == name; }))
            continue;
        const Knob* nearest = &knobs.front();
        for (const Knob& knob : knobs)
            if (edit_distance(knob.name, name) < edit_distance(nearest->name, name)) nearest = &knob;
        std::string warning = fmt::format("{} is not a setting of this runtime", name);
        if (edit_distance(nearest->name, name) <= 3)
            warning += fmt::format("; did you mean {}?", nearest->name);
        warnings.push_back(std::move(warning));
    }
    return warnings;
}

std::string describe(const Settings&) {
    std::string text;
    auto lookup = process_environment();
    for (const Knob& knob : table()) {
        auto value = lookup(knob.name);
        text += fmt::format("{:<16} {:<22} default {}{}\n    {}\n", knob.name, knob.type,
                            knob.default_value,
                            value ? fmt::format(", set to {}", *value) : std::string(), knob.help);
    }
    return text;
}

}  // namespace si::config
