// Studies of the nonblocking-collective benchmark (microbench/collectives/coll_overlap,
// rows of suite "collectives"): its metric names, a figure of overlap and one of
// latency against message size per collective, and the summary's tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "derive.hpp"
#include "plot.hpp"

namespace si::harness {

inline constexpr std::string_view kCollectivesSuite = "collectives";

// The factor the figures and tables show: T_syn = T_lat, the thesis' template.
inline constexpr int kCollectivePercent = 100;

// A metric of coll_overlap: <measurement>_<collective>[_<percent>]_<statistic>,
// e.g. overlap_ibcast_100_median, latency_iallreduce_max.
struct CollectiveMetric {
    std::string measurement;     // blocking, latency, work, total, overlap
    std::string collective;      // ibcast
    std::optional<int> percent;  // T_syn / T_lat x 100 (work, total, overlap)
    std::string statistic;       // min, median, mean, max
};
// nullopt for any other metric.
std::optional<CollectiveMetric> parse_collective_metric(std::string_view metric);

// The studies whose rows come from the collective benchmark, in name order.
std::vector<std::string> collective_studies(const ResultIndex& index);
// The collectives a study measured, in name order.
std::vector<std::string> collectives_of(const ResultIndex& index, const std::string& study);

// Per study and collective that moves data: <study>-<collective>-overlap (overlap at
// T_syn = T_lat, median with the benchmark's min..max over its rounds) and
// <study>-<collective>-latency (T_lat, the I-collective and MPI_Wait without work),
// against message size, one line per configuration. `notes` says what was not drawn.
std::vector<Figure> collective_figures(const ResultIndex& index, std::vector<std::string>& notes);

// Per study: the overlap at T_syn = T_lat, then the latency of the nonblocking and
// the blocking form, a row per collective and size (those of `sizes` the study
// measured, else all; the barrier at 0 B), a column per configuration. Empty without
// such a study.
std::string format_collective_tables(const ResultIndex& index,
                                     const std::vector<std::uint64_t>& sizes);

}  // namespace si::harness
