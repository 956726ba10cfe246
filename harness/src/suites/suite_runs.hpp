// A sweep's suite runs: the builds they need (one per suite, MPI library and IMB
// variant, in <work>/<suite>/<library>), their command lines, why one cannot start,
// and their output turned into the raw CSV that sibench collects like any other.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launch.hpp"
#include "profile.hpp"
#include "suites/suite.hpp"

namespace si::harness {

// <work>/<suite>/<library>, <work>/imb-check/<library> for IMB's checking build.
std::string suite_work_dir(const std::string& work_root, SuiteKind kind, bool check,
                           const std::string& library);

// One build, as `sibench suite build` asks for it and a sweep does for its runs.
struct SuiteBuildSpec {
    SuiteKind kind = SuiteKind::osu;
    std::string source;  // absolute
    bool check = false;
    Runtime runtime = Runtime::simpi;
    // Empty: whatever the suite builds whole (every OSU program, IMB-MPI1).
    std::vector<std::string> targets;
};

struct SuiteBuildResult {
    std::string work_dir;
    std::vector<BuiltTarget> targets;
};

// Builds `spec` in its work directory, after emptying it when it was made from
// another source or with other compilers, or when `rebuild`. Leaves build.csv (every
// target built there so far) and sibench-build.txt (what it was built from), and
// prints what built, what did not and why.
SuiteBuildResult build_suite(const SuiteBuildSpec& spec, const std::string& work_root,
                             const std::string& bin_dir, bool rebuild);

class SuiteBuilds {
  public:
    SuiteBuilds(std::string work_root, std::string bin_dir);

    // Builds what the suite runs among `runs` need, each build once; with `dry_run`
    // it says what it would build. Throws std::invalid_argument when one suite is
    // given two source directories.
    void prepare(const std::vector<PlannedRun>& runs, bool dry_run, bool rebuild);

    // Why a suite run cannot start ("" when it can): no source given, a compiler
    // missing, its benchmark did not build, or the launcher is missing.
    [[nodiscard]] std::string missing_reason(const PlannedRun& run, const LaunchSite& site) const;

    // The launcher, the suite's binary and its options.
    [[nodiscard]] Command command(const PlannedRun& run, const LaunchSite& site) const;

  private:
    [[nodiscard]] std::string work_dir_of(const PlannedRun& run) const;
    [[nodiscard]] std::string target_of(const PlannedRun& run) const;

    std::string work_root_;
    std::string bin_dir_;
    std::map<std::string, BuiltTarget> built_;  // by work directory + '/' + target
};

// What `sibench suite run` asks for: one study, written as a profile.
struct SuiteRunRequest {
    std::string suite;
    std::string source;
    std::vector<std::string> benchmarks;
    std::vector<int> ranks;
    std::vector<std::string> configs;  // empty: every configuration
    std::vector<int> helpers;          // empty: the profile default
    double timeout_s = 0;              // 0: the profile default
    std::vector<std::string> args;
    bool check = false;
};

// The profile (TOML, written with cpptoml) of a `sibench suite run`: name
// suite-<suite>, one study named after the suite. Read back like any profile.
std::string suite_profile_text(const SuiteRunRequest& request);

// What every row of a run carries: its benchmark, configuration, job size, options,
// this host, the commit and the time now.
RowContext row_context_of(const PlannedRun& run);

// Parses a finished suite run's log and writes its rows to `csv_path` (a benchmark
// CSV like sibench's own). The parser's verdict comes back: rows, failure, notes.
SuiteOutput record_suite_output(const PlannedRun& run, const std::string& log_path,
                                const std::string& csv_path);

}  // namespace si::harness
