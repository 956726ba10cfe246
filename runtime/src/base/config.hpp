// Every SI_* environment knob, declared once in one table (config.cpp),
// parsed once at MPI_Init into an immutable Settings, listed by `sirun --info`
// and documented in the README (a test checks the README against the table).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace si::config {

enum class ProgressMode { none, thread, interrupt, pef, smart, ghost };
enum class WakeBackend { futex, kmod };
enum class InterruptPlacement { helper, rank, any };
enum class TransportChoice { automatic, shm, verbs };
enum class Binding { automatic, none };
// SI_GHOST_MATCHING (progress/ghost.hpp): how a ghost that serves several
// receivers keeps their messages apart.
enum class GhostMatching : unsigned char { receiver, dup, tag };

// Collective algorithms (coll/select.cpp). automatic: the default table, by
// message size and number of ranks; anything else: that algorithm for every
// call of the collective, if it has it (SI_COLL_<NAME>).
enum class Algorithm : unsigned char {
    automatic,
    linear,
    binomial,
    dissemination,
    recursive_doubling,
    ring,
    pairwise,
    bruck,
    scatter_allgather,
    reduce_bcast,
    reduce_scatter_allgather,
    reduce_scatter,
    shm,  // the node's shared memory (coll/node_collectives.hpp)
};
struct CollectiveAlgorithms {
    Algorithm barrier = Algorithm::automatic;
    Algorithm bcast = Algorithm::automatic;
    Algorithm reduce = Algorithm::automatic;
    Algorithm allreduce = Algorithm::automatic;
    Algorithm gather = Algorithm::automatic;
    Algorithm scatter = Algorithm::automatic;
    Algorithm allgather = Algorithm::automatic;
    Algorithm alltoall = Algorithm::automatic;
    Algorithm reduce_scatter = Algorithm::automatic;
};

struct Settings {
    ProgressMode progress = ProgressMode::none;
    TransportChoice transport = TransportChoice::automatic;
    // Largest eager message; unset: each transport's own (below).
    std::optional<std::size_t> eager_limit;
    // Shared memory sends up to 32 KiB eagerly: a message the receiver has
    // posted for is one copy straight into its buffer, and a ring of the
    // default size holds two of them. Over verbs every credit pins a buffer
    // of the eager size per peer on both sides, so 16 KiB keeps that cost.
    static constexpr std::size_t kShmEagerLimit = std::size_t{32} << 10;
    static constexpr std::size_t kVerbsEagerLimit = std::size_t{16} << 10;
    std::size_t shm_eager_limit() const { return eager_limit.value_or(kShmEagerLimit); }
    std::size_t verbs_eager_limit() const { return eager_limit.value_or(kVerbsEagerLimit); }
    // Ranks per simulated node; 0 means one node per host.
    int node_size = 0;
    // Whether MPI_Init binds a rank that its launcher left unbound.
    Binding bind = Binding::automatic;
    // ICB slots per pair of ranks of a host (SmartInterrupts), and the bytes
    // of each pair's ring in the shared-memory transport.
    int shm_cells = 64;
    std::size_t shm_ring_bytes = std::size_t{128} * 1024;
    std::size_t shm_split_read_bytes = std::size_t{128} * 1024;  // 0: never split
    // Each rank's staging area on shared memory (transport/shm/staging.hpp):
    // unset is auto, 16 MiB shared by the host's ranks, 256 KiB to 4 MiB
    // each; 0: none.
    std::optional<std::size_t> shm_staging_bytes;
    std::size_t shm_staging_bytes_for(int local_size) const {
        const std::size_t share = (std::size_t{16} << 20) / static_cast<std::size_t>(local_size);
        return shm_staging_bytes.value_or(
            std::clamp(share, std::size_t{256} << 10, std::size_t{4} << 20));
    }
    // Receives the verbs transport pre-posts per peer (the peer's credits).
    int verbs_credits = 32;
    // SmartInterrupts: helper processes per node, how they wake interrupt
    // threads, and where interrupt threads run.
    int helpers = 1;
    int irb_entries = 64;
    // SI_PROGRESS=ghost (progress/ghost.hpp): ghost processes per node, the
    // largest message whose data travels inside its post cell, and the post
    // cells of each rank.
    int ghosts = 1;
    std::size_t ghost_threshold = 8192;
    int ghost_cells = 4096;
    GhostMatching ghost_matching = GhostMatching::receiver;
    WakeBackend wake = WakeBackend::futex;
    InterruptPlacement interrupt_placement = InterruptPlacement::helper;
    // SI_PROGRESS=pef: the watchdog's turns after a receive missed its RTS
    // (progress/pef.hpp).
    int pef_phase_us = 2;
    int pef_period_us = 10;
    int pef_decay = 2;
    int pef_max_turns = 16;
    bool pef_predict = true;
    // SI_PEF_SHARED_MEMORY=copy: the paper's handler also reads on shared
    // memory, a copy on the interrupted core; wait (default): leaves it to MPI.
    bool pef_copy_on_shared_memory = false;
    bool background_rounds = true;
    // SmartInterrupts on shared memory: a sender blocked in MPI writes a
    // posted receive's data itself (p2p/direct.cpp).
    bool direct_write = true;
    // Non-contiguous rendezvous stream (p2p/segments.hpp): the sender packs
    // while the receiver reads, into the user's memory if the runs are long.
    bool stream_noncontiguous = true;
    // One-sided SmartInterrupts: a helper wakes a rank only for a signal from
    // a peer it awaits (false: any signal, the thesis' single ICB byte).
    bool rma_icb_per_peer = true;
    // How long a blocked MPI call polls before it sleeps until a message
    // arrives; negative: it never sleeps; kWaitSpinAuto: MPI_Init decides
    // from the host's CPUs and threads (api/runtime.cpp).
    static constexpr int kWaitSpinAuto = -2;
    int wait_spin_us = kWaitSpinAuto;
    CollectiveAlgorithms algorithms;
    // Empty: no counters; "1": summary on stderr; anything else: CSV path.
    std::string stats;
    // Empty: no trace; otherwise the path prefix of the event files (base/trace.hpp).
    std::string trace;
};

struct Knob {
    std::string_view name;
    std::string_view type;  // what the value looks like, for help text
    std::string_view default_value;
    std::string_view help;
    std::string_view owner;  // layer that reads it
    // Parses text into the field; returns an error message naming valid values.
    std::function<std::optional<std::string>(std::string_view text, Settings& out)> apply;
};

std::span<const Knob> knobs();

// Looks variables up by name; the real environment by default.
using Lookup = std::function<std::optional<std::string>(std::string_view name)>;
Lookup process_environment();

// Parses every knob; throws si::Error naming the variable, its value and what
// would be valid.
Settings load(const Lookup& lookup);

// Warnings for SI_* variables that are not knobs, with a near-match suggestion.
std::vector<std::string> unknown_variable_warnings(const std::vector<std::string>& names);
std::vector<std::string> environment_names();

// The table as text (for `sirun --info`).
std::string describe(const Settings& current);

}  // namespace si::config
