// The table printed at the end of a sweep and kept as summary.txt: overlap and
// latency overhead at a few sizes for every configuration, plus memory footprint,
// and the overlap of the scalability study at each of its pair counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "derive.hpp"
#include "floor.hpp"
#include "profile.hpp"

namespace si::harness {

struct SummaryLine {
    std::string config;
    std::vector<std::optional<double>> overlap;         // %, per size; NaN: no T_syn was valid
    std::vector<std::optional<double>> overlap_at_lat;  // %, at T_syn = T_lat
    std::vector<std::optional<double>> floor;           // %, the sender-delay floor
    std::vector<std::optional<double>> overhead;        // us, per size
    std::optional<double> footprint;                    // KiB
};

// Overlap of one configuration at one pair count of another study that measured
// overlap (the oversubscribed scalability study, another launcher or binding),
// per summary size.
struct StudyLine {
    std::string study;
    std::string config;
    int pairs = 0;
    std::vector<std::optional<double>> overlap;  // %, per size; NaN: no T_syn was valid
};

struct Summary {
    std::vector<std::uint64_t> sizes;
    std::vector<SummaryLine> lines;
    std::vector<StudyLine> other_overlap;  // studies in name order
    std::vector<std::string> notes;        // what could not be derived, and why
};

Summary summarize(const ResultIndex& index, const PlotSpec& plots);

// A fixed-width text table, then the notes.
std::string format_summary(const Summary& summary);

// One measurement of a ping-pong study (PlotSpec::pingpong_like): its sizes by configuration,
// each cell the median over the rounds with their min..max, and each of this runtime's
// configurations over MPICH (ratio of the medians).
struct PingpongTable {
    std::string study;
    PingpongMeasurement measurement;
    int rounds = 1;                    // the most rounds a configuration ran
    std::vector<std::string> configs;  // legend order
    std::vector<std::uint64_t> sizes;  // plots.pingpong_sizes measured, and the largest
    std::vector<std::vector<std::optional<Spread>>> cells;   // [size][config]
    std::vector<std::string> ratio_configs;                  // simpi-* when MPICH ran
    std::vector<std::vector<std::optional<double>>> ratios;  // [size][ratio config]
};

// The tables of the measurements each ping-pong study has; empty when none ran.
std::vector<PingpongTable> pingpong_tables(const ResultIndex& index, const PlotSpec& plots);
// With a floor, each table is followed by its small sizes' (up to 1 KiB) medians over
// the cache-line floor: latency / the floor's, messages per second (each way) / the
// floor's rate.
std::string format_pingpong_tables(const std::vector<PingpongTable>& tables,
                                   const std::optional<CacheLineFloor>& floor = std::nullopt);

// The tables of a study of microbench/p2p/blocked (found by its metrics): per
// blocking call and configuration, the blocked thread's CPU share and the wake
// delay; empty without such a study.
std::string format_blocked_tables(const ResultIndex& index);

// summary.csv: per study, configuration, pair count, size and measurement (every
// <measurement>_median metric), the median over the rounds with their min..max, and
// the median over MPICH's of the same study, pairs and size; each row with the
// context of the runs behind it (benchmark, runtime, mode, helpers, ranks, unit).
const std::vector<std::string>& summary_csv_columns();
void write_summary_csv(const std::string& path, const ResultIndex& index);

}  // namespace si::harness
