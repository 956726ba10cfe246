// sirun: starts an MPI job of N ranks on this host and serves them PMI-1.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/config.hpp"
#include "base/error.hpp"
#include "node/placement.hpp"
#include "sirun/job.hpp"
#include "sirun/needed.hpp"

namespace {

constexpr int kUsageError = 2;
constexpr int kCannotRun = 127;

std::string describe_knobs() {
    si::config::Settings current;
    try {
        current = si::config::load(si::config::process_environment());
    } catch (const si::Error& error) {
        // Still list the knobs; the bad value shows in the listing.
        std::fprintf(stderr, "sirun: warning: %s\n", error.what());
    }
    return si::config::describe(current);
}

// Rank i -> all PUs of core (i mod cores), counting only the cores sirun
// itself may use, so that a sirun started under taskset keeps its ranks there.
std::vector<std::vector<int>> core_binding(int ranks) {
    si::node::CpuTopology machine = si::node::load_topology();
    const std::vector<int> allowed = si::node::bound_cpus_of_this_process();
    if (!allowed.empty()) machine = si::node::restrict_topology(machine, allowed);
    if (machine.cores.empty()) si::fail("hwloc found no core this process may run on");
    std::vector<std::vector<int>> cpus;
    for (int r = 0; r < ranks; ++r) cpus.push_back(si::node::rank_core_cpus(machine, r));
    return cpus;
}

// The folder that holds this runtime's library under another ABI's name
// (lib/mpich-abi: libmpich.so.12, libmpi.so.12; lib/standard-abi:
// libmpi_abi.so.1), beside the library folder next to this sirun's own: a
// program built for that ABI finds it there first.
std::filesystem::path abi_folder(const std::string& abi) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) si::fail("cannot tell where sirun is (/proc/self/exe: {})", error.message());
    return self.parent_path().parent_path() / "lib" / (abi + "-abi");
}

// LD_LIBRARY_PATH for the ranks with `folder` first.
std::string library_path_with(const std::filesystem::path& folder) {
    const char* current = std::getenv("LD_LIBRARY_PATH");
    std::string value = "LD_LIBRARY_PATH=" + folder.string();
    if (current != nullptr && *current != '\0') value += std::string(":") + current;
    return value;
}

// Names, before the job starts, the MPI functions an MPICH-built program refers
// to that this runtime lacks. Many programs refer to calls they make only on
// request (OSU 7.4 built against MPICH 4 to the MPI-4 session calls), so the
// job still runs; LD_BIND_NOW=1 in sirun's environment makes the loader stop
// every rank at start instead.
void warn_missing_functions(const std::string& name, const std::string& program,
                            const std::string& library) {
    const std::vector<std::string> missing = si::sirun::missing_mpi_functions(program, library);
    if (missing.empty()) return;
    constexpr std::size_t kShown = 8;
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < kShown; ++i)
        list += (i == 0 ? "" : ", ") + missing[i];
    if (missing.size() > kShown) list += fmt::format(" and {} more", missing.size() - kShown);
    std::fprintf(stderr,
                 "sirun: warning: %s refers to %zu MPI function(s) this runtime lacks: %s; a rank "
                 "that calls one stops with 'undefined symbol' (LD_BIND_NOW=1 stops every rank "
                 "at start instead)\n",
                 name.c_str(), missing.size(), list.c_str());
    if (const std::string hint = si::sirun::missing_hint(missing); !hint.empty())
        std::fprintf(stderr, "sirun: warning: %s: %s\n", name.c_str(), hint.c_str());
}

int run(int argc, char** argv) {
    CLI::App app{"Starts an MPI job of N ranks on this host: sirun -n N [options] program [args...]",
                 "sirun"};
    // Everything from the program name on belongs to the program.
    app.prefix_command();
    int ranks = 0;
    int helpers = -1;
    int ghosts = -1;
    double timeout = 0;
    std::vector<std::string> env;
    std::string bind = "none";
    std::string abi = "native";
    std::string abi_library;  // --abi mpich|standard: the library the program will get
    bool info = false;
    app.add_option("-n,--np", ranks, "Number of ranks (at least 1)");
    app.add_option("--helpers", helpers, "Helper processes per node (sets SI_HELPERS for the ranks)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--ghosts", ghosts,
                   "Ghost processes per node for SI_PROGRESS=ghost (sets SI_GHOSTS for the ranks)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--timeout", timeout,
                   "End the job after this many seconds (exit status 124); 0: no limit")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--bind", bind,
                   "core: bind rank i to all hardware threads of core (i mod cores); "
                   "none: leave the ranks' CPUs to the OS")
        ->check(CLI::IsMember({"core", "none"}))
        ->capture_default_str();
    app.add_option("--abi", abi,
                   "mpich: run a program built by MPICH's compilers (linked against "
                   "libmpich.so.12 or libmpi.so.12) on this runtime, by putting its "
                   "lib/mpich-abi folder first in the ranks' LD_LIBRARY_PATH, after naming "
                   "the MPI functions the program refers to that this runtime lacks; "
                   "standard: the same for a program built for the MPI standard ABI "
                   "(libmpi_abi.so.1, lib/standard-abi); "
                   "native: leave LD_LIBRARY_PATH alone")
        ->check(CLI::IsMember({"native", "mpich", "standard"}))
        ->capture_default_str();
    app.add_option("--env", env, "Set K=V in the ranks' environment (repeatable)")
        ->allow_extra_args(false)
        ->take_all();
    app.add_flag("--info", info, "List every SI_* setting of the runtime and exit");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        int code = app.exit(error);
        return code == 0 ? 0 : kUsageError;
    }
    if (info) {
        std::fputs(describe_knobs().c_str(), stdout);
        return 0;
    }
    std::vector<std::string> command = app.remaining();
    if (!command.empty() && command.front() == "--") {
        command.erase(command.begin());
    } else if (!command.empty() && command.front().starts_with("-")) {
        // prefix_command() hands over unknown options as if they were the program.
        std::fprintf(stderr, "sirun: unknown option '%s' (see sirun --help)\n",
                     command.front().c_str());
        return kUsageError;
    }
    if (app.count("-n") == 0) {
        std::fprintf(stderr, "sirun: -n is missing: say how many ranks to start, e.g. "
                             "sirun -n 4 ./program\n");
        return kUsageError;
    }
    if (ranks < 1) {
        std::fprintf(stderr, "sirun: -n %d: the job needs at least 1 rank\n", ranks);
        return kUsageError;
    }
    if (command.empty()) {
        std::fprintf(stderr, "sirun: no program given: sirun -n %d ./program [args...]\n", ranks);
        return kUsageError;
    }
    for (const std::string& assignment : env)
        if (assignment.find('=') == std::string::npos || assignment.front() == '=') {
            std::fprintf(stderr, "sirun: --env '%s' is not of the form NAME=VALUE\n",
                         assignment.c_str());
            return kUsageError;
        }

    si::sirun::JobOptions options;
    options.ranks = ranks;
    options.helpers = helpers;
    options.ghosts = ghosts;
    // Longer than any job, and short enough for the clock arithmetic.
    constexpr double kLongestTimeout = 1e8;
    options.timeout_seconds = std::min(timeout, kLongestTimeout);
    if (abi != "native") {
        const bool mpich = abi == "mpich";
        const char* library = mpich ? "libmpich.so.12" : "libmpi_abi.so.1";
        try {
            const std::filesystem::path folder = abi_folder(abi);
            if (!std::filesystem::exists(folder / library))
                si::fail("{} has no {} (build the {} target)", folder.string(), library,
                         mpich ? "simpi" : "mpi_abi");
            // First, so that a --env LD_LIBRARY_PATH=... still wins.
            env.insert(env.begin(), library_path_with(folder));
            abi_library = (folder / library).string();
        } catch (const si::Error& error) {
            std::fprintf(stderr, "sirun: --abi %s: %s\n", abi.c_str(), error.what());
            return kCannotRun;
        }
    }
    options.env = std::move(env);
    options.argv = command;
    if (bind == "core") {
        try {
            options.rank_cpus = core_binding(ranks);
        } catch (const si::Error& error) {
            std::fprintf(stderr, "sirun: --bind core: %s\n", error.what());
            return 1;
        }
    }
    try {
        options.program_path = si::sirun::resolve_program(command.front());
    } catch (const si::Error& error) {
        std::fprintf(stderr, "sirun: %s\n", error.what());
        return kCannotRun;
    }
    // A program of another MPI's ABI would start N unconnected singletons.
    try {
        const std::string mismatch =
            si::sirun::abi_mismatch(si::sirun::needed_libraries(options.program_path));
        if (!mismatch.empty()) {
            std::fprintf(stderr, "sirun: %s is linked against %s\n", command.front().c_str(),
                         mismatch.c_str());
            return kCannotRun;
        }
        if (!abi_library.empty())
            warn_missing_functions(command.front(), options.program_path, abi_library);
    } catch (const si::Error& error) {
        std::fprintf(stderr, "sirun: %s\n", error.what());
        return kCannotRun;
    }
    si::sirun::JobResult result;
    try {
        result = si::sirun::run_job(options);
    } catch (const si::Error& error) {
        std::fprintf(stderr, "sirun: cannot start the job: %s\n", error.what());
        return 1;
    }
    if (result.signal != 0 && result.signal != SIGQUIT) {
        // Die of the same signal, so a shell or script sees how sirun ended
        // (not for SIGQUIT, whose default action writes a core file).
        std::fflush(stdout);
        ::signal(result.signal, SIG_DFL);
        ::raise(result.signal);
    }
    return result.exit_code;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
