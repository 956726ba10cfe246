// Application studies (apps/nas-sp, apps/lu): per configuration and job size, the time of the
// timed steps, Mop/s and the speed-up over simpi-none; their figures and summary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plot.hpp"
#include "results.hpp"

namespace si::harness {

// What an application writes as its CSV's suite (microbench/README.md).
inline constexpr std::string_view kApplicationSuite = "nas";

// Rows of whole applications: apps/nas-sp's and apps/lu's ("nas") and the NAS Parallel Benchmarks
// built from their own sources by `sibench suite` ("npb").
inline bool is_application_suite(std::string_view suite) {
    return suite == kApplicationSuite || suite == "npb";
}

struct AppResult {
    std::string study;
    std::string benchmark;  // "sp.W": the application and its class
    std::string config;
    int ranks = 0;
    // time_max (the slowest rank, NPB's time): median over rounds, and its range
    double seconds = 0;
    double seconds_min = 0, seconds_max = 0;
    int rounds = 0;              // runs behind it (Study::rounds)
    std::optional<double> mops;  // mops_median (NPB: mops_total), median over rounds
    // T(simpi-none) / T(config), same class and ranks, simpi-none of the same study if
    // it ran there: the median of the per-round ratios and their range; without rounds
    // to pair, the ratio of the medians and no range.
    std::optional<double> speedup;
    std::optional<double> speedup_min, speedup_max;
};

// The application rows of `rows` (suites "nas" and "npb"), one result per (study, benchmark,
// ranks, config), in that order with configurations in legend order. Runs of one key
// in several rounds (run ids ending in .round<N>) are aggregated; a round seen twice
// (a run repeated) keeps its last.
std::vector<AppResult> app_results(const std::vector<Row>& rows);

// One figure per (study, benchmark): bars of the time per configuration when the study
// ran one job size, else time against ranks, one line per configuration.
std::vector<Figure> app_figures(const std::vector<AppResult>& results);

// A fixed-width table: study, app ("sp.W"), ranks, config, time and its range, Mop/s,
// speed-up and its range.
std::string format_app_summary(const std::vector<AppResult>& results);

}  // namespace si::harness
