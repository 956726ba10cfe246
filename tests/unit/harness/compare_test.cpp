// The regression gate: directions, tolerances, missing rows, exit status.
#include "compare.hpp"

#include <gtest/gtest.h>

namespace si::harness {
namespace {

Row make_row(const std::string& metric, double value, const std::string& unit,
             std::uint64_t size = 65536, const std::string& mode = "smart") {
    Row r;
    r.suite = "p2p";
    r.benchmark = "overlap";
    r.runtime = "simpi";
    r.mode = mode;
    r.helpers = mode == "smart" ? 1 : 0;
    r.nodes = 2;
    r.ranks_per_node = 1;
    r.msg_size = size;
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    return r;
}

const CompareOptions kDefaults;

CompareReport run(const std::vector<Row>& ref, const std::vector<Row>& cur,
                  const std::string& tolerance = "", bool fail_on_missing = false) {
    CompareOptions options;
    options.tolerances = parse_tolerances(tolerance);
    options.fail_on_missing = fail_on_missing;
    return compare_rows(ref, cur, options);
}

TEST(SibenchCompare, Directions) {
    EXPECT_EQ(direction_of(make_row("latency_median", 1, "us")), Direction::lower_is_better);
    EXPECT_EQ(direction_of(make_row("time_with_work_median", 1, "us")), Direction::lower_is_better);
    EXPECT_EQ(direction_of(make_row("arrival_150_median", 1, "us")), Direction::lower_is_better);
    EXPECT_EQ(direction_of(make_row("vmrss_after_mean", 1, "KiB")), Direction::lower_is_better);
    EXPECT_EQ(direction_of(make_row("overlap_median", 1, "%")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("overlap_at_lat_median", 1, "%")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("bandwidth_median", 1, "MB/s")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("bibandwidth_median", 1, "x")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("mops_median", 1, "x")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("message_rate_mean", 1, "msg/s")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("message_rate_max", 1, "x")), Direction::higher_is_better);
    EXPECT_EQ(direction_of(make_row("widgets_median", 1, "count")), Direction::unchecked);
    EXPECT_EQ(direction_of(make_row("cpu_share_recv_median", 1, "%")), Direction::unchecked);
}

TEST(SibenchCompare, LatencyRegressionIsRelative) {
    const auto ref = std::vector{make_row("latency_median", 100, "us")};
    EXPECT_EQ(run(ref, {make_row("latency_median", 109, "us")}).regressions, 0);  // < 10%
    const auto worse = run(ref, {make_row("latency_median", 111, "us")});
    EXPECT_EQ(worse.regressions, 1);
    EXPECT_EQ(worse.exit_code(kDefaults), 1);
    const auto better = run(ref, {make_row("latency_median", 80, "us")});
    EXPECT_EQ(better.regressions, 0);
    EXPECT_EQ(better.improvements, 1);
    EXPECT_EQ(better.exit_code(kDefaults), 0);
}

TEST(SibenchCompare, OverlapRegressionIsInPoints) {
    const auto ref = std::vector{make_row("overlap_median", 90, "%")};
    EXPECT_EQ(run(ref, {make_row("overlap_median", 86, "%")}).regressions, 0);  // 4 points
    EXPECT_EQ(run(ref, {make_row("overlap_median", 84, "%")}).regressions, 1);  // 6 points
    // Higher overlap is better: a rise is no regression, whatever its size.
    EXPECT_EQ(run(ref, {make_row("overlap_median", 99, "%")}).improvements, 1);
    // Direction matters: the same 6-point change of a latency is within 10% of 90.
    EXPECT_EQ(run({make_row("latency_median", 90, "us")}, {make_row("latency_median", 96, "us")})
                  .regressions,
              0);
}

TEST(SibenchCompare, RegressionDetectedInBothDirections) {
    // Lower is better for latency, higher for bandwidth: each fails in its own direction.
    const auto lat =
        run({make_row("latency_median", 10, "us")}, {make_row("latency_median", 20, "us")});
    EXPECT_EQ(lat.regressions, 1);
    const auto bw = run({make_row("bandwidth_median", 1000, "MB/s")},
                        {make_row("bandwidth_median", 500, "MB/s")});
    EXPECT_EQ(bw.regressions, 1);
    const auto bw_up = run({make_row("bandwidth_median", 1000, "MB/s")},
                           {make_row("bandwidth_median", 2000, "MB/s")});
    EXPECT_EQ(bw_up.regressions, 0);
}

TEST(SibenchCompare, Tolerances) {
    const auto set = parse_tolerances("overlap=2,latency=50%,arrival=1,default=1%");
    EXPECT_DOUBLE_EQ(set.for_row(make_row("overlap_median", 1, "%")).amount, 2);
    EXPECT_FALSE(set.for_row(make_row("overlap_median", 1, "%")).relative);
    EXPECT_DOUBLE_EQ(set.for_row(make_row("overlap_at_lat_median", 1, "%")).amount, 2);  // family
    EXPECT_TRUE(set.for_row(make_row("latency_median", 1, "us")).relative);
    EXPECT_DOUBLE_EQ(set.for_row(make_row("latency_median", 1, "us")).amount, 0.5);
    EXPECT_DOUBLE_EQ(set.for_row(make_row("arrival_150_median", 1, "us")).amount, 1);
    EXPECT_DOUBLE_EQ(set.for_row(make_row("time_with_work_median", 1, "us")).amount, 0.01);
    // An exact measurement beats its family.
    const auto exact = parse_tolerances("overlap=2,overlap_at_lat=9");
    EXPECT_DOUBLE_EQ(exact.for_row(make_row("overlap_at_lat_median", 1, "%")).amount, 9);
    // Defaults: 5 points for %, 10% for the rest.
    const ToleranceSet none = parse_tolerances("");
    EXPECT_DOUBLE_EQ(none.for_row(make_row("overlap_median", 1, "%")).amount, 5);
    EXPECT_DOUBLE_EQ(none.for_row(make_row("latency_median", 1, "us")).amount, 0.10);
    EXPECT_EQ(run({make_row("overlap_median", 90, "%")}, {make_row("overlap_median", 87, "%")},
                  "overlap=2")
                  .regressions,
              1);
    EXPECT_EQ(run({make_row("latency_median", 100, "us")}, {make_row("latency_median", 140, "us")},
                  "latency=50%")
                  .regressions,
              0);
    for (const char* bad : {"overlap", "overlap=", "=5", "overlap=five", "latency=-1%"}) {
        try {
            parse_tolerances(bad);
            FAIL() << bad;
        } catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find("--tolerance"), std::string::npos)
                << error.what();
        }
    }
}

TEST(SibenchCompare, MatchingKeysAndMissingRows) {
    const std::vector<Row> ref = {make_row("latency_median", 10, "us", 65536),
                                  make_row("latency_median", 20, "us", 262144),
                                  make_row("latency_median", 10, "us", 65536, "none")};
    // Other mode, other size: different rows.
    const std::vector<Row> cur = {make_row("latency_median", 10, "us", 65536),
                                  make_row("latency_median", 99, "us", 65536, "thread")};
    const auto report = run(ref, cur);
    EXPECT_EQ(report.compared, 1);
    EXPECT_EQ(report.missing, 2);
    EXPECT_EQ(report.extra, 1);
    EXPECT_EQ(report.exit_code(kDefaults), 0);
    CompareOptions strict;
    strict.fail_on_missing = true;
    EXPECT_EQ(report.exit_code(strict), 1);
    EXPECT_EQ(format_report(report, false).find("  missing"), std::string::npos);
    const std::string text = format_report(report, false, true);
    EXPECT_NE(text.find("  missing"), std::string::npos) << text;
    // Nothing in common: the gate cannot pass.
    EXPECT_EQ(run(ref, {make_row("latency_median", 1, "us", 1)}).exit_code(kDefaults), 1);
}

TEST(SibenchCompare, OnlyTheChosenStatisticsAndMedianOfDuplicates) {
    const std::vector<Row> ref = {make_row("latency_median", 10, "us"),
                                  make_row("latency_max", 10, "us")};
    // The max is far worse, but only medians count by default. Two current rows of one
    // key (the same configuration in two studies) count with their median.
    const std::vector<Row> cur = {make_row("latency_median", 10, "us"),
                                  make_row("latency_median", 10.6, "us"),
                                  make_row("latency_max", 50, "us")};
    const auto report = run(ref, cur);
    EXPECT_EQ(report.compared, 1);
    EXPECT_EQ(report.regressions, 0);
    CompareOptions all;
    all.statistics = {"all"};
    EXPECT_EQ(compare_rows(ref, cur, all).regressions, 1);
    const auto text = format_report(compare_rows(ref, cur, all), false);
    EXPECT_NE(text.find("REGRESSION"), std::string::npos) << text;
    EXPECT_NE(text.find("latency_max"), std::string::npos) << text;
}

Row with_round(Row row, int round) {
    row.round = round;
    return row;
}

TEST(SibenchCompare, RelativeToBaselinesInTheSameRun) {
    // A loaded run: every configuration twice as slow, overlap unchanged.
    const auto run_rows = [](double load) {
        return std::vector{
            make_row("latency_median", 20 * load, "us", 65536, "smart"),
            make_row("latency_median", 10 * load, "us", 65536, "none"),
            make_row("overlap_median", 90, "%", 65536, "smart"),
            make_row("overlap_median", 40, "%", 65536, "none"),
        };
    };
    const std::vector<std::string> baselines = {"simpi-none"};
    const auto quiet = relative_to_baselines(run_rows(1), baselines);
    ASSERT_EQ(quiet.size(), 2u) << "the baseline's own rows are left out";
    EXPECT_EQ(quiet[0].benchmark, "overlap/simpi-none");
    EXPECT_DOUBLE_EQ(quiet[0].value, 2.0);
    EXPECT_EQ(quiet[0].unit, "x");
    EXPECT_DOUBLE_EQ(quiet[1].value, 50.0) << "%-metrics in points above the baseline";
    EXPECT_EQ(quiet[1].unit, "%");
    // Absolute figures flag the loaded run; the ratios do not.
    EXPECT_EQ(run(run_rows(1), run_rows(2)).regressions, 2);
    EXPECT_EQ(run(quiet, relative_to_baselines(run_rows(2), baselines)).regressions, 0);
    // smart's own slowdown does show.
    auto slower = run_rows(1);
    slower[0].value = 30;
    EXPECT_EQ(run(quiet, relative_to_baselines(slower, baselines)).regressions, 1);
}

TEST(SibenchCompare, BaselinesInOrderAndRounds) {
    Row mpich = make_row("latency_median", 8, "us", 65536, "default");
    mpich.runtime = "mpich";
    // One host is one node to MPICH, two simulated ones to this runtime: the same ranks.
    mpich.nodes = 1;
    mpich.ranks_per_node = 2;
    const std::vector<Row> rows = {
        with_round(make_row("latency_median", 12, "us", 65536, "smart"), 1),
        with_round(make_row("latency_median", 30, "us", 65536, "smart"), 2),
        with_round(make_row("latency_median", 10, "us", 65536, "none"), 1),
        with_round(make_row("latency_median", 20, "us", 65536, "none"), 2),
        mpich,
    };
    const auto relative = relative_to_baselines(rows, {"simpi-none", "mpich"});
    ASSERT_EQ(relative.size(), 4u);
    // smart against none, round by round; none against MPICH (no rounds: its median).
    EXPECT_EQ(relative[0].benchmark, "overlap/simpi-none");
    EXPECT_DOUBLE_EQ(relative[0].value, 1.2);
    EXPECT_DOUBLE_EQ(relative[1].value, 1.5);
    EXPECT_EQ(relative[2].benchmark, "overlap/mpich");
    EXPECT_DOUBLE_EQ(relative[2].value, 10.0 / 8);
    EXPECT_DOUBLE_EQ(relative[3].value, 20.0 / 8);
    // Without MPICH's row, none has no baseline and is left out.
    const auto without = relative_to_baselines({rows[0], rows[2]}, {"simpi-none", "mpich"});
    ASSERT_EQ(without.size(), 1u);
    EXPECT_EQ(without[0].benchmark, "overlap/simpi-none");
}

}  // namespace
}  // namespace si::harness
