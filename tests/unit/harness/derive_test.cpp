// Quantities sibench derives from result rows: overheads and footprints against
// simpi-none, progression curves, scalability series, and the summary table.
#include "derive.hpp"

#include <gtest/gtest.h>

#include "plot.hpp"
#include "summary.hpp"

namespace si::harness {
namespace {

Row make_row(const std::string& study, const std::string& config, int pairs, std::uint64_t size,
             const std::string& metric, double value) {
    Row r;
    r.study = study;
    r.benchmark = study;
    r.config = config;
    r.pairs = pairs;
    r.msg_size = size;
    r.metric = metric;
    r.value = value;
    r.unit = "us";
    return r;
}

constexpr std::uint64_t k64 = 64 << 10;
constexpr std::uint64_t k256 = 256 << 10;

TEST(SibenchDerive, LatencyOverheadAgainstSimpiNone) {
    const ResultIndex index({make_row("latency", "simpi-none", 1, k64, "latency_median", 10),
                             make_row("latency", "simpi-none", 1, k256, "latency_median", 20),
                             make_row("latency", "simpi-smart-h1", 1, k64, "latency_median", 11.5),
                             make_row("latency", "simpi-smart-h1", 1, k256, "latency_median", 19),
                             make_row("latency", "mpich", 1, k64, "latency_median", 8),
                             // a size the baseline lacks: no overhead there
                             make_row("latency", "mpich", 1, 1 << 20, "latency_median", 80)});
    const auto series = overhead_vs_size(index, "latency");
    ASSERT_EQ(series.size(), 2u);  // the baseline itself is left out
    EXPECT_EQ(series[0].label, "simpi-smart-h1");
    ASSERT_EQ(series[0].points.size(), 2u);
    EXPECT_DOUBLE_EQ(series[0].points[0].x, k64);
    EXPECT_DOUBLE_EQ(series[0].points[0].y, 1.5);
    EXPECT_DOUBLE_EQ(series[0].points[1].y, -1);
    EXPECT_EQ(series[1].label, "mpich");
    ASSERT_EQ(series[1].points.size(), 1u);
    EXPECT_DOUBLE_EQ(series[1].points[0].y, -2);
}

TEST(SibenchDerive, NoBaselineNoOverhead) {
    const ResultIndex index({make_row("latency", "mpich", 1, k64, "latency_median", 8)});
    EXPECT_TRUE(overhead_vs_size(index, "latency").empty());
    EXPECT_TRUE(memory_footprint(index, "latency").empty());
}

TEST(SibenchDerive, MemoryFootprint) {
    const ResultIndex index(
        {make_row("memory", "simpi-none", 1, 1 << 20, "vmrss_after_mean", 6000),
         make_row("memory", "simpi-smart-h1", 1, 1 << 20, "vmrss_after_mean", 6678),
         make_row("memory", "mpich", 1, 1 << 20, "vmrss_after_mean", 30000),
         make_row("memory", "mpich", 1, 1 << 20, "vmrss_after_max", 99999)});
    const auto footprint = memory_footprint(index, "memory");
    ASSERT_EQ(footprint.size(), 3u);
    EXPECT_EQ(footprint[0], (std::pair<std::string, double>{"simpi-none", 0}));
    EXPECT_EQ(footprint[1], (std::pair<std::string, double>{"simpi-smart-h1", 678}));
    EXPECT_EQ(footprint[2], (std::pair<std::string, double>{"mpich", 24000}));
}

TEST(SibenchDerive, MemoryFootprintCountsHelpersWhenMeasured) {
    // footprint_after (helpers' share included) wins over VmRSS when a run has both.
    const ResultIndex index(
        {make_row("memory", "simpi-none", 1, 1 << 20, "vmrss_after_mean", 6000),
         make_row("memory", "simpi-none", 1, 1 << 20, "footprint_after_mean", 5000),
         make_row("memory", "simpi-smart-h1", 1, 1 << 20, "vmrss_after_mean", 6100),
         make_row("memory", "simpi-smart-h1", 1, 1 << 20, "footprint_after_mean", 5900)});
    const auto footprint = memory_footprint(index, "memory");
    ASSERT_EQ(footprint.size(), 2u);
    EXPECT_EQ(footprint[1], (std::pair<std::string, double>{"simpi-smart-h1", 900}));
}

TEST(SibenchDerive, ArrivalFactor) {
    EXPECT_EQ(arrival_factor("arrival_150_median"), 150);
    EXPECT_EQ(arrival_factor("arrival_300_median"), 300);
    EXPECT_FALSE(arrival_factor("arrival_150_mean"));
    EXPECT_FALSE(arrival_factor("arrival__median"));
    EXPECT_FALSE(arrival_factor("latency_median"));
}

TEST(SibenchDerive, ProgressionCurvesRescaledToTheBaselineLatency) {
    const ResultIndex index(
        {make_row("progression", "simpi-none", 1, k64, "latency_median", 10),
         make_row("progression", "simpi-none", 1, k64, "arrival_150_median", 25),
         make_row("progression", "simpi-none", 1, k64, "arrival_200_median", 30),
         make_row("progression", "simpi-smart-h1", 1, k64, "latency_median", 12),
         make_row("progression", "simpi-smart-h1", 1, k64, "arrival_150_median", 12.5),
         make_row("progression", "simpi-smart-h1", 1, k64, "arrival_200_median", 12.6)});
    const auto curves = progression_curves(index, "progression", k64);
    EXPECT_TRUE(curves.rescaled);
    ASSERT_TRUE(curves.baseline_latency);
    EXPECT_DOUBLE_EQ(*curves.baseline_latency, 10);
    ASSERT_EQ(curves.series.size(), 2u);
    EXPECT_DOUBLE_EQ(curves.series[0].points[0].x, 1.5);
    EXPECT_DOUBLE_EQ(curves.series[0].points[1].x, 2.0);
    // smart's own T_lat is 12: its 1.5 x is 1.8 x the baseline's.
    EXPECT_DOUBLE_EQ(curves.series[1].points[0].x, 1.8);
    EXPECT_DOUBLE_EQ(curves.series[1].points[1].y, 12.6);
}

TEST(SibenchDerive, ProgressionWithoutBaselineKeepsOwnFactors) {
    const ResultIndex index({make_row("progression", "mpich", 1, k64, "arrival_160_median", 25)});
    const auto curves = progression_curves(index, "progression", k64);
    EXPECT_FALSE(curves.rescaled);
    ASSERT_EQ(curves.series.size(), 1u);
    EXPECT_DOUBLE_EQ(curves.series[0].points[0].x, 1.6);
}

TEST(SibenchDerive, ScalabilityOverPairs) {
    const ResultIndex index(
        {make_row("scalability", "simpi-smart-h2", 4, 32 << 10, "overlap_median", 70),
         make_row("scalability", "simpi-smart-h2", 1, 32 << 10, "overlap_median", 90),
         make_row("scalability", "simpi-smart-h2", 4, k256, "overlap_median", 50)});
    const auto series = overlap_vs_pairs(index, "scalability", 32 << 10);
    ASSERT_EQ(series.size(), 1u);
    ASSERT_EQ(series[0].points.size(), 2u);
    EXPECT_DOUBLE_EQ(series[0].points[0].x, 1);
    EXPECT_DOUBLE_EQ(series[0].points[1].y, 70);
}

TEST(SibenchSummary, TableOfOverlapOverheadFootprint) {
    PlotSpec plots;
    plots.summary_sizes = {k64, k256};
    const ResultIndex index(
        {make_row("overlap", "simpi-none", 1, k64, "overlap_median", 5),
         make_row("overlap", "simpi-smart-h1", 1, k64, "overlap_median", 95.25),
         make_row("latency", "simpi-none", 1, k64, "latency_median", 10),
         make_row("latency", "simpi-smart-h1", 1, k64, "latency_median", 10.5),
         make_row("memory", "simpi-none", 1, 1 << 20, "vmrss_after_mean", 6000),
         make_row("memory", "simpi-smart-h1", 1, 1 << 20, "vmrss_after_mean", 6500)});
    const Summary summary = summarize(index, plots);
    ASSERT_EQ(summary.lines.size(), 2u);
    EXPECT_EQ(summary.lines[1].config, "simpi-smart-h1");
    EXPECT_DOUBLE_EQ(*summary.lines[1].overlap[0], 95.25);
    EXPECT_FALSE(summary.lines[1].overlap[1]);  // no 256k
    EXPECT_DOUBLE_EQ(*summary.lines[1].overhead[0], 0.5);
    EXPECT_DOUBLE_EQ(*summary.lines[1].footprint, 500);
    const std::string text = format_summary(summary);
    EXPECT_NE(text.find("overlap 64k"), std::string::npos) << text;
    EXPECT_NE(text.find("95.2"), std::string::npos) << text;
    EXPECT_NE(text.find("+0.50"), std::string::npos) << text;
    EXPECT_NE(text.find("+500"), std::string::npos) << text;
    EXPECT_TRUE(summary.notes.empty());
    EXPECT_EQ(text.find("other studies"), std::string::npos) << text;
}

TEST(SibenchSummary, OverlapOfTheOtherOverlapStudies) {
    PlotSpec plots;
    plots.summary_sizes = {k64, k256};
    const ResultIndex index(
        {make_row("scalability", "simpi-smart-h1", 2, k256, "overlap_median", 71.5),
         make_row("scalability", "simpi-none", 2, k256, "overlap_median", 12),
         make_row("overlap-hydra", "simpi-smart-h1", 1, k64, "overlap_median", 93),
         make_row("overlap", "simpi-smart-h1", 1, k64, "overlap_median", 95),
         make_row("latency", "simpi-none", 1, k64, "latency_median", 10)});
    const Summary summary = summarize(index, plots);
    ASSERT_EQ(summary.other_overlap.size(), 3u);  // not overlap itself, not latency
    EXPECT_EQ(summary.other_overlap[0].study, "overlap-hydra");
    EXPECT_DOUBLE_EQ(*summary.other_overlap[0].overlap[0], 93);
    EXPECT_EQ(summary.other_overlap[2].study, "scalability");
    EXPECT_EQ(summary.other_overlap[2].config, "simpi-smart-h1");
    EXPECT_EQ(summary.other_overlap[2].pairs, 2);
    EXPECT_FALSE(summary.other_overlap[2].overlap[0]);  // no 64k
    EXPECT_DOUBLE_EQ(*summary.other_overlap[2].overlap[1], 71.5);
    const std::string text = format_summary(summary);
    EXPECT_NE(text.find("overlap in the other studies"), std::string::npos) << text;
    EXPECT_NE(text.find("71.5"), std::string::npos) << text;
    EXPECT_NE(text.find("overlap-hydra"), std::string::npos) << text;
    EXPECT_EQ(text.find("above 100 %"), std::string::npos) << text;
}

TEST(SibenchSummary, OverlapAbove100IsMarkedAsAnError) {
    PlotSpec plots;
    plots.summary_sizes = {k64};
    const ResultIndex index({make_row("overlap", "simpi-smart-h1", 1, k64, "overlap_median", 99),
                             make_row("overlap-hydra", "simpi-smart-h1", 1, k64,
                                       "overlap_median", 102)});
    const std::string text = format_summary(summarize(index, plots));
    EXPECT_NE(text.find("102.0!"), std::string::npos) << text;
    EXPECT_EQ(text.find("99.0!"), std::string::npos) << text;
    EXPECT_NE(text.find("!: above 100 %"), std::string::npos) << text;
}

TEST(SibenchPlot, ScriptsAndDataForOneFigure) {
    const ResultIndex index({make_row("overlap", "simpi-none", 1, k64, "overlap_median", 5),
                             make_row("overlap", "simpi-none", 1, k256, "overlap_median", 6),
                             make_row("overlap", "simpi-smart-h1", 1, k64, "overlap_median", 95)});
    std::vector<std::string> notes;
    const auto figures = thesis_figures(index, PlotSpec{}, notes);
    ASSERT_FALSE(figures.empty());
    EXPECT_EQ(figures[0].name, "overlap");
    const std::string data = figure_data(figures[0]);
    EXPECT_NE(data.find("# config: simpi-smart-h1\n65536 95\n"), std::string::npos) << data;
    EXPECT_NE(data.find("\n\n\n# config: simpi-smart-h1"), std::string::npos)
        << data;  // a new index
    const std::string script = figure_script(figures[0]);
    EXPECT_NE(script.find("set terminal pngcairo"), std::string::npos);
    EXPECT_NE(script.find("set output 'overlap.svg'"), std::string::npos);
    EXPECT_NE(script.find("set logscale x 2"), std::string::npos);
    EXPECT_NE(script.find("'64 KiB' 65536"), std::string::npos) << script;
    EXPECT_NE(script.find("index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1'"),
              std::string::npos)
        << script;
    // Studies not run are named in the notes.
    EXPECT_FALSE(notes.empty());
}

}  // namespace
}  // namespace si::harness
