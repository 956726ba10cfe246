// Figures and summary of the OSU and IMB rows: per study, benchmark and job size,
// the main measurement (latency, time, bandwidth, message rate; for OSU's
// nonblocking collectives the overall time and the overlap) against message size,
// one line per configuration. NPB's rows go with the application studies (apps.hpp).
#pragma once

#include <string>
#include <vector>

#include "plot.hpp"
#include "results.hpp"

namespace si::harness {

// The metrics drawn, in this order of preference; each found gets a figure.
const std::vector<std::string>& suite_plotted_metrics();

// One figure per (study, benchmark, ranks, plotted metric) of the osu and imb rows:
// value against message size (sizes above 0: the axis is logarithmic), the median
// over repeated rounds with their min..max; a benchmark without sizes (Barrier)
// gets bars per configuration. Names: <study>-<benchmark>[-<metric>][-r<ranks>],
// the parts in brackets only when the study has several.
std::vector<Figure> suite_figures(const std::vector<Row>& rows);

// A table per figure: a few sizes (the smallest, 1 KiB, 64 KiB, 1 MiB, the largest)
// by configuration; then any IMB defects.
std::string format_suite_summary(const std::vector<Row>& rows);

}  // namespace si::harness
