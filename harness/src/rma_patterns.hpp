// Studies of the inefficiency-pattern benchmark (microbench/rma/rma_patterns,
// rows of suite "rma-patterns"): per observation, a figure of its time against
// message size, a curve per configuration and synchronization (blocking,
// nonblocking), the delay as a dashed line; and the summary's table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "derive.hpp"
#include "plot.hpp"

namespace si::harness {

inline constexpr std::string_view kRmaPatternsSuite = "rma-patterns";

// A metric of rma_patterns: <observation>_<epochs>_<statistic>, e.g.
// late_post_next_nonblocking_median; the observation <pattern>_delay is how
// long the delaying process delayed.
struct PatternMetric {
    std::string observation;  // late_post_next
    std::string epochs;       // blocking, nonblocking
    std::string statistic;    // min, median, mean, max
};
std::optional<PatternMetric> parse_pattern_metric(std::string_view metric);

// <study>-<observation> per observation that is not a delay.
std::vector<Figure> rma_pattern_figures(const ResultIndex& index);

// Per study: a row per observation and size, a column per configuration, each
// cell "blocking / nonblocking" (us, median over the rounds).
std::string format_rma_pattern_tables(const ResultIndex& index);

}  // namespace si::harness
