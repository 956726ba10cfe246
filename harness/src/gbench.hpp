// Google Benchmark programs (microbench/runtime's `runtime_costs`): a study with
// kind = "gbench" runs its program once, directly (it is not an MPI program), has
// it write its results as JSON beside the run's raw CSV, and turns them into tidy
// rows like every other benchmark's. The format is in harness/README.md
// ("Google Benchmark studies").
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launch.hpp"
#include "profile.hpp"
#include "results.hpp"

namespace si::harness {

// The `suite` column of a Google Benchmark program's rows.
inline constexpr std::string_view kGbenchSuite = "gbench";

// raw/<id>.csv -> raw/<id>.json: where the program writes its JSON.
std::string gbench_json_path(const std::string& csv_path);

// <bin>/<benchmark>, its study's args, then --benchmark_out=<json_path> in JSON.
Command gbench_command(const PlannedRun& run, const std::string& bin_dir,
                       const std::string& json_path);

// "" when the program is built, else why the run cannot start.
std::string gbench_missing_reason(const PlannedRun& run, const std::string& bin_dir);

// What one JSON file says: rows, the program's context (machine, library build),
// benchmarks that skipped themselves with their reasons (notes), or why the run
// failed although the program exited 0 (no JSON, nothing measured).
struct GbenchOutput {
    std::vector<Row> rows;
    std::vector<std::pair<std::string, std::string>> context;
    std::vector<std::string> notes;
    std::string failure;
};

// Per benchmark (its run name, `/real_time` dropped): time_<stat> from real_time
// and cpu_time_<stat> from cpu_time, in ns, stat = min, median, mean, max over the
// repetitions (from the aggregates when only those were reported: mean and median).
// Rows are runtime simpi, mode none (configuration simpi-none), one node of one rank,
// msg_size 0 (arguments are part of the name); `host`, `commit`, `date` as given.
GbenchOutput parse_gbench_json(const std::string& text, const std::string& host,
                               const std::string& commit, const std::string& date);

// Reads the run's JSON and writes its rows to `csv_path`, the context as comment
// lines.
GbenchOutput record_gbench_output(const PlannedRun& run, const std::string& json_path,
                                  const std::string& csv_path);

// One line per benchmark: median time and its min..max, median CPU time ("" when
// `rows` has no Google Benchmark rows).
std::string format_gbench_summary(const std::vector<Row>& rows);

}  // namespace si::harness
