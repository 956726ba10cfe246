// Application studies (apps/nas-sp, apps/lu, NPB, and any program through `sibench app`):
// per configuration and job size, the time (of the timed steps; a program's wall time),
// the figure of merit (Mop/s; a program's own) and the speed-up over simpi-none; their
// figures and summary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plot.hpp"
#include "results.hpp"

namespace si::harness {

// What an application writes as its CSV's suite (microbench/README.md).
inline constexpr std::string_view kApplicationSuite = "nas";

// Rows of whole applications: apps/nas-sp's and apps/lu's ("nas"), the NAS Parallel Benchmarks
// built from their own sources by `sibench suite` ("npb"), and any program ("app",
// program_study.hpp).
inline bool is_application_suite(std::string_view suite) {
    return suite == kApplicationSuite || suite == "npb" || suite == "app";
}

struct AppResult {
    std::string suite;  // nas, npb or app
    std::string study;
    std::string benchmark;  // "sp.W": the application and its class
    std::string config;
    int ranks = 0;
    // time_max (the slowest rank, NPB's time; a program's time_wall, launch to
    // exit): median over rounds, and its range
    double seconds = 0;
    double seconds_min = 0, seconds_max = 0;
    int rounds = 0;  // runs behind it (Study::rounds)
    // mops_median (NPB: mops_total; a program's rate_merit or time_merit), median
    // over rounds, in merit_unit
    std::optional<double> merit;
    std::string merit_unit;
    // T(simpi-none) / T(config), same class and ranks, simpi-none of the same study if
    // it ran there (simpi-none@mpich-abi for a configuration through the MPICH ABI):
    // the median of the per-round ratios and their range; without rounds to pair, the
    // ratio of the medians and no range.
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

// A fixed-width table: study, app ("sp.W"), ranks, config, time and its range, figure
// of merit, speed-up and its range.
std::string format_app_summary(const std::vector<AppResult>& results);

}  // namespace si::harness
