// Where processes run: which CPUs ranks are bound to, where the launcher binds
// them, and which core a SmartInterrupts helper should take.
//
// The decisions work on CpuTopology, a small value built from hwloc, so that
// they can be tested on synthetic machines ("numa:2 core:4 pu:2") and hwloc
// stays out of this header. Loading a topology is set-up work and throws
// si::Error; binding returns false with a reason, because a rank or helper
// that cannot be bound still runs correctly, only slower.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace si::node {

struct CpuTopology {
    struct Core {
        int numa = 0;           // logical index of its NUMA node
        std::vector<int> cpus;  // OS indices of its PUs (hardware threads), ascending
    };
    int numa_nodes = 1;
    std::vector<Core> cores;  // in hwloc's logical order: neighbours share caches
};

// This machine, as far as the process's cgroup lets it see.
CpuTopology load_topology();
// A machine described in hwloc's synthetic syntax, e.g. "numa:2 core:4 pu:2".
CpuTopology load_synthetic_topology(const std::string& description);

// Only the CPUs in `allowed`, dropping cores left empty. The launcher uses it
// so that `taskset -c 2-3 sirun --bind core` keeps the ranks on CPUs 2-3.
CpuTopology restrict_topology(const CpuTopology& topology, std::span<const int> allowed);

// The CPUs (OS indices, ascending) the calling thread may run on; that is the
// process's mask unless a thread changed its own. Empty only if it cannot be read.
std::vector<int> bound_cpus_of_this_process();

// The one CPU the calling thread is bound to, or -1 when it may run on several.
int single_bound_cpu();

// The first PU of the core that holds every CPU in `cpus`, or -1 if they span
// several cores (or none): what helper_cpus expects of a rank bound to a core
// with several hardware threads.
int core_cpu_of(const CpuTopology& topology, std::span<const int> cpus);

// All PUs of core (rank mod cores): rank i's CPUs under `sirun --bind core`.
// Empty when the topology has no cores.
std::vector<int> rank_core_cpus(const CpuTopology& topology, int rank);

// SI_BIND=auto: the CPUs local rank `local_index` of `local_size` binds itself
// to, given the machine (as far as this process may use it) and the CPUs it
// may run on now: all PUs of core local_index, if the process may run on
// every CPU of the machine (no launcher bound it) and the ranks fit on the
// cores. Otherwise nullopt: a launcher's binding is respected, and ranks that
// outnumber the cores are left to the scheduler.
std::optional<std::vector<int>> automatic_rank_cpus(const CpuTopology& machine,
                                                    std::span<const int> allowed_now,
                                                    int local_index, int local_size);

// Where helper `helper` of `helpers` on a node should run: all PUs of a core
// that no rank is bound to, on a NUMA node that holds ranks, so the helper
// reads the ranks' shared blocks from local memory without taking their CPU.
// Free cores are ranked by how many ranks their NUMA node holds (then NUMA
// index, then core order) and helper g takes the g-th. rank_cpus holds the CPU
// each of the node's ranks is bound to (single_bound_cpu()), -1 if unbound.
// Returns nullopt (leave the helper to the scheduler) when any rank is
// unbound or bound outside the topology, since then no core is known to be
// free, and when fewer than g+1 free cores exist, since two spinning helpers
// sharing a core would slow each other down more than an unbound helper.
std::optional<std::vector<int>> helper_cpus(const CpuTopology& topology,
                                            std::span<const int> rank_cpus, int helper,
                                            int helpers);

// The threads of a host that want a CPU all the time they run: ranks and
// their polling progress threads, and helper processes.
struct CpuDemand {
    int rank_threads = 0;
    int helpers = 0;
};

// How many CPUs (hardware threads) a host has beyond them, negative when they
// outnumber its CPUs: the rank threads against the CPUs the ranks were
// launched on (`rank_cpus`, the union of their masks; empty: the machine's),
// and everyone against the machine, since helpers take CPUs no rank uses when
// there are any. The smaller of the two.
int spare_cpus(const CpuTopology& machine, std::span<const int> rank_cpus, CpuDemand demand);

// Restrict the calling thread, or every thread of the process, to `cpus`.
// On failure *error (if given) says why.
bool bind_calling_thread(const std::vector<int>& cpus, std::string* error);
bool bind_this_process(const std::vector<int>& cpus, std::string* error);
// Lets the calling thread run on every CPU of the machine, whatever the
// process is bound to (a runtime thread the scheduler may place anywhere).
void allow_calling_thread_every_cpu();

}  // namespace si::node
