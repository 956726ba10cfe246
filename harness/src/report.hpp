// sibench report: every published result of the thesis and of the papers beside
// it, next to what a run directory measured with the same template. The published
// numbers (harness/report/published.csv, each with its line in the seed) and what
// each section compares (harness/report/sections.toml) are data; the report is
// generated from them and from the run's results, never written by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace si::harness {

// One number (or claim, or setting) a paper states.
struct PublishedValue {
    std::string result;  // the section's id: thesis-4.7, pef-overlap, ...
    std::string source;  // the seed file
    int line = 0;
    std::string curve;  // the configuration as the paper names it; "setting" for the setting
    std::string x;      // size, scenario, rank count... or empty
    std::optional<double> value;
    std::string unit;  // %, us, x, ...; claim, setting or missing when there is no number
    std::string what;
};

std::vector<PublishedValue> read_published(const std::string& path);

// A published number and the measurement that stands for it here.
struct Comparison {
    std::string curve, x;       // as in published.csv
    std::string config;         // this suite's configuration
    std::uint64_t size = 0;     // message size, or 0
};

struct ReportSection {
    std::string id, title, figure;  // figure: where it is published, e.g. "thesis Fig. 4.7"
    // What this suite measured for it: a study of the run and one of its metrics
    // ("a/b": the ratio of two metrics' medians, b at the study's largest size
    // when only that size has it; "counter:<name>": a runtime
    // counter summed over the study's runs), less `subtract`'s value when set
    // (an overhead against a baseline configuration), or with `relative` set the
    // gain over that configuration in % ((its value - this one) / its value).
    std::string study, metric, unit, subtract, relative;
    std::vector<std::string> also;  // more metrics of the same runs, shown as they are
    bool higher_is_better = true;
    std::vector<std::uint64_t> sizes;  // columns of the measured table (0: none)
    std::vector<std::string> plots;    // figure stems in the run's plots/
    std::vector<Comparison> compare;
    // A measured value within this of the published one reproduces it: points for
    // a percentage, a fraction of the published value otherwise.
    double tolerance = 0.25;
    std::string setting;  // this suite's setting
    std::string differs;  // why the numbers differ where they do
    std::string absent;   // why the study may not have run here
};

std::vector<ReportSection> read_sections(const std::string& path);

struct ReportCounts {
    int sections = 0;
    int measured = 0;    // with a measured value from the run
    int reproduced = 0;  // every comparison within tolerance
};

// Writes <out_dir>/report.md and copies the figures it shows into
// <out_dir>/figures; returns what the report holds.
// The default published-values and sections files (the source tree's harness/report).
std::string report_data(const std::string& name);

ReportCounts write_report(const std::string& run_dir, const std::vector<PublishedValue>& published,
                          const std::vector<ReportSection>& sections, const std::string& out_dir);

// <out_dir>/report.pdf from the report.md write_report left there (cmark-gfm and
// WeasyPrint, report_pdf.cpp); "" when written, else why not.
std::string write_report_pdf(const std::string& out_dir);

}  // namespace si::harness
