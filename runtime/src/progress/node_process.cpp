#include "progress/node_process.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <exception>
#include <thread>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "node/placement.hpp"

namespace si::progress {

namespace {

void bind_to(const NodeProcess& process) {
    if (process.cpus.empty()) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : process.cpus) CPU_SET(cpu, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0)
        log::warn("{}: could not bind to its CPUs; running unbound", process.name);
}

}  // namespace

int fork_node_process(const NodeProcess& process, const std::function<void()>& body) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) fail("cannot start a {} process (fork failed)", process.name);
    if (pid > 0) return pid;

    // A copy of the rank that forked it, at MPI_Init, before any runtime
    // thread exists. It must not outlive that rank, and it must not run the
    // rank's signal handlers or exit handlers.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);
    ::prctl(PR_SET_NAME, process.name);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP})
        std::signal(signal, SIG_DFL);
    bind_to(process);
    if (process.idle_priority) {
        sched_param unused{};
        if (::sched_setscheduler(0, SCHED_IDLE, &unused) != 0)
            log::warn("{}: cannot switch to SCHED_IDLE; it competes with ranks", process.name);
    }
    trace::restart_as(process.trace_name);
    trace::set_thread_role(trace::Thread::helper);
    try {
        body();
    } catch (const std::exception& error) {
        // Never unwind into the rank's code we were forked from; the ranks
        // notice that the process died.
        log::error("{}: {}", process.name, error.what());
        ::_exit(1);
    }
    trace::finish();
    ::_exit(0);
}

bool node_process_exited(int pid, int& pidfd) {
    if (pidfd < 0) {
        if (pid <= 0) return false;
        pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
        // No such process: it died and its parent (a rank) already reaped it.
        if (pidfd < 0) return errno == ESRCH;
    }
    pollfd exited{pidfd, POLLIN, 0};
    return ::poll(&exited, 1, 0) == 1;
}

void reap_node_process(const char* name, int& pid, std::chrono::steady_clock::time_point deadline) {
    if (pid <= 0) return;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            log::warn("{} (pid {}) did not stop; killing it", name, pid);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    pid = -pid;
}

std::vector<ProcessPlacement> place_node_processes(const node::Region& region, int count) {
    std::vector<int> host_cpus;
    std::vector<std::vector<int>> rank_cpus;
    for (int member = 0; member < region.local_size(); ++member) {
        const cpu_set_t& mask = region.rank_block(member).affinity;
        std::vector<int> cpus;
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &mask)) cpus.push_back(cpu);
        host_cpus.insert(host_cpus.end(), cpus.begin(), cpus.end());
        rank_cpus.push_back(std::move(cpus));
    }
    std::sort(host_cpus.begin(), host_cpus.end());
    host_cpus.erase(std::unique(host_cpus.begin(), host_cpus.end()), host_cpus.end());
    std::vector<ProcessPlacement> placement(static_cast<std::size_t>(count),
                                            ProcessPlacement{host_cpus, true});
    node::CpuTopology topology;
    try {
        topology = node::load_topology();
    } catch (const std::exception& error) {
        log::warn("no CPU topology ({}); helper and ghost processes share the ranks' cores",
                  error.what());
        return placement;
    }
    std::vector<int> rank_core;
    rank_core.reserve(rank_cpus.size());
    for (const std::vector<int>& cpus : rank_cpus)
        rank_core.push_back(node::core_cpu_of(topology, cpus));
    for (int g = 0; g < count; ++g)
        if (auto own = node::helper_cpus(topology, rank_core, g, count))
            placement[static_cast<std::size_t>(g)] = ProcessPlacement{std::move(*own), false};
    return placement;
}

std::uint64_t process_cpu_ns() {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace si::progress
