// The context of a run: what machine, which MPI library, which knobs. Printed
// above the table and written as `# key: value` lines at the top of the CSV, so a
// number can always be traced back to the conditions that produced it.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace si::bench {

struct Context {
    // Columns repeated on every CSV row (they identify the configuration).
    std::string runtime;  // simpi, mpich, openmpi, mvapich, intelmpi or unknown
    std::string abi;      // native, or mpich: built against MPICH, run on this runtime
    std::string mode;     // progression mode (see collect_context)
    int helpers = 0;
    int nodes = 1;
    int ranks_per_node = 1;
    std::string host;
    std::string commit;
    std::string date;  // start of the run, ISO 8601 UTC

    // Context block only.
    int ranks = 1;
    std::string cpu_model;
    unsigned cpus_online = 0;
    int cpus_allowed = 0;
    std::string load_average;              // /proc/loadavg at start: other work skews every number
    std::string mpi_library;               // MPI_Get_library_version, lines joined with " | "
    int thread_level = MPI_THREAD_SINGLE;  // MPI_Query_thread
    int thread_level_requested = MPI_THREAD_SINGLE;  // set by the Session
    double clock_cost_ns = 0;                        // one MPI_Wtime call
    std::string build_type;
    std::string sanitizers;
    std::string compiler;
    std::string command;
    std::vector<std::pair<std::string, std::string>> environment;  // sorted by name

    // Every field as key/value pairs, in the order they are printed.
    [[nodiscard]] std::vector<std::pair<std::string, std::string>> entries() const;
};

// "single", "funneled", "serialized" or "multiple" (MPI_THREAD_*), else the number.
std::string thread_level_name(int level);

// Collective over `comm` (node detection gathers processor names).
//
// mode: for this runtime, SI_PROGRESS or its default "none" (ghost-dup and
// ghost-tag: ghost with SI_GHOST_MATCHING=dup or tag); for another MPI,
// SI_PROGRESS means nothing, so "async" when MPICH's MPIR_CVAR_ASYNC_PROGRESS is on,
// else "default". nodes / ranks_per_node: for this runtime SI_NODE_SIZE when set
// (simulated nodes), else distinct processor names.
Context collect_context(MPI_Comm comm, int argc, char** argv);

}  // namespace si::bench
