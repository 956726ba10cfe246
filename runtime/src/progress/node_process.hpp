// The processes a node's first rank forks at MPI_Init to serve the node's
// ranks: SmartInterrupts' helpers (helper.hpp) and ghosts (ghost.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "node/region.hpp"

namespace si::progress {

struct NodeProcess {
    const char* name = "";   // its process name (prctl), also in its messages
    std::string trace_name;  // its SI_TRACE file's suffix
    std::vector<int> cpus;   // where to run; empty: where the rank runs
    // SCHED_IDLE: it runs only on a CPU nothing else wants.
    bool idle_priority = false;
};

// Forks a process that runs `body` and exits; it dies with its parent
// (PR_SET_PDEATHSIG) and runs none of the rank's signal or exit handlers.
// An exception from `body` is logged and exits with status 1. Returns the
// child's pid.
int fork_node_process(const NodeProcess& process, const std::function<void()>& body);

// Where `count` processes of a node run: a core no rank of the host uses,
// next to the node's ranks, when every rank of the host is bound to one core
// (every rank counts, not only the node's: simulated nodes share the host's
// cores); otherwise the CPUs of all the host's ranks, shared with them (a
// process forked from a bound rank would otherwise stay on that rank's core).
struct ProcessPlacement {
    std::vector<int> cpus;
    bool shares_cores = true;
};
std::vector<ProcessPlacement> place_node_processes(const node::Region& region, int count);

// Whether node process `pid` (0: not forked yet) has exited. `pidfd` keeps
// the pidfd it watches through (-1 until opened; the caller closes it).
bool node_process_exited(int pid, int& pidfd);

// Waits for the node process `pid` (asked to stop; `name` for messages) to exit, until
// `deadline`, then kills it; reaps it either way and negates `pid` (a pid
// already negated or 0 is left alone).
void reap_node_process(const char* name, int& pid, std::chrono::steady_clock::time_point deadline);

// The calling process's CPU time.
std::uint64_t process_cpu_ns();

}  // namespace si::progress
