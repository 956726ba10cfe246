#include "machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "process.hpp"
#include "units.hpp"

#ifndef SI_HARNESS_SOURCE_DIR
#define SI_HARNESS_SOURCE_DIR "."
#endif
#ifndef SI_HARNESS_COMPILER
#define SI_HARNESS_COMPILER "unknown"
#endif

namespace si::harness {

namespace {

// The value of the first "<key> : value" line of a /proc file, or "unknown".
std::string proc_field(const char* path, std::string_view key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(key)) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
    }
    return "unknown";
}

std::string first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    return std::getline(in, line) ? line : "unknown";
}

// PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" of /etc/os-release.
std::string os_name() {
    std::ifstream in("/etc/os-release");
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("PRETTY_NAME=")) continue;
        std::string value = line.substr(12);
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
            value = value.substr(1, value.size() - 2);
        return value;
    }
    return "unknown";
}

// "yes" on a virtual machine (the CPU's hypervisor flag): its wake-ups of an
// idle vCPU go through the host.
std::string virtual_machine() {
    const std::string flags = proc_field("/proc/cpuinfo", "flags");
    if (flags == "unknown") return flags;
    return (flags + ' ').find(" hypervisor ") != std::string::npos ? "yes" : "no";
}

// The idle driver and governor, and on a KVM guest how long an idle vCPU
// polls before it halts (0: every wake-up of an idle vCPU costs an exit to
// the host, tens of microseconds): what sleeping threads pay to wake.
std::string cpu_idle() {
    const std::string driver = first_line("/sys/devices/system/cpu/cpuidle/current_driver");
    const std::string governor = first_line("/sys/devices/system/cpu/cpuidle/current_governor");
    std::string text = fmt::format("driver {}, governor {}", driver, governor);
    const std::string poll = first_line("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
    if (poll != "unknown") text += fmt::format(", guest_halt_poll_ns {}", poll);
    return text;
}

std::string or_unknown(std::string text) {
    return text.empty() ? "not found" : text;
}

}  // namespace

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
    std::string host(name);
    return host.substr(0, host.find('.'));
}

std::string source_commit() {
    if (const char* given = std::getenv("SI_BENCH_COMMIT"); given != nullptr && *given != '\0')
        return given;
    const std::string described =
        capture_output({"git", "-C", SI_HARNESS_SOURCE_DIR, "describe", "--always", "--dirty"});
    // git prints "fatal: ..." outside a repository.
    if (described.empty() || described.find(' ') != std::string::npos) return "unknown";
    return described;
}

std::vector<std::pair<std::string, std::string>> describe_machine(const std::string& commit) {
    struct utsname uts {};
    ::uname(&uts);
    std::vector<std::pair<std::string, std::string>> entries;
    entries.emplace_back("host", host_name());
    entries.emplace_back("date", utc_timestamp());
    entries.emplace_back("cpu_model", proc_field("/proc/cpuinfo", "model name"));
    entries.emplace_back("cores_online", std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)));
    entries.emplace_back("cores_usable", std::to_string(std::thread::hardware_concurrency()));
    entries.emplace_back("memory", proc_field("/proc/meminfo", "MemTotal"));
    entries.emplace_back("virtual_machine", virtual_machine());
    entries.emplace_back("cpu_idle", cpu_idle());
    entries.emplace_back("kernel", fmt::format("{} {} {}", uts.sysname, uts.release, uts.machine));
    entries.emplace_back("os", os_name());
    entries.emplace_back("compiler", SI_HARNESS_COMPILER);
    entries.emplace_back("commit", commit);
    entries.emplace_back("mpich", or_unknown(capture_output({"mpichversion"}, 1)));
    entries.emplace_back("openmpi", or_unknown(capture_output({"ompi_info", "--version"}, 1)));
    entries.emplace_back("gnuplot", or_unknown(capture_output({"gnuplot", "--version"}, 1)));
    entries.emplace_back("load_average", first_line("/proc/loadavg"));
    return entries;
}

void write_key_values(const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& entries) {
    std::ofstream out(path, std::ios::trunc);
    for (const auto& [key, value] : entries) out << key << ": " << value << '\n';
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
}

}  // namespace si::harness
