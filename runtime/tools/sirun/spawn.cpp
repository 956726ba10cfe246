#include "sirun/spawn.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"

extern char** environ;

namespace si::sirun {

namespace {

std::string_view name_of(std::string_view assignment) {
    return assignment.substr(0, assignment.find('='));
}

bool belongs_to_outer_launcher(std::string_view name) {
    return name.starts_with("PMI_") || name.starts_with("PMIX_") || name == "HYDI_CONTROL_FD" ||
           name == "MPI_LOCALNRANKS" || name == "MPI_LOCALRANKID";
}

void set_variable(std::vector<std::string>& environment, std::string assignment) {
    std::string_view name = name_of(assignment);
    for (std::string& entry : environment)
        if (name_of(entry) == name) {
            entry = std::move(assignment);
            return;
        }
    environment.push_back(std::move(assignment));
}

struct CpuSetDeleter {
    void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

// Sized to the largest CPU, so machines beyond CPU_SETSIZE work too.
// Null when the rank stays unbound.
std::unique_ptr<cpu_set_t, CpuSetDeleter> cpu_set_of(const std::vector<int>& cpus,
                                                     std::size_t* bytes) {
    if (cpus.empty()) return nullptr;
    int highest = 0;
    for (int cpu : cpus) highest = std::max(highest, cpu);
    std::unique_ptr<cpu_set_t, CpuSetDeleter> set(CPU_ALLOC(highest + 1));
    if (!set) throw std::bad_alloc();
    *bytes = CPU_ALLOC_SIZE(highest + 1);
    CPU_ZERO_S(*bytes, set.get());
    for (int cpu : cpus)
        if (cpu >= 0) CPU_SET_S(cpu, *bytes, set.get());
    return set;
}

}  // namespace

std::string resolve_program(const std::string& name) {
    if (name.empty()) fail("the program name is empty");
    auto check = [&](const std::string& path) -> std::optional<std::string> {
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0) return fmt::format("{} does not exist", path);
        if (S_ISDIR(info.st_mode)) return fmt::format("{} is a directory", path);
        if (::access(path.c_str(), X_OK) != 0)
            return fmt::format("{} is not executable (check its permissions)", path);
        return std::nullopt;
    };
    if (name.find('/') != std::string::npos) {
        if (auto problem = check(name)) fail("cannot run '{}': {}", name, *problem);
        return name;
    }
    const char* path_env = std::getenv("PATH");
    std::string search = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    std::optional<std::string> first_problem;
    std::size_t start = 0;
    for (;;) {
        std::size_t colon = search.find(':', start);
        std::string dir = search.substr(start, colon == std::string::npos ? colon : colon - start);
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        auto problem = check(candidate);
        if (!problem) return candidate;
        struct stat info {};
        if (!first_problem && ::stat(candidate.c_str(), &info) == 0) first_problem = problem;
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    if (first_problem) fail("cannot run '{}': {}", name, *first_problem);
    fail("cannot run '{}': not found in PATH; give a path such as ./{}", name, name);
}

std::vector<std::string> shared_environment(const JobOptions& options) {
    std::vector<std::string> environment;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        if (!belongs_to_outer_launcher(name_of(*entry))) environment.emplace_back(*entry);
    if (options.helpers >= 0) set_variable(environment, fmt::format("SI_HELPERS={}", options.helpers));
    if (options.ghosts >= 0) set_variable(environment, fmt::format("SI_GHOSTS={}", options.ghosts));
    for (const std::string& assignment : options.env) set_variable(environment, assignment);
    return environment;
}

SpawnedRank spawn_rank(const SpawnRequest& request) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return {-1, -1, "socketpair"};
    const int ours = pair[0];
    const int theirs = pair[1];
    const int size = request.options->ranks;

    // Everything the child needs is built before fork(), so the child only
    // makes system calls between fork() and exec().
    std::vector<std::string> environment = *request.environment;
    set_variable(environment, fmt::format("PMI_FD={}", theirs));
    set_variable(environment, fmt::format("PMI_RANK={}", request.rank));
    set_variable(environment, fmt::format("PMI_SIZE={}", size));
    set_variable(environment, fmt::format("MPI_LOCALNRANKS={}", size));
    set_variable(environment, fmt::format("MPI_LOCALRANKID={}", request.rank));
    std::vector<char*> envp;
    for (std::string& entry : environment) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = request.options->argv;
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const std::string exec_failed =
        fmt::format("sirun: rank {}: cannot execute {}: ", request.rank, request.options->program_path);
    static const std::vector<int> kUnbound;
    const auto index = static_cast<std::size_t>(request.rank);
    const std::vector<int>& cpus =
        index < request.options->rank_cpus.size() ? request.options->rank_cpus[index] : kUnbound;
    std::size_t cpu_set_bytes = 0;
    auto cpu_set = cpu_set_of(cpus, &cpu_set_bytes);
    const std::string bind_failed =
        fmt::format("sirun: rank {}: cannot bind to CPUs {}: ", request.rank, fmt::join(cpus, ","));
    const pid_t parent = ::getpid();

    pid_t pid = ::fork();
    if (pid < 0) {
        int saved = errno;
        ::close(ours);
        ::close(theirs);
        errno = saved;
        return {-1, -1, "fork"};
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        // If sirun is killed outright (SIGKILL), nothing else would end the ranks.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        ::sigprocmask(SIG_SETMASK, &request.child_mask, nullptr);
        if (request.stdin_fd != STDIN_FILENO) ::dup2(request.stdin_fd, STDIN_FILENO);
        // Before exec, so the program (and every thread it starts) begins on
        // its CPUs; the child has one thread, so this binds the whole rank.
        if (cpu_set && ::sched_setaffinity(0, cpu_set_bytes, cpu_set.get()) != 0) {
            int err = errno;
            std::string message = bind_failed + std::strerror(err) + "\n";
            ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
            (void)ignored;
            ::_exit(127);
        }
        ::fcntl(theirs, F_SETFD, 0);  // the one descriptor that must survive exec
        ::execve(request.options->program_path.c_str(), argv.data(), envp.data());
        int err = errno;
        std::string message = exec_failed + std::strerror(err) + "\n";
        ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
        (void)ignored;
        ::_exit(127);
    }
    // Also set from this side, so the group exists before sirun signals it.
    ::setpgid(pid, pid);
    ::close(theirs);
    ::fcntl(ours, F_SETFL, ::fcntl(ours, F_GETFL) | O_NONBLOCK);
    return {pid, ours};
}

}  // namespace si::sirun
