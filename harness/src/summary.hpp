// The table printed at the end of a sweep and kept as summary.txt: overlap and
// latency overhead at a few sizes for every configuration, plus memory footprint,
// and the overlap of the scalability study at each of its pair counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "derive.hpp"
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

}  // namespace si::harness
