// `sibench run` and `sibench plot`: a sweep from a profile into a run directory, and
// the figures and summary of a run directory (also one filled by Slurm jobs).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile.hpp"
#include "results.hpp"

namespace si::harness {

struct RunOptions {
    std::string profile;              // name or path
    std::string build_dir = "build";  // holds bin/ with sirun and the benchmarks
    std::string out_dir = "results";  // run directory: <out>/<profile>/<host>-<UTC stamp>
    std::string run_dir;              // exact run directory instead
    MatrixFilter filter;
    std::optional<double> timeout_s;  // replaces every study's timeout
    bool dry_run = false;             // print the runs and their commands only
    bool strict = false;              // exit 1 when any run failed
    bool allow_missing = false;       // a configuration that cannot run here is not an error
    bool plot = true;
    bool report = false;  // also the thesis report (report.hpp) into <run>/report
    // Third-party suites: sources by suite name (osu -> DIR), replacing the studies';
    // where they are built ("" : <out_dir>/work); whether to start those builds afresh.
    std::map<std::string, std::string> sources;
    std::string work_dir;
    bool rebuild = false;
    // A profile made by `sibench suite run`: its text, with `profile` as its name.
    std::string profile_text;
};

// Exit status: 0 when at least one run succeeded (failures are recorded in runs.csv
// and listed), 1 when every attempted run failed, none could start, (strict) any
// failed, or a run was skipped because its configuration cannot run here (Open MPI
// not installed, a benchmark not built) unless allow_missing; 130 after Ctrl-C. Throws on invalid options or profiles.
int run_sweep(const RunOptions& options);

// Notes naming the runs that started on a busy machine (their numbers are suspect).
std::vector<std::string> busy_notes(const std::vector<RunRecord>& runs);

// A run directory's results: runs.csv (or manifest.csv and status/ of an sbatch
// directory) and the raw CSVs of the runs that succeeded, rows tagged with their
// run's config, study and pairs.
struct Collected {
    std::vector<RunRecord> runs;
    std::vector<Row> rows;
    std::vector<std::string> notes;
};
Collected collect_results(const std::string& dir);

// Rebuilds results.csv (when the directory has runs.csv or manifest.csv; a lone
// results.csv is read as it is), then plots/ and summary.txt, and prints the summary.
// Returns 0, or 1 when there are no results.
int plot_results(const std::string& dir);

}  // namespace si::harness
