// What the figures and the summary show, derived from result rows: values by size,
// overheads and footprints against simpi-none, progression curves, scalability.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "results.hpp"

namespace si::harness {

struct Point {
    Point() = default;
    Point(double x_, double y_, std::optional<double> low_ = {}, std::optional<double> high_ = {})
        : x(x_), y(y_), low(low_), high(high_) {}
    double x = 0;
    double y = 0;
    // The spread behind y (its min and max), drawn as an error bar when given.
    std::optional<double> low, high;
};

struct Series {
    std::string label;  // a configuration name
    std::vector<Point> points;
};

// What one key took over the rounds of its study (one value per round).
struct Spread {
    double median = 0;
    double min = 0;
    double max = 0;
    int rounds = 0;
};

// Rows by (study, config, pairs, msg_size, metric), one value per round (Row::round):
// a study repeated in rounds keeps every round's value, and value() is their median.
// When a key occurs more than once in one round (a repeated run merged in), the last
// row wins.
class ResultIndex {
  public:
    explicit ResultIndex(const std::vector<Row>& rows);

    // The median over the rounds (a study run once: its value).
    [[nodiscard]] std::optional<double> value(const std::string& study, const std::string& config,
                                              int pairs, std::uint64_t size,
                                              const std::string& metric) const;
    // The median over the rounds with their min..max (NaN in a round makes all NaN).
    [[nodiscard]] std::optional<Spread> spread(const std::string& study, const std::string& config,
                                               int pairs, std::uint64_t size,
                                               const std::string& metric) const;
    // The first row of each key (its context: benchmark, runtime, unit, ranks...),
    // with the key's spread, in key order.
    [[nodiscard]] std::vector<std::pair<Row, Spread>> spreads() const;
    [[nodiscard]] bool has_study(const std::string& study) const;
    // Every study with rows, in name order.
    [[nodiscard]] std::vector<std::string> studies() const;
    // In legend order (config_name_less).
    [[nodiscard]] std::vector<std::string> configs(const std::string& study) const;
    [[nodiscard]] std::vector<int> pairs(const std::string& study) const;
    [[nodiscard]] std::vector<std::uint64_t> sizes(const std::string& study) const;
    [[nodiscard]] std::vector<std::string> metrics(const std::string& study) const;
    // The smallest pair count of a study: the one pairwise figures show.
    [[nodiscard]] int base_pairs(const std::string& study) const;

    // The most rounds any key of the study has (1 for a study run once).
    [[nodiscard]] int rounds(const std::string& study) const;

  private:
    using Key = std::tuple<std::string, std::string, int, std::uint64_t, std::string>;
    struct Entry {
        Row first;                     // the key's first row, for its context
        std::map<int, double> rounds;  // round -> value
    };
    std::map<Key, Entry> entries_;
    std::map<std::string, std::set<std::string>> configs_;
    std::map<std::string, std::set<int>> pairs_;
    std::map<std::string, std::set<std::uint64_t>> sizes_;
    std::map<std::string, std::set<std::string>> metrics_;
};

// `metric` (e.g. "overlap_median") against message size, one series per configuration,
// at the study's base pair count: the median over the study's rounds, with their
// min..max as the spread when it ran in several.
std::vector<Series> metric_vs_size(const ResultIndex& index, const std::string& study,
                                   const std::string& metric);
// <measurement>_median over message sizes with <measurement>_min and _max as its
// spread; points whose median is missing (NaN) are left out.
std::vector<Series> spread_vs_size(const ResultIndex& index, const std::string& study,
                                   const std::string& measurement);

// The ping-pong benchmark's measurements (microbench/p2p/pingpong.cpp), in the order
// of its tables and figures.
struct PingpongMeasurement {
    std::string name;   // the metric without its statistic: "bibandwidth"
    std::string words;  // "bidirectional bandwidth"
    std::string unit;
    bool higher_is_better = false;
};
const std::vector<PingpongMeasurement>& pingpong_measurements();

// T_lat(config) - T_lat(simpi-none) per size (latency_median), for every configuration
// but the baseline; empty when the baseline was not run.
std::vector<Series> overhead_vs_size(const ResultIndex& index, const std::string& study);

// A progression study at one size: arrival_<p>_median against T_syn / T_lat(simpi-none).
// A run's factors p/100 are relative to its own T_lat; they are rescaled by
// T_lat(run) / T_lat(simpi-none) of the same size when both are known, so that every
// curve shares one x axis (the thesis' T_syn = 1.5..3 x T_lat of the run without
// progression).
struct ProgressionCurves {
    std::vector<Series> series;
    std::optional<double> baseline_latency;  // T_lat(simpi-none) at this size, us
    bool rescaled = false;
};
ProgressionCurves progression_curves(const ResultIndex& index, const std::string& study,
                                     std::uint64_t size);

// overlap_median against the pair count at one size, one series per configuration.
std::vector<Series> overlap_vs_pairs(const ResultIndex& index, const std::string& study,
                                     std::uint64_t size);

// footprint_after_mean(config) - footprint_after_mean(simpi-none) in KiB (helpers
// included; vmrss_after_mean for runs without it), at the base pair count (the mean
// over ranks: a rank's average cost). Empty without the baseline.
std::vector<std::pair<std::string, double>> memory_footprint(const ResultIndex& index,
                                                             const std::string& study);

// The factor p of a metric "arrival_<p>_median" (150 for 1.5 x), or nullopt.
std::optional<int> arrival_factor(const std::string& metric);

}  // namespace si::harness
