#include "node/placement.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <new>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"

namespace si::node {

namespace {

struct TopologyDeleter {
    void operator()(hwloc_topology_t topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
    void operator()(hwloc_bitmap_t bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

std::size_t cpu_count(const CpuTopology& topology) {
    std::size_t count = 0;
    for (const CpuTopology::Core& core : topology.cores) count += core.cpus.size();
    return count;
}

// synthetic: hwloc's synthetic description, or nullptr for this machine.
Topology open_topology(const char* synthetic) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) fail("{}", errno_message("hwloc_topology_init", errno));
    Topology topology(raw);
    // Placement needs cores, PUs and NUMA nodes only; skipping caches makes
    // loading cheaper, and I/O devices are not loaded by default.
    hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (synthetic != nullptr && hwloc_topology_set_synthetic(raw, synthetic) != 0)
        fail("hwloc cannot parse the synthetic topology '{}'", synthetic);
    if (hwloc_topology_load(raw) != 0) fail("{}", errno_message("hwloc_topology_load", errno));
    return topology;
}

// The bits of an hwloc cpuset are the OS indices of its PUs.
std::vector<int> os_indices(hwloc_const_cpuset_t cpuset) {
    std::vector<int> cpus;
    for (int cpu = hwloc_bitmap_first(cpuset); cpu >= 0; cpu = hwloc_bitmap_next(cpuset, cpu))
        cpus.push_back(cpu);
    return cpus;
}

CpuTopology describe(hwloc_topology_t topology) {
    CpuTopology result;
    const int numa_nodes = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    result.numa_nodes = std::max(numa_nodes, 1);
    // Some virtual machines and ARM boards report PUs without cores; then
    // every PU counts as a core of its own.
    const hwloc_obj_type_t unit =
        hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    const int units = hwloc_get_nbobjs_by_type(topology, unit);
    for (int i = 0; i < units; ++i) {
        hwloc_obj_t object = hwloc_get_obj_by_type(topology, unit, static_cast<unsigned>(i));
        CpuTopology::Core core;
        core.cpus = os_indices(object->cpuset);
        if (core.cpus.empty()) continue;
        for (int n = 0; n < numa_nodes; ++n) {
            hwloc_obj_t numa =
                hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(n));
            if (hwloc_bitmap_intersects(numa->cpuset, object->cpuset)) {
                core.numa = n;
                break;
            }
        }
        result.cores.push_back(std::move(core));
    }
    return result;
}

void report(std::string* error, std::string message) {
    if (error != nullptr) *error = std::move(message);
}

// A cpu_set_t sized at run time, so that machines with more than
// CPU_SETSIZE (1024) CPUs work too.
class CpuSet {
public:
    explicit CpuSet(int capacity)
        : capacity_(capacity), bytes_(CPU_ALLOC_SIZE(capacity)), set_(CPU_ALLOC(capacity)) {
        if (set_ == nullptr) throw std::bad_alloc();
        CPU_ZERO_S(bytes_, set_.get());
    }
    int capacity() const { return capacity_; }
    std::size_t bytes() const { return bytes_; }
    cpu_set_t* get() { return set_.get(); }

private:
    struct Deleter {
        void operator()(cpu_set_t* set) const { CPU_FREE(set); }
    };
    int capacity_;
    std::size_t bytes_;
    std::unique_ptr<cpu_set_t, Deleter> set_;
};

// Checked before any system call so that a bad list is reported as such,
// not as the kernel's bare EINVAL.
bool check_cpus(const std::vector<int>& cpus, std::string* error) {
    if (cpus.empty()) {
        report(error, "no CPUs given");
        return false;
    }
    for (int cpu : cpus)
        if (cpu < 0) {
            report(error, fmt::format("{} is not a CPU number", cpu));
            return false;
        }
    return true;
}

std::string binding_failure(const std::vector<int>& cpus, int err) {
    if (err == EINVAL || err == EXDEV)
        return fmt::format(
            "cannot bind to CPUs {}: none of them is online and allowed to this process (see "
            "its cgroup's cpuset)",
            fmt::join(cpus, ","));
    return errno_message(fmt::format("binding to CPUs {}", fmt::join(cpus, ",")), err);
}

}  // namespace

CpuTopology load_topology() { return describe(open_topology(nullptr).get()); }

CpuTopology load_synthetic_topology(const std::string& description) {
    return describe(open_topology(description.c_str()).get());
}

CpuTopology restrict_topology(const CpuTopology& topology, std::span<const int> allowed) {
    CpuTopology result;
    result.numa_nodes = topology.numa_nodes;
    for (const CpuTopology::Core& core : topology.cores) {
        CpuTopology::Core kept{core.numa, {}};
        for (int cpu : core.cpus)
            if (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end())
                kept.cpus.push_back(cpu);
        if (!kept.cpus.empty()) result.cores.push_back(std::move(kept));
    }
    return result;
}

int spare_cpus(const CpuTopology& machine, std::span<const int> rank_cpus, CpuDemand demand) {
    const auto machine_cpus = static_cast<int>(cpu_count(machine));
    const int ranks_cpus = rank_cpus.empty()
                               ? machine_cpus
                               : static_cast<int>(cpu_count(restrict_topology(machine, rank_cpus)));
    return std::min(ranks_cpus - demand.rank_threads,
                    machine_cpus - demand.rank_threads - demand.helpers);
}

std::vector<int> bound_cpus_of_this_process() {
    // The kernel refuses a mask smaller than its own (EINVAL): grow until it fits.
    int capacity = static_cast<int>(std::max<long>(CPU_SETSIZE, ::sysconf(_SC_NPROCESSORS_CONF)));
    for (; capacity <= (1 << 22); capacity *= 2) {
        CpuSet set(capacity);
        if (::sched_getaffinity(0, set.bytes(), set.get()) != 0) {
            if (errno == EINVAL) continue;
            return {};
        }
        std::vector<int> cpus;
        for (int cpu = 0; cpu < set.capacity(); ++cpu)
            if (CPU_ISSET_S(cpu, set.bytes(), set.get())) cpus.push_back(cpu);
        return cpus;
    }
    return {};
}

int single_bound_cpu() {
    std::vector<int> cpus = bound_cpus_of_this_process();
    return cpus.size() == 1 ? cpus.front() : -1;
}

std::vector<int> rank_core_cpus(const CpuTopology& topology, int rank) {
    if (topology.cores.empty() || rank < 0) return {};
    return topology.cores[static_cast<std::size_t>(rank) % topology.cores.size()].cpus;
}

std::optional<std::vector<int>> automatic_rank_cpus(const CpuTopology& machine,
                                                    std::span<const int> allowed_now,
                                                    int local_index, int local_size) {
    const auto cores = static_cast<int>(machine.cores.size());
    if (local_index < 0 || local_size > cores || local_index >= local_size) return std::nullopt;
    std::size_t machine_cpus = 0;
    for (const CpuTopology::Core& core : machine.cores) {
        machine_cpus += core.cpus.size();
        for (int cpu : core.cpus)
            if (std::find(allowed_now.begin(), allowed_now.end(), cpu) == allowed_now.end())
                return std::nullopt;  // bound by someone already
    }
    if (machine_cpus < 2) return std::nullopt;
    return rank_core_cpus(machine, local_index);
}

std::optional<std::vector<int>> helper_cpus(const CpuTopology& topology,
                                            std::span<const int> rank_cpus, int helper,
                                            int helpers) {
    if (helpers < 1 || helper < 0 || helper >= helpers) return std::nullopt;
    const std::vector<CpuTopology::Core>& cores = topology.cores;
    std::vector<bool> taken(cores.size(), false);
    std::map<int, int> ranks_on_numa;
    for (int cpu : rank_cpus) {
        if (cpu < 0) return std::nullopt;
        auto holds = [cpu](const CpuTopology::Core& core) {
            return std::find(core.cpus.begin(), core.cpus.end(), cpu) != core.cpus.end();
        };
        auto core = std::find_if(cores.begin(), cores.end(), holds);
        if (core == cores.end()) return std::nullopt;
        taken[static_cast<std::size_t>(core - cores.begin())] = true;
        ++ranks_on_numa[core->numa];
    }
    std::vector<std::size_t> free_cores;
    for (std::size_t c = 0; c < cores.size(); ++c)
        if (!taken[c] && ranks_on_numa.contains(cores[c].numa)) free_cores.push_back(c);
    // Stable, so that within a NUMA node helpers fill cores in hwloc's order.
    std::stable_sort(free_cores.begin(), free_cores.end(), [&](std::size_t a, std::size_t b) {
        const int ranks_a = ranks_on_numa[cores[a].numa];
        const int ranks_b = ranks_on_numa[cores[b].numa];
        if (ranks_a != ranks_b) return ranks_a > ranks_b;
        return cores[a].numa < cores[b].numa;
    });
    if (static_cast<std::size_t>(helper) >= free_cores.size()) return std::nullopt;
    return cores[free_cores[static_cast<std::size_t>(helper)]].cpus;
}

bool bind_calling_thread(const std::vector<int>& cpus, std::string* error) {
    if (!check_cpus(cpus, error)) return false;
    CpuSet set(*std::max_element(cpus.begin(), cpus.end()) + 1);
    for (int cpu : cpus) CPU_SET_S(cpu, set.bytes(), set.get());
    // sched_setaffinity with id 0 binds the calling thread only, and needs no
    // topology, which keeps this cheap enough for a thread's start.
    if (::sched_setaffinity(0, set.bytes(), set.get()) != 0) {
        report(error, binding_failure(cpus, errno));
        return false;
    }
    return true;
}

bool bind_this_process(const std::vector<int>& cpus, std::string* error) {
    if (!check_cpus(cpus, error)) return false;
    // hwloc walks every thread of the process (sched_setaffinity alone would
    // move only the caller), retrying when threads appear meanwhile.
    Topology topology;
    try {
        topology = open_topology(nullptr);
    } catch (const Error& failure) {
        report(error, failure.what());
        return false;
    }
    Bitmap set(hwloc_bitmap_alloc());
    if (!set) {
        report(error, "out of memory");
        return false;
    }
    for (int cpu : cpus) hwloc_bitmap_set(set.get(), static_cast<unsigned>(cpu));
    if (hwloc_set_cpubind(topology.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
        report(error, binding_failure(cpus, errno));
        return false;
    }
    return true;
}

int core_cpu_of(const CpuTopology& topology, std::span<const int> cpus) {
    if (cpus.empty()) return -1;
    for (const CpuTopology::Core& core : topology.cores) {
        const bool holds_all = std::all_of(cpus.begin(), cpus.end(), [&](int cpu) {
            return std::find(core.cpus.begin(), core.cpus.end(), cpu) != core.cpus.end();
        });
        if (holds_all) return core.cpus.front();
    }
    return -1;
}

void allow_calling_thread_every_cpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    for (long cpu = 0; cpu < cpus && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &set);
    ::sched_setaffinity(0, sizeof set, &set);  // this thread only (tid 0 = caller)
}

}  // namespace si::node
