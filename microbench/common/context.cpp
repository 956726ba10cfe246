#include "common/context.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "common/timing.hpp"

extern char** environ;

// Both set by CMake; "unknown" when built some other way (mpicxx directly).
#ifndef SI_BENCH_BUILD_TYPE
#define SI_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef SI_BENCH_SANITIZE
#define SI_BENCH_SANITIZE "unknown"
#endif

namespace si::bench {

namespace {

std::string env_or(const char* name, std::string_view fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : std::string(fallback);
}

int env_int_or(const char* name, int fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr) return fallback;
    int parsed = 0;
    const char* end = value + std::strlen(value);
    auto [ptr, ec] = std::from_chars(value, end, parsed);
    return ec == std::errc{} && ptr == end ? parsed : fallback;
}

std::string library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    // MPICH answers with several lines (version, device, configure flags...); one
    // line keeps the context block to one entry per key.
    std::string joined;
    bool at_line_start = true;
    for (char c : std::string_view(text, static_cast<std::size_t>(length))) {
        if (c == '\n' || c == '\r') {
            at_line_start = true;
            continue;
        }
        if (at_line_start && !joined.empty()) joined += " | ";
        at_line_start = false;
        joined += c == '\t' ? ' ' : c;
    }
    while (!joined.empty() && (joined.back() == ' ' || joined.back() == '\0')) joined.pop_back();
    return joined;
}

// The one place that decides which runtime runs the benchmark: the library's
// version string, since a binary built against MPICH may run on this runtime
// through the MPICH ABI (sirun --abi mpich).
std::string runtime_name(std::string_view library) {
    if (library.starts_with("SmartInterrupts")) return "simpi";
    // MVAPICH and Intel MPI derive from MPICH and may mention it: test them first.
    if (library.find("MVAPICH") != std::string_view::npos) return "mvapich";
    if (library.find("Intel") != std::string_view::npos) return "intelmpi";
    if (library.find("MPICH") != std::string_view::npos) return "mpich";
    if (library.find("Open MPI") != std::string_view::npos) return "openmpi";
    return "unknown";
}

// Which mpi.h the benchmark was compiled against: "mpich" for a binary built
// against MPICH that runs on this runtime through its ABI, "native" otherwise.
std::string abi_of(std::string_view runtime) {
#ifdef SI_MPI
    (void)runtime;
    return "native";
#else
    return runtime == "simpi" ? "mpich" : "native";
#endif
}

std::string progression_mode(std::string_view runtime) {
    // "none" is this runtime's documented default for SI_PROGRESS.
    if (runtime == "simpi") {
        std::string mode = env_or("SI_PROGRESS", "none");
        // Seed 003's matching strategies are configurations of their own
        // (sibench's simpi-ghost-dup and simpi-ghost-tag).
        const std::string matching = env_or("SI_GHOST_MATCHING", "receiver");
        if (mode == "ghost" && matching != "receiver") mode += "-" + matching;
        return mode;
    }
    // Open MPI's only progress thread is its TCP BTL's (sibench's openmpi-async).
    const char* knob =
        runtime == "openmpi" ? "OMPI_MCA_btl_tcp_progress_thread" : "MPIR_CVAR_ASYNC_PROGRESS";
    return env_int_or(knob, 0) != 0 ? "async" : "default";
}

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) break;
        const auto start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
    }
    return "unknown";
}

std::string read_load_average() {
    std::ifstream loadavg("/proc/loadavg");
    std::string one, five, fifteen;
    if (!(loadavg >> one >> five >> fifteen)) return "unknown";
    return fmt::format("{} {} {}", one, five, fifteen);
}

int cpus_allowed() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_COUNT(&set);
}

// SI_* are this runtime's knobs; the others are the knob namespaces of the reference
// libraries and their network layers, which change the reference numbers as much.
std::vector<std::pair<std::string, std::string>> knob_environment() {
    static constexpr std::string_view prefixes[] = {"SI_", "MPIR_CVAR_", "OMPI_MCA_", "UCX_",
                                                    "FI_"};
    std::vector<std::pair<std::string, std::string>> knobs;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        std::string_view text(*entry);
        const auto equals = text.find('=');
        if (equals == std::string_view::npos) continue;
        const auto name = text.substr(0, equals);
        for (auto prefix : prefixes)
            if (name.starts_with(prefix)) {
                knobs.emplace_back(name, text.substr(equals + 1));
                break;
            }
    }
    std::sort(knobs.begin(), knobs.end());
    return knobs;
}

std::string compiler() {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

std::string utc_now() {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(now));
}

std::string processor_name() {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, static_cast<std::size_t>(length));
}

struct Layout {
    int nodes = 1;
    int ranks_per_node = 1;
};

// Real nodes: ranks that report the same processor name share a node. With uneven
// placement ranks_per_node is the fullest node.
Layout host_layout(MPI_Comm comm, int ranks, const std::string& name) {
    std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
    std::copy_n(name.begin(), std::min(name.size(), mine.size() - 1), mine.begin());
    std::vector<char> all(mine.size() * static_cast<std::size_t>(ranks));
    MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, comm);
    std::map<std::string, int> per_host;
    for (int r = 0; r < ranks; ++r) ++per_host[std::string(&all[r * mine.size()])];
    Layout layout;
    layout.nodes = static_cast<int>(per_host.size());
    for (const auto& entry : per_host)
        layout.ranks_per_node = std::max(layout.ranks_per_node, entry.second);
    return layout;
}

}  // namespace

std::string thread_level_name(int level) {
    switch (level) {
        case MPI_THREAD_SINGLE:
            return "single";
        case MPI_THREAD_FUNNELED:
            return "funneled";
        case MPI_THREAD_SERIALIZED:
            return "serialized";
        case MPI_THREAD_MULTIPLE:
            return "multiple";
        default:
            return std::to_string(level);
    }
}

Context collect_context(MPI_Comm comm, int argc, char** argv) {
    Context c;
    MPI_Comm_size(comm, &c.ranks);
    c.host = processor_name();
    c.mpi_library = library_version();
    MPI_Query_thread(&c.thread_level);
    c.clock_cost_ns = clock_cost() * 1e9;
    c.runtime = runtime_name(c.mpi_library);
    c.abi = abi_of(c.runtime);
    c.mode = progression_mode(c.runtime);
    // SmartInterrupts runs one helper per node unless SI_HELPERS says otherwise.
    c.helpers = env_int_or("SI_HELPERS", c.runtime == "simpi" && c.mode == "smart" ? 1 : 0);

    // Called on every rank even when SI_NODE_SIZE decides, so that the collective
    // is matched everywhere whatever the environment of each rank says.
    const Layout hosts = host_layout(comm, c.ranks, c.host);
    const int node_size = c.runtime == "simpi" ? env_int_or("SI_NODE_SIZE", 0) : 0;
    if (node_size > 0) {
        c.ranks_per_node = std::min(node_size, c.ranks);
        c.nodes = (c.ranks + node_size - 1) / node_size;
    } else {
        c.nodes = hosts.nodes;
        c.ranks_per_node = hosts.ranks_per_node;
    }

    c.commit = env_or("SI_BENCH_COMMIT", "unknown");
    c.date = utc_now();
    c.cpu_model = cpu_model();
    c.cpus_online = std::thread::hardware_concurrency();
    c.cpus_allowed = cpus_allowed();
    c.load_average = read_load_average();
    c.build_type = SI_BENCH_BUILD_TYPE;
    c.sanitizers = SI_BENCH_SANITIZE;
    c.compiler = compiler();
    for (int i = 0; i < argc; ++i) c.command += (i == 0 ? "" : " ") + std::string(argv[i]);
    c.environment = knob_environment();
    return c;
}

std::vector<std::pair<std::string, std::string>> Context::entries() const {
    std::vector<std::pair<std::string, std::string>> e = {
        {"date", date},
        {"host", host},
        {"cpu_model", cpu_model},
        {"cpus_online", std::to_string(cpus_online)},
        {"cpus_allowed", std::to_string(cpus_allowed)},
        {"load_average", load_average},
        {"runtime", runtime},
        {"abi", abi},
        {"mpi_library", mpi_library},
        {"thread_level", thread_level_name(thread_level)},
        {"thread_level_requested", thread_level_name(thread_level_requested)},
        {"clock_cost_ns", fmt::format("{:.1f}", clock_cost_ns)},
        {"mode", mode},
        {"helpers", std::to_string(helpers)},
        {"ranks", std::to_string(ranks)},
        {"nodes", std::to_string(nodes)},
        {"ranks_per_node", std::to_string(ranks_per_node)},
        {"commit", commit},
        {"build_type", build_type},
        {"sanitizers", sanitizers},
        {"compiler", compiler},
        {"command", command},
    };
    for (const auto& [name, value] : environment) e.emplace_back("env." + name, value);
    return e;
}

}  // namespace si::bench
