// The table printed at the end of a sweep and kept as summary.txt: overlap and
// latency overhead at a few sizes for every configuration, plus memory footprint.
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
    std::vector<std::optional<double>> overlap;   // %, per size
    std::vector<std::optional<double>> overhead;  // us, per size
    std::optional<double> footprint;              // KiB
};

struct Summary {
    std::vector<std::uint64_t> sizes;
    std::vector<SummaryLine> lines;
    std::vector<std::string> notes;  // what could not be derived, and why
};

Summary summarize(const ResultIndex& index, const PlotSpec& plots);

// A fixed-width text table, then the notes.
std::string format_summary(const Summary& summary);

}  // namespace si::harness
