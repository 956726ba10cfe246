// Studies of the inefficiency-pattern benchmark (rma_patterns.hpp): its metric
// names, a figure per observation with the delay as its reference line, and the
// summary's table of blocking / nonblocking times.
#include "rma_patterns.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "derive.hpp"
#include "results.hpp"

namespace si::harness {
namespace {

Row pattern_row(const std::string& config, std::uint64_t size, const std::string& metric,
                double value) {
    Row r;
    r.suite = "rma-patterns";
    r.benchmark = "rma_patterns";
    r.study = "rma-patterns";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.ranks = 2;
    r.msg_size = size;
    r.metric = metric;
    r.unit = "us";
    r.value = value;
    r.run = "rma-patterns." + config;
    return r;
}

TEST(SibenchRmaPatterns, ParsesTheBenchmarksMetricNames) {
    const auto next = parse_pattern_metric("late_post_next_nonblocking_median");
    ASSERT_TRUE(next);
    EXPECT_EQ(next->observation, "late_post_next");
    EXPECT_EQ(next->epochs, "nonblocking");
    EXPECT_EQ(next->statistic, "median");
    EXPECT_EQ(parse_pattern_metric("late_unlock_delay_blocking_max")->observation,
              "late_unlock_delay");
    for (const char* other : {"overlapped_fence_put_median", "late_post_next_median",
                              "late_post_next_lazy_median", "footprint_mean"})
        EXPECT_FALSE(parse_pattern_metric(other)) << other;
}

TEST(SibenchRmaPatterns, ATableCellPerConfigurationAndAFigurePerObservation) {
    std::vector<Row> rows;
    for (const char* statistic : {"min", "median", "max"}) {
        const std::string s = statistic;
        rows.push_back(pattern_row("simpi-smart", 1048576, "wait_at_fence_target_blocking_" + s,
                                   1030));
        rows.push_back(pattern_row("simpi-smart", 1048576,
                                   "wait_at_fence_target_nonblocking_" + s, 60));
        rows.push_back(pattern_row("mpich", 1048576, "wait_at_fence_target_blocking_" + s, 1070));
        rows.push_back(pattern_row("simpi-smart", 1048576, "wait_at_fence_delay_blocking_" + s,
                                   1003));
        rows.push_back(pattern_row("simpi-smart", 1048576,
                                   "wait_at_fence_delay_nonblocking_" + s, 1005));
    }
    const ResultIndex index(rows);

    const std::string table = format_rma_pattern_tables(index);
    EXPECT_NE(table.find("rma-patterns: one-sided inefficiency patterns"), std::string::npos);
    EXPECT_NE(table.find("1030 / 60"), std::string::npos) << table;
    EXPECT_NE(table.find("1070 / -"), std::string::npos) << table;  // MPICH: blocking only
    EXPECT_NE(table.find("wait_at_fence_delay 1 MiB"), std::string::npos) << table;

    const auto figures = rma_pattern_figures(index);
    ASSERT_EQ(figures.size(), 1u);  // the delay is a line, not a figure
    const Figure& figure = figures.front();
    EXPECT_EQ(figure.name, "rma-patterns-wait-at-fence-target");
    ASSERT_TRUE(figure.reference_y);
    EXPECT_DOUBLE_EQ(*figure.reference_y, 1003);
    std::vector<std::string> labels;
    for (const auto& series : figure.series) labels.push_back(series.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"simpi-smart blocking", "mpich blocking",
                                                "simpi-smart nonblocking"}));
}

}  // namespace
}  // namespace si::harness
