#include "suites/build_steps.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
// GCC 12 sees a possible truncation in libfccp's error path once it inlines it here
// (as in trace.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "common/csv.hpp"
#include "process.hpp"
#include "results.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

// A configure script or a whole make of NPB class C takes minutes here; an hour
// means something hangs.
constexpr double kStepLimitSeconds = 3600;

}  // namespace

void copy_source_tree(const std::string& from, const std::string& to) {
    fs::create_directories(to);
    fs::copy(from, to,
             fs::copy_options::recursive | fs::copy_options::update_existing |
                 fs::copy_options::copy_symlinks);
}

bool run_build_step(const std::vector<std::string>& argv, const EnvList& env,
                    const std::string& cwd, const std::string& log) {
    fs::create_directories(cwd);
    Command command{argv, env};
    {
        std::ofstream out(log, std::ios::app);
        out << "$ cd " << cwd << " && " << command.display() << '\n';
    }
    const ProcessResult result = run_process(command, log, kStepLimitSeconds, cwd);
    if (!result.error.empty()) std::ofstream(log, std::ios::app) << result.error << '\n';
    return result.error.empty() && result.exit_status == 0;
}

std::string make_jobs() {
    return fmt::format("-j{}", std::max(1u, std::thread::hardware_concurrency()));
}

std::string first_error_about(const std::string& log, const std::string& name) {
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find(name) == std::string::npos) continue;
        // gcc says "error:", gfortran "Error:".
        std::string lower = line;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        if (lower.find("error:") == std::string::npos &&
            line.find("undefined reference") == std::string::npos)
            continue;
        // The linker prefixes a path; what it could not find is the news.
        const auto undefined = line.find("undefined reference");
        if (undefined != std::string::npos) line = line.substr(undefined);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.pop_back();
        return line;
    }
    return "";
}

std::string build_failure(const std::string& log, const std::string& name) {
    if (std::string why = first_error_about(log, name); !why.empty()) return why;
    std::string last;
    for (const auto& line : split_list(tail_file(log, 20), '\n'))
        if (!line.starts_with("make") && !line.starts_with("$ ")) last = line;
    return last.empty() ? "did not build" : last;
}

void write_build_report(const std::string& path, const std::vector<BuiltTarget>& targets) {
    bench::CsvWriter out(path);
    out.write_row(std::vector<std::string>{"target", "status", "binary", "note", "log"});
    for (const auto& t : targets)
        out.write_row(std::vector<std::string>{t.target, t.status, t.binary, t.note, t.log});
}

std::vector<BuiltTarget> read_build_report(const std::string& path) {
    std::vector<BuiltTarget> targets;
    if (!fs::exists(path)) return targets;
    try {
        io::CSVReader<5, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                      io::throw_on_overflow, io::single_and_empty_line_comment<'#'>>
            in(path);
        in.read_header(io::ignore_no_column, "target", "status", "binary", "note", "log");
        BuiltTarget t;
        while (in.read_row(t.target, t.status, t.binary, t.note, t.log)) {
            targets.push_back(t);
            t = BuiltTarget{};
        }
    } catch (const io::error::base& error) {
        throw CsvError(error.what());
    }
    return targets;
}

std::vector<BuiltTarget> skip_targets(const std::vector<std::string>& targets,
                                      const std::string& reason) {
    std::vector<BuiltTarget> skipped;
    for (const auto& target : targets) skipped.push_back({target, "skipped", "", reason, ""});
    return skipped;
}

}  // namespace si::harness
