// The regression gate: results of one run against a reference, metric by metric,
// each with its direction (time: lower is better; overlap, bandwidth: higher) and a
// tolerance (absolute points for %-metrics, relative for the others by default).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results.hpp"

namespace si::harness {

enum class Direction { lower_is_better, higher_is_better, unchecked };

// From the measurement name, then from the unit. Instruction counts
// (microbench/instructions), latencies and times are lower-is-better.
Direction direction_of(const Row& row);

// Counts that no load moves (instructions_*): relative_to_baselines keeps them as
// they are, so that a gate compares them exactly.
bool is_absolute_metric(const Row& row);

struct Tolerance {
    double amount = 0;
    bool relative = false;  // amount is a fraction of the reference (10% -> 0.10)

    [[nodiscard]] std::string text() const;  // "5", "10%"
};

struct ToleranceSet {
    // By measurement ("overlap_at_lat") or family, the part before the first '_'
    // ("arrival" covers arrival_150 ... arrival_300). "default" replaces both
    // defaults below.
    std::map<std::string, Tolerance> by_name;
    Tolerance percent_default{5, false};  // metrics in %: 5 points
    Tolerance other_default{0.10, true};  // everything else: 10%

    [[nodiscard]] Tolerance for_row(const Row& row) const;
};

// "overlap=5,latency=10%,arrival=15%": absolute without '%', relative with. Throws
// std::invalid_argument naming --tolerance and the bad entry.
ToleranceSet parse_tolerances(std::string_view spec);

struct CompareOptions {
    ToleranceSet tolerances;
    std::vector<std::string> statistics = {"median"};  // which <metric>_<stat> rows; "all"
    bool fail_on_missing = false;  // a reference row absent from current fails the gate
};

enum class Verdict { ok, regression, improvement, missing, unchecked };

struct Finding {
    std::string key;  // benchmark config nodes x ranks_per_node size metric, for the table
    Row reference;    // one of the reference rows of the key
    double reference_value = 0;
    double current_value = 0;
    Verdict verdict = Verdict::ok;
    Tolerance tolerance;
    Direction direction = Direction::unchecked;
};

struct CompareReport {
    std::vector<Finding> findings;  // every reference key, in reference order
    int compared = 0;
    int regressions = 0;
    int improvements = 0;
    int missing = 0;    // in the reference, not in current
    int extra = 0;      // in current, not in the reference
    int unchecked = 0;  // no known direction, or no valid reference value

    // 0: pass; 1: a regression, a missing row under fail_on_missing, or nothing compared.
    [[nodiscard]] int exit_code(const CompareOptions& options) const;
};

// The gate on ratios (--baseline): every row becomes its value relative to the same
// row (benchmark, ranks, size, metric; the same round when both
// have one, else the median of the rounds) of a baseline configuration in the same
// file: in points above it for %-metrics (overlap), as a ratio ("x") for the
// others. A loaded machine slows every configuration of a run alike and moves the
// ratios far less than the figures. A configuration is measured against the first
// of `baselines` that comes after it in the list (the first one for any other
// configuration) and has the row; the benchmark becomes "<benchmark>/<baseline>".
// Rows with no baseline (the last baseline's own) are left out. Absolute metrics
// (is_absolute_metric) pass through unchanged, whatever their configuration.
std::vector<Row> relative_to_baselines(const std::vector<Row>& rows,
                                       const std::vector<std::string>& baselines);

// Rows match on (benchmark, runtime, mode, helpers, nodes, ranks_per_node, msg_size,
// metric). Rows sharing a key within one file (repeated runs, or one configuration in
// two studies) count with their median.
CompareReport compare_rows(const std::vector<Row>& reference, const std::vector<Row>& current,
                           const CompareOptions& options);

// The regressions as a table (plus the missing rows when `show_missing`; every row
// with `all_rows`), then a one-line count.
std::string format_report(const CompareReport& report, bool all_rows, bool show_missing = false);

}  // namespace si::harness
