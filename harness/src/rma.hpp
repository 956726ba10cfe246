// Studies of the one-sided benchmark (microbench/rma/rma_overlap, rows of suite
// "rma"): per synchronization and operation, a figure of phase 2's epoch time
// relative to its work (the ideal is 1) and one of phase 1's epoch latency, against
// message size, and the summary's table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "derive.hpp"
#include "plot.hpp"

namespace si::harness {

inline constexpr std::string_view kRmaSuite = "rma";

// A metric of rma_overlap: <measurement>_<sync>_<op>_<statistic>, e.g.
// overlapped_fence_put_median.
struct RmaMetric {
    std::string measurement;  // epoch, overlapped, work
    std::string epoch;        // fence_put: the synchronization and the operation
    std::string statistic;    // min, median, mean, max
};
std::optional<RmaMetric> parse_rma_metric(std::string_view metric);

// <study>-<sync>-<op>-overlap (phase 2's epoch divided by the work, median with its
// min..max over the origins, a dashed line at 1) and <study>-<sync>-<op>-latency.
std::vector<Figure> rma_figures(const ResultIndex& index);

// Per study: phase 2's epoch / work and phase 1's epoch (us) per epoch kind and size
// (those of `sizes` measured, else all), a column per configuration.
std::string format_rma_tables(const ResultIndex& index, const std::vector<std::uint64_t>& sizes);

}  // namespace si::harness
