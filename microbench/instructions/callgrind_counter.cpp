#include "instructions/callgrind_counter.hpp"

#include <stdlib.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "instructions/callgrind_dump.hpp"

namespace si::bench::instructions {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOutVariable = "SI_BENCH_CALLGRIND_OUT";

// The value of `--name VALUE` or `--name=VALUE`.
std::optional<std::string> option_value(int argc, char** argv, std::string_view name) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == name && i + 1 < argc) return std::string(argv[i + 1]);
        if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=')
            return std::string(arg.substr(name.size() + 1));
    }
    return std::nullopt;
}

bool has_flag(int argc, char** argv, std::string_view name) {
    for (int i = 1; i < argc; ++i)
        if (argv[i] == name) return true;
    return false;
}

// This process's rank as its launcher announced it, before MPI_Init.
std::optional<int> launcher_rank() {
    for (const char* variable : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
        if (const char* value = std::getenv(variable); value != nullptr && *value != '\0')
            return std::atoi(value);
    return std::nullopt;
}

[[noreturn]] void give_up(const std::string& why) {
    fmt::print(stderr, "op_instructions: {}\n", why);
    std::exit(2);
}

std::string dump_directory(const CallgrindSettings& settings) {
    if (!settings.directory.empty()) return settings.directory;
    if (!settings.csv_path.empty()) return settings.csv_path + ".callgrind";
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/si-callgrind-XXXXXX", tmp != nullptr ? tmp : "/tmp");
    if (::mkdtemp(pattern.data()) == nullptr) give_up("cannot create a directory for the dumps");
    return pattern;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

CallgrindSettings read_callgrind_settings(int argc, char** argv) {
    CallgrindSettings settings;
    settings.valgrind = option_value(argc, argv, "--valgrind").value_or(settings.valgrind);
    settings.enabled = !has_flag(argc, argv, "--no-valgrind");
    settings.directory = option_value(argc, argv, "--callgrind-dir").value_or("");
    settings.csv_path = option_value(argc, argv, "--csv").value_or("");
    return settings;
}

void launch_counted_rank(char** argv, const CallgrindSettings& settings) {
    int argc = 0;
    while (argv[argc] != nullptr) ++argc;
    if (!settings.enabled || RUNNING_ON_VALGRIND || has_flag(argc, argv, "--help") ||
        has_flag(argc, argv, "-h"))
        return;
    const auto rank = launcher_rank();
    if (!rank)
        give_up(
            "cannot tell this process's rank before MPI_Init (no PMI_RANK, "
            "OMPI_COMM_WORLD_RANK or PMIX_RANK); run it under sirun, mpiexec or mpirun");
    if (*rank != settings.counted_rank) return;

    const std::string directory = dump_directory(settings);
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) give_up(fmt::format("cannot create {}: {}", directory, ec.message()));
    const std::string out_file =
        (fs::absolute(directory) / fmt::format("callgrind.{}", ::getpid())).string();
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) give_up("cannot read /proc/self/exe");
    ::setenv(kOutVariable, out_file.c_str(), 1);
    // Every symbol bound at start: a lazy binding inside a counted call would count.
    ::setenv("LD_BIND_NOW", "1", 1);

    std::vector<std::string> args = {settings.valgrind,
                                     "--tool=callgrind",
                                     "-q",
                                     "--collect-atstart=no",
                                     "--dump-instr=no",
                                     "--dump-line=no",
                                     "--callgrind-out-file=" + out_file,
                                     self};
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    std::vector<char*> pointers;
    for (auto& arg : args) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    std::fflush(nullptr);
    ::execvp(pointers.front(), pointers.data());
    give_up(
        fmt::format("cannot start {} (install valgrind, or give --valgrind PATH, or "
                    "--no-valgrind to run without counting)",
                    settings.valgrind));
}

CallgrindCounter::CallgrindCounter() {
    const char* out_file = std::getenv(kOutVariable);
    active_ = RUNNING_ON_VALGRIND && out_file != nullptr;
    if (!active_) return;
    out_file_ = out_file;
    directory_ = fs::path(out_file_).parent_path().string();
    // What an empty stretch costs: the end of one client request and the start of
    // the next, the same in every stretch (counted() is inlined, resume() and pause()
    // are not).
    std::vector<std::uint64_t> empty;
    for (int i = 0; i < 3; ++i) {
        start();
        counted(this, [] {});
        if (auto count = finish()) {
            empty.push_back(count->instructions);
            std::error_code ec;
            fs::remove(count->dump, ec);
        }
    }
    if (!empty.empty()) overhead_ = *std::min_element(empty.begin(), empty.end());
}

void CallgrindCounter::start() {
    if (!active_) return;
    pause();
    stretches_ = 0;
    CALLGRIND_ZERO_STATS;
}

// Not inlined, so that every stretch ends and starts with the same instructions.
__attribute__((noinline)) void CallgrindCounter::pause() {
    if (!active_ || !collecting_) return;
    CALLGRIND_TOGGLE_COLLECT;
    collecting_ = false;
}

__attribute__((noinline)) void CallgrindCounter::resume() {
    if (!active_ || collecting_) return;
    ++stretches_;
    collecting_ = true;
    CALLGRIND_TOGGLE_COLLECT;
}

std::optional<CallgrindCounter::Count> CallgrindCounter::finish() {
    if (!active_) return std::nullopt;
    pause();
    Count count;
    const auto total = dump_and_read(count.dump);
    if (!total) return std::nullopt;
    const std::uint64_t overhead = overhead_ * static_cast<std::uint64_t>(stretches_);
    count.instructions = *total > overhead ? *total - overhead : 0;
    return count;
}

std::optional<std::uint64_t> CallgrindCounter::dump_and_read(std::string& path) {
    CALLGRIND_DUMP_STATS;
    path = dump_path(out_file_, ++dumps_);
    return dump_total(read_file(path));
}

}  // namespace si::bench::instructions
