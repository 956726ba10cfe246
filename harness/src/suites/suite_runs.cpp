#include "suites/suite_runs.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <cpptoml.h>
#include <fmt/format.h>

#include "machine.hpp"
#include "process.hpp"
#include "profile_writer.hpp"
#include "results.hpp"
#include "suites/build_steps.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

std::string absolute_source(const std::string& source) {
    return source.empty() ? "" : fs::absolute(source).lexically_normal().string();
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// What a work directory was built from: when this changes, its objects are stale.
std::string build_stamp(const SuiteBuildSpec& spec, const Toolchain& tools) {
    // Only the compilers the suite uses: NPB is C and Fortran, the others C and C++
    // (sifort appearing must not rebuild OSU).
    const bool fortran = spec.kind == SuiteKind::npb;
    return fmt::format("suite: {}\nsource: {}\ncheck: {}\ncc: {}\n{}: {}\n",
                       suite_kind_name(spec.kind), spec.source, spec.check, tools.cc,
                       fortran ? "fc" : "cxx", fortran ? tools.fc : tools.cxx);
}

// build.csv keeps every target built in the directory: this build's outcome
// replaces an older one of the same target.
std::vector<BuiltTarget> merge_report(std::vector<BuiltTarget> old,
                                      const std::vector<BuiltTarget>& fresh) {
    for (const auto& target : fresh) {
        const auto same = std::find_if(old.begin(), old.end(), [&](const BuiltTarget& t) {
            return t.target == target.target;
        });
        if (same != old.end())
            *same = target;
        else
            old.push_back(target);
    }
    return old;
}

}  // namespace

std::string suite_work_dir(const std::string& work_root, SuiteKind kind, bool check,
                           const std::string& library) {
    const std::string suite = suite_kind_name(kind) + (check ? "-check" : "");
    return (fs::path(work_root) / suite / library).string();
}

SuiteBuildResult build_suite(const SuiteBuildSpec& spec, const std::string& work_root,
                             const std::string& bin_dir, bool rebuild) {
    const Toolchain tools = find_toolchain(spec.runtime, bin_dir);
    SuiteBuildResult result;
    result.work_dir = suite_work_dir(work_root, spec.kind, spec.check, tools.library);
    const fs::path work(result.work_dir);
    const fs::path stamp = work / "sibench-build.txt";
    const std::string wanted = build_stamp(spec, tools);
    if (fs::exists(work) && (rebuild || read_file(stamp) != wanted)) fs::remove_all(work);
    fs::create_directories(work);
    std::ofstream(stamp, std::ios::trunc) << wanted;

    std::cout << fmt::format("building {} against {} in {} ... ", suite_kind_name(spec.kind),
                             tools.library, result.work_dir)
              << std::flush;
    const auto start = std::chrono::steady_clock::now();
    BuildRequest request{spec.source, result.work_dir, tools, spec.targets, spec.check};
    result.targets = suite_driver(spec.kind).build(request);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const fs::path report = work / "build.csv";
    write_build_report(report.string(),
                       merge_report(read_build_report(report.string()), result.targets));

    int built = 0, failed = 0, skipped = 0;
    for (const auto& target : result.targets) {
        built += target.status == "built";
        failed += target.status == "failed";
        skipped += target.status == "skipped";
    }
    std::cout << fmt::format("{:.0f} s: {} built, {} failed, {} skipped (build.csv)\n", seconds,
                             built, failed, skipped);
    for (const auto& target : result.targets)
        if (target.status != "built")
            std::cout << fmt::format("    {} {}: {}{}\n", target.status, target.target, target.note,
                                     target.log.empty() ? "" : " (" + target.log + ")");
    return result;
}

SuiteBuilds::SuiteBuilds(std::string work_root, std::string bin_dir)
    : work_root_(std::move(work_root)), bin_dir_(std::move(bin_dir)) {}

std::string SuiteBuilds::work_dir_of(const PlannedRun& run) const {
    // An @mpich-abi run uses MPICH's build of the suite.
    return suite_work_dir(work_root_, parse_suite_kind(run.suite), run.suite_check,
                          runtime_name(run.config.built_against()));
}

std::string SuiteBuilds::target_of(const PlannedRun& run) const {
    return suite_driver(parse_suite_kind(run.suite))
        .target_of(absolute_source(run.suite_source), run.benchmark, run.ranks());
}

void SuiteBuilds::prepare(const std::vector<PlannedRun>& runs, bool dry_run, bool rebuild) {
    // One build per work directory, with every target its runs need.
    std::map<std::string, SuiteBuildSpec> builds;
    for (const auto& run : runs) {
        if (run.suite.empty() || run.suite_source.empty()) continue;
        const std::string work = work_dir_of(run);
        SuiteBuildSpec& spec = builds[work];
        const std::string source = absolute_source(run.suite_source);
        if (!spec.source.empty() && spec.source != source)
            throw std::invalid_argument(fmt::format(
                "suite {} is given two sources, {} and {}; one work directory ({}) holds one",
                run.suite, spec.source, source, work));
        spec.kind = parse_suite_kind(run.suite);
        spec.source = source;
        spec.check = run.suite_check;
        spec.runtime = run.config.built_against();
        const std::string target = target_of(run);
        if (std::find(spec.targets.begin(), spec.targets.end(), target) == spec.targets.end())
            spec.targets.push_back(target);
    }
    for (const auto& [work, spec] : builds) {
        if (dry_run) {
            std::string targets;
            for (const auto& t : spec.targets) targets += (targets.empty() ? "" : ", ") + t;
            std::cout << fmt::format("would build {} ({}) from {} in {}\n",
                                     suite_kind_name(spec.kind), targets, spec.source, work);
            for (const auto& t : read_build_report((fs::path(work) / "build.csv").string()))
                built_[work + '/' + t.target] = t;
            continue;
        }
        if (!fs::is_directory(spec.source)) continue;  // missing_reason says so per run
        if (interrupted_by_user()) break;              // Ctrl-C: the sweep records the rest
        for (const auto& t : build_suite(spec, work_root_, bin_dir_, rebuild).targets)
            built_[work + '/' + t.target] = t;
    }
}

std::string SuiteBuilds::missing_reason(const PlannedRun& run, const LaunchSite& site) const {
    if (std::string why = launcher_missing(run, site); !why.empty()) return why;
    if (run.suite_source.empty())
        return fmt::format("no source for suite {}: give --source {}=DIR or `source` in the study",
                           run.suite, run.suite);
    if (!fs::is_directory(absolute_source(run.suite_source)))
        return fmt::format("suite {}: source {} is not a directory", run.suite, run.suite_source);
    const auto built = built_.find(work_dir_of(run) + '/' + target_of(run));
    if (built == built_.end()) return fmt::format("{} not built", target_of(run));
    const BuiltTarget& target = built->second;
    if (target.status == "built") return "";
    if (target.status == "skipped") return target.note;
    return fmt::format("{} did not build against {}: {} (see {})", target.target,
                       run.config.runtime_name(), target.note, target.log);
}

Command SuiteBuilds::command(const PlannedRun& run, const LaunchSite& site) const {
    const std::string target = target_of(run);
    const auto built = built_.find(work_dir_of(run) + '/' + target);
    // Not built (a dry run, a failed build): where it would be, for the display.
    const std::string binary = built != built_.end() && !built->second.binary.empty()
                                   ? built->second.binary
                                   : (fs::path(work_dir_of(run)) / target).string();
    Command command = launch_command(run, site,
                                     suite_driver(parse_suite_kind(run.suite))
                                         .program(binary, run.benchmark, run.ranks(), run.args));
    add_thread_level_env(run.config, command.env);
    return command;
}

std::string suite_profile_text(const SuiteRunRequest& request) {
    auto study = cpptoml::make_table();
    study->insert("name", request.suite);
    study->insert("suite", request.suite);
    study->insert("source", request.source);
    study->insert("benchmarks", toml_strings(request.benchmarks));
    study->insert("ranks", toml_integers(request.ranks));
    study->insert("configs",
                  toml_strings(request.configs.empty()
                                   ? std::vector<std::string>{"simpi-none", "simpi-thread",
                                                              "simpi-smart", "mpich", "mpich-async",
                                                              "openmpi", "openmpi-async"}
                                   : request.configs));
    if (!request.helpers.empty()) study->insert("helpers", toml_integers(request.helpers));
    if (request.timeout_s > 0) study->insert("timeout", request.timeout_s);
    if (!request.args.empty()) study->insert("args", toml_strings(request.args));
    if (request.check) study->insert("check", true);
    auto studies = cpptoml::make_table_array();
    studies->push_back(study);
    auto root = cpptoml::make_table();
    root->insert("name", "suite-" + request.suite);
    root->insert("description",
                 fmt::format("written by `sibench suite run --suite {}`", request.suite));
    root->insert("study", studies);
    std::ostringstream text;
    text << "# A profile of one suite study, as `sibench suite run` ran it; "
            "`sibench run --profile` takes it too.\n"
         << *root;
    return text.str();
}

RowContext row_context_of(const PlannedRun& run) {
    RowContext context;
    context.benchmark = run.benchmark;
    context.config = run.config;
    context.ranks = run.ranks();
    context.args = run.args;
    context.host = host_name();
    context.commit = source_commit();
    context.date = utc_timestamp();
    return context;
}

SuiteOutput record_suite_output(const PlannedRun& run, const std::string& log_path,
                                const std::string& csv_path) {
    const RowContext context = row_context_of(run);
    SuiteOutput output =
        suite_driver(parse_suite_kind(run.suite)).parse(read_file(log_path), context);
    write_rows(csv_path, output.rows,
               {{"suite", run.suite}, {"benchmark", run.benchmark}, {"parsed_from", log_path}});
    return output;
}

}  // namespace si::harness
