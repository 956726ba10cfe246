// The thesis' figures: sibench writes each as <name>.dat (gnuplot data blocks, one per
// configuration) and <name>.gp (a script drawing <name>.png with pngcairo and
// <name>.svg), then runs gnuplot on the script. The .dat and .gp stay, so a figure
// can be restyled by hand and redrawn with `gnuplot <name>.gp`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "derive.hpp"
#include "profile.hpp"

namespace si::harness {

struct Figure {
    std::string name;  // file stem: overlap, progression-64k, ...
    std::string title;
    std::string xlabel;
    std::string ylabel;
    bool bars = false;       // one bar per series (its first point's y), labelled by series
    std::string bar_format = "%.0f";  // gnuplot sprintf format of the value above a bar
    bool x_is_size = false;  // message sizes: log2 axis labelled in KiB / MiB
    bool x_is_count = false; // rank counts: log2 axis, a tic at each count
    bool log_y = false;
    std::vector<Series> series;
    std::optional<double> reference_y;  // a dashed horizontal line
    std::string reference_label;
};

// The figures the results allow, in a fixed order; `notes` says which ones could not
// be drawn and why (study not run, no baseline).
std::vector<Figure> thesis_figures(const ResultIndex& index, const PlotSpec& plots,
                                   std::vector<std::string>& notes);

// A figure over message sizes (log2 axis in KiB / MiB, where size 0 has no place).
Figure size_figure(std::string name, std::string title, std::string ylabel,
                   std::vector<Series> series, bool log_y);

// File contents, separate from drawing so that tests can check them.
std::string figure_data(const Figure& figure);
std::string figure_script(const Figure& figure);

// Runs gnuplot on <dir>/<script> in <dir>; false (and why, in `notes`) if gnuplot
// is missing or fails.
bool run_gnuplot(const std::string& dir, const std::string& script,
                 std::vector<std::string>& notes);

// Writes <dir>/<name>.dat and .gp for each figure and runs gnuplot in <dir> (when
// installed). Returns the images drawn; problems go to `notes`.
std::vector<std::string> draw_figures(const std::string& dir, const std::vector<Figure>& figures,
                                      std::vector<std::string>& notes);

}  // namespace si::harness
