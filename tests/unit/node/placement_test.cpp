// Placement decisions on synthetic hwloc machines, and binding on this one.
#include "node/placement.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"

namespace si::node {
namespace {

using Cpus = std::vector<int>;

// Two NUMA nodes of four 2-way SMT cores: core c holds PUs 2c and 2c+1, and
// cores 0-3 sit on NUMA node 0, cores 4-7 on NUMA node 1.
CpuTopology two_numa_nodes() { return load_synthetic_topology("numa:2 core:4 pu:2"); }

TEST(PlacementTopology, SyntheticMachineIsDescribedCoreByCore) {
    const CpuTopology machine = two_numa_nodes();
    EXPECT_EQ(machine.numa_nodes, 2);
    ASSERT_EQ(machine.cores.size(), 8u);
    EXPECT_EQ(machine.cores[0].cpus, (Cpus{0, 1}));
    EXPECT_EQ(machine.cores[0].numa, 0);
    EXPECT_EQ(machine.cores[5].cpus, (Cpus{10, 11}));
    EXPECT_EQ(machine.cores[5].numa, 1);
}

TEST(PlacementTopology, BadSyntheticDescriptionThrows) {
    EXPECT_THROW(load_synthetic_topology("no such thing:3"), Error);
}

TEST(PlacementTopology, ThisMachineHasCoresCoveringTheAllowedCpus) {
    const CpuTopology machine = load_topology();
    ASSERT_FALSE(machine.cores.empty());
    for (int cpu : bound_cpus_of_this_process()) {
        const bool found = std::any_of(machine.cores.begin(), machine.cores.end(), [&](auto& core) {
            return std::find(core.cpus.begin(), core.cpus.end(), cpu) != core.cpus.end();
        });
        EXPECT_TRUE(found) << "CPU " << cpu;
    }
}

TEST(PlacementTopology, RestrictKeepsOnlyAllowedCpusAndDropsEmptyCores) {
    const Cpus allowed{3, 4, 5, 9};
    const CpuTopology part = restrict_topology(two_numa_nodes(), allowed);
    ASSERT_EQ(part.cores.size(), 3u);
    EXPECT_EQ(part.cores[0].cpus, (Cpus{3}));
    EXPECT_EQ(part.cores[1].cpus, (Cpus{4, 5}));
    EXPECT_EQ(part.cores[2].cpus, (Cpus{9}));
    EXPECT_EQ(part.cores[2].numa, 1);
}

TEST(PlacementRankCoreCpus, RankGoesToCoreModuloCores) {
    const CpuTopology machine = two_numa_nodes();
    EXPECT_EQ(rank_core_cpus(machine, 0), (Cpus{0, 1}));
    EXPECT_EQ(rank_core_cpus(machine, 7), (Cpus{14, 15}));
    EXPECT_EQ(rank_core_cpus(machine, 9), (Cpus{2, 3}));
    EXPECT_TRUE(rank_core_cpus(CpuTopology{}, 0).empty());
}

TEST(PlacementHelperCpus, TakesAFreeCoreOnTheRanksNumaNode) {
    // Ranks on cores 4 and 5 (NUMA node 1): the helper takes core 6, not core 0.
    const Cpus ranks{8, 10};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, 0, 1), (Cpus{12, 13}));
}

TEST(PlacementHelperCpus, PrefersTheNumaNodeHoldingMostRanks) {
    // One rank on NUMA node 0, three on node 1; node 0 comes first only when
    // node 1 has no free core left.
    const Cpus ranks{0, 8, 10, 12};
    const CpuTopology machine = two_numa_nodes();
    EXPECT_EQ(helper_cpus(machine, ranks, 0, 3), (Cpus{14, 15}));
    EXPECT_EQ(helper_cpus(machine, ranks, 1, 3), (Cpus{2, 3}));
    EXPECT_EQ(helper_cpus(machine, ranks, 2, 3), (Cpus{4, 5}));
}

TEST(PlacementHelperCpus, SecondThreadOfARankCoreIsNotFree) {
    // A rank bound to PU 1 occupies core 0 as a whole; its sibling PU 0 would
    // share the core's pipeline with the rank.
    const Cpus ranks{1};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, 0, 1), (Cpus{2, 3}));
}

TEST(PlacementHelperCpus, TwoHelpersGetTwoDistinctCores) {
    const Cpus ranks{0, 2};
    const CpuTopology machine = two_numa_nodes();
    const auto first = helper_cpus(machine, ranks, 0, 2);
    const auto second = helper_cpus(machine, ranks, 1, 2);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(*first, (Cpus{4, 5}));
    EXPECT_EQ(*second, (Cpus{6, 7}));
}

TEST(PlacementHelperCpus, NoBindingWhenARankIsUnbound) {
    const Cpus ranks{0, -1};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, 0, 1), std::nullopt);
}

TEST(PlacementHelperCpus, NoBindingWhenARankRunsOutsideTheTopology) {
    const Cpus ranks{0, 64};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, 0, 1), std::nullopt);
}

TEST(PlacementHelperCpus, NoBindingWhenEveryCoreOfTheRanksNumaNodeIsTaken) {
    const CpuTopology machine = load_synthetic_topology("numa:1 core:2 pu:1");
    const Cpus ranks{0, 1};
    EXPECT_EQ(helper_cpus(machine, ranks, 0, 1), std::nullopt);
    // Free cores on a NUMA node without ranks do not count either.
    const Cpus node0_full{0, 2, 4, 6};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), node0_full, 0, 1), std::nullopt);
}

TEST(PlacementHelperCpus, NoBindingForHelpersBeyondTheFreeCores) {
    const CpuTopology machine = load_synthetic_topology("numa:1 core:3 pu:1");
    const Cpus ranks{0, 1};
    EXPECT_EQ(helper_cpus(machine, ranks, 0, 2), (Cpus{2}));
    EXPECT_EQ(helper_cpus(machine, ranks, 1, 2), std::nullopt);
}

TEST(PlacementHelperCpus, RejectsAHelperIndexOutOfRange) {
    const Cpus ranks{0};
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, 1, 1), std::nullopt);
    EXPECT_EQ(helper_cpus(two_numa_nodes(), ranks, -1, 1), std::nullopt);
}

// In a thread of its own, so the test process keeps its mask.
TEST(PlacementBind, CallingThreadIsBoundToOneCpu) {
    const Cpus allowed = bound_cpus_of_this_process();
    ASSERT_FALSE(allowed.empty());
    const int target = allowed.back();
    std::string error;
    bool bound = false;
    int seen = -2;
    std::thread([&] {
        bound = bind_calling_thread({target}, &error);
        seen = single_bound_cpu();
    }).join();
    ASSERT_TRUE(bound) << error;
    EXPECT_EQ(seen, target);
    EXPECT_EQ(bound_cpus_of_this_process(), allowed);
}

TEST(PlacementBind, ImpossibleCpusAreReportedNotThrown) {
    std::string error;
    EXPECT_FALSE(bind_calling_thread({}, &error));
    EXPECT_NE(error.find("no CPUs"), std::string::npos) << error;
    EXPECT_FALSE(bind_calling_thread({-3}, &error));
    EXPECT_FALSE(bind_calling_thread({100000}, &error));
    EXPECT_NE(error.find("100000"), std::string::npos) << error;
    EXPECT_FALSE(bind_this_process({100000}, &error));
    EXPECT_NE(error.find("100000"), std::string::npos) << error;
}

// In a child process, which may rebind itself freely; exit code 0 = bound.
TEST(PlacementBind, WholeProcessIncludingOtherThreads) {
    const Cpus allowed = bound_cpus_of_this_process();
    ASSERT_FALSE(allowed.empty());
    const int target = allowed.front();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int other_thread_cpu = -2;
        std::string error;
        std::atomic<bool> bound{false};
        std::thread other([&] {
            while (!bound.load()) std::this_thread::yield();
            other_thread_cpu = single_bound_cpu();
        });
        const bool ok = bind_this_process({target}, &error);
        bound.store(true);
        other.join();
        ::_exit(ok && single_bound_cpu() == target && other_thread_cpu == target ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace si::node

namespace si::node {
namespace {

TEST(PlacementCoreCpu, MaskWithinOneCoreNamesItsFirstThread) {
    const CpuTopology topology = load_synthetic_topology("core:2 pu:2");
    const std::vector<int> core1 = topology.cores[1].cpus;
    EXPECT_EQ(core_cpu_of(topology, core1), core1.front());
    EXPECT_EQ(core_cpu_of(topology, std::vector<int>{core1.back()}), core1.front());
    const std::vector<int> spanning{topology.cores[0].cpus.front(), core1.front()};
    EXPECT_EQ(core_cpu_of(topology, spanning), -1) << "a rank free to move between cores";
    EXPECT_EQ(core_cpu_of(topology, std::vector<int>{}), -1);
}

TEST(PlacementAutomatic, UnboundRanksThatFitGetACoreEach) {
    const CpuTopology machine = two_numa_nodes();
    Cpus all(16);
    for (int cpu = 0; cpu < 16; ++cpu) all[static_cast<std::size_t>(cpu)] = cpu;
    EXPECT_EQ(automatic_rank_cpus(machine, all, 0, 8), (Cpus{0, 1}));
    EXPECT_EQ(automatic_rank_cpus(machine, all, 5, 8), (Cpus{10, 11}));
}

TEST(PlacementAutomatic, MoreRanksThanCoresStayUnbound) {
    const CpuTopology machine = two_numa_nodes();
    Cpus all(16);
    for (int cpu = 0; cpu < 16; ++cpu) all[static_cast<std::size_t>(cpu)] = cpu;
    EXPECT_EQ(automatic_rank_cpus(machine, all, 0, 9), std::nullopt);
}

TEST(PlacementAutomatic, ALaunchersBindingIsRespected) {
    const CpuTopology machine = two_numa_nodes();
    EXPECT_EQ(automatic_rank_cpus(machine, Cpus{2, 3}, 0, 2), std::nullopt);
    EXPECT_EQ(automatic_rank_cpus(machine, Cpus{0, 1, 2, 3, 4, 5, 6, 7}, 1, 2), std::nullopt);
}

TEST(PlacementAutomatic, OneCpuMachinesAreNotBound) {
    const CpuTopology machine = load_synthetic_topology("core:1 pu:1");
    EXPECT_EQ(automatic_rank_cpus(machine, Cpus{0}, 0, 1), std::nullopt);
}

// SI_WAIT_SPIN_US=auto polls only while every thread that wants a CPU has one.
TEST(PlacementSpareCpus, RanksThatFitTheMachineLeaveTheRest) {
    const CpuTopology laptop = load_synthetic_topology("core:2 pu:1");
    EXPECT_EQ(spare_cpus(laptop, Cpus{}, CpuDemand{2, 0}), 0);
    EXPECT_EQ(spare_cpus(laptop, Cpus{0, 1}, CpuDemand{1, 1}), 0);
    EXPECT_EQ(spare_cpus(laptop, Cpus{0, 1}, CpuDemand{1, 0}), 1);
}

TEST(PlacementSpareCpus, ProgressThreadsAndHelpersCount) {
    const CpuTopology laptop = load_synthetic_topology("core:2 pu:1");
    EXPECT_EQ(spare_cpus(laptop, Cpus{0, 1}, CpuDemand{4, 0}), -2);  // 2 ranks + 2 threads
    EXPECT_EQ(spare_cpus(laptop, Cpus{0, 1}, CpuDemand{2, 1}), -1);  // 2 ranks + a helper
}

TEST(PlacementSpareCpus, RanksCountAgainstTheCpusTheyWereStartedOn) {
    // `taskset -c 0 sirun -n 2`: two ranks on one CPU of a 16-CPU machine.
    EXPECT_EQ(spare_cpus(two_numa_nodes(), Cpus{0}, CpuDemand{2, 0}), -1);
    // `sirun --bind core` on 2 cores: the helpers take cores no rank uses.
    EXPECT_EQ(spare_cpus(two_numa_nodes(), Cpus{0, 1, 2, 3}, CpuDemand{4, 2}), 0);
    EXPECT_EQ(spare_cpus(two_numa_nodes(), Cpus{0, 1, 2, 3}, CpuDemand{4, 13}), -1);
}

TEST(PlacementSpareCpus, HardwareThreadsAreCpus) {
    EXPECT_EQ(spare_cpus(load_synthetic_topology("core:1 pu:2"), Cpus{}, CpuDemand{2, 0}), 0);
}

}  // namespace
}  // namespace si::node
