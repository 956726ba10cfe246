// Application studies (apps/nas-sp): per configuration and job size, the time of the
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

struct AppResult {
    std::string study;
    std::string benchmark;  // "sp.W": the application and its class
    std::string config;
    int ranks = 0;
    double seconds = 0;                // time_max: the slowest rank, NPB's time
    std::optional<double> mops;        // mops_median
    std::optional<double> speedup;     // T(simpi-none) / T(config), same study, class, ranks
};

// The application rows of `rows` (suite "nas"), one result per (study, benchmark,
// ranks, config), in that order with configurations in legend order. A key seen more
// than once (a run repeated) keeps the last.
std::vector<AppResult> app_results(const std::vector<Row>& rows);

// One figure per (study, benchmark): bars of the time per configuration when the study
// ran one job size, else time against ranks, one line per configuration.
std::vector<Figure> app_figures(const std::vector<AppResult>& results);

// A fixed-width table: study, benchmark, ranks, config, time, Mop/s, speed-up.
std::string format_app_summary(const std::vector<AppResult>& results);

}  // namespace si::harness
