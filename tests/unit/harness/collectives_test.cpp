// Studies of the nonblocking-collective benchmark (collectives.hpp): its metric names,
// the studies found by their rows' suite, the figures per collective and the summary's
// tables; and the shipped profiles' collective studies (4 ranks, two simulated nodes).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collectives.hpp"
#include "derive.hpp"
#include "launch.hpp"
#include "profile.hpp"
#include "results.hpp"

namespace si::harness {
namespace {

Row coll_row(const std::string& config, std::uint64_t size, const std::string& metric,
             double value) {
    Row r;
    r.suite = "collectives";
    r.benchmark = "coll_overlap";
    r.study = "coll";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.pairs = 2;
    r.ranks = 4;
    r.msg_size = size;
    r.metric = metric;
    r.unit = metric.starts_with("overlap") ? "%" : "us";
    r.value = value;
    r.run = "coll." + config + ".p2";
    return r;
}

TEST(SibenchCollectives, ParsesTheBenchmarksMetricNames) {
    const auto overlap = parse_collective_metric("overlap_ibcast_100_median");
    ASSERT_TRUE(overlap);
    EXPECT_EQ(overlap->measurement, "overlap");
    EXPECT_EQ(overlap->collective, "ibcast");
    EXPECT_EQ(overlap->percent, 100);
    EXPECT_EQ(overlap->statistic, "median");
    const auto latency = parse_collective_metric("latency_iallreduce_max");
    ASSERT_TRUE(latency);
    EXPECT_EQ(latency->collective, "iallreduce");
    EXPECT_FALSE(latency->percent);
    EXPECT_EQ(parse_collective_metric("total_ialltoall_150_min")->percent, 150);
    // Other benchmarks' metrics: the p2p overlap, progression's arrival, ping-pong.
    for (const char* other : {"overlap_median", "overlap_at_lat_median", "arrival_150_median",
                              "latency_median", "bandwidth_max", "latency_ibcast_100_median",
                              "overlap_ibcast_median", "cpu_share_recv_median"})
        EXPECT_FALSE(parse_collective_metric(other)) << other;
}

TEST(SibenchCollectives, FindsStudiesByTheirRowsSuite) {
    std::vector<Row> rows = {coll_row("simpi-none", 65536, "latency_ibcast_median", 20),
                             coll_row("simpi-none", 65536, "latency_ialltoall_median", 60)};
    Row p2p = coll_row("simpi-none", 65536, "latency_median", 9);
    p2p.suite = "p2p";
    p2p.study = "latency";
    rows.push_back(p2p);
    const ResultIndex index(rows);
    EXPECT_EQ(collective_studies(index), (std::vector<std::string>{"coll"}));
    EXPECT_EQ(collectives_of(index, "coll"), (std::vector<std::string>{"ialltoall", "ibcast"}));
}

std::vector<Row> two_configs() {
    std::vector<Row> rows;
    for (const char* config : {"simpi-smart-h1", "mpich"}) {
        const double better = std::string(config) == "mpich" ? 0 : 40;
        for (std::uint64_t size : {65536u, 1048576u}) {
            rows.push_back(coll_row(config, size, "latency_ibcast_median", size / 1000.0));
            rows.push_back(coll_row(config, size, "blocking_ibcast_median", size / 900.0));
            rows.push_back(coll_row(config, size, "overlap_ibcast_100_min", better - 5));
            rows.push_back(coll_row(config, size, "overlap_ibcast_100_median", better));
            rows.push_back(coll_row(config, size, "overlap_ibcast_100_max", better + 5));
        }
        rows.push_back(coll_row(config, 0, "latency_ibarrier_median", 3.5));
        rows.push_back(coll_row(config, 0, "blocking_ibarrier_median", 3.25));
        rows.push_back(coll_row(config, 0, "overlap_ibarrier_100_median", 12));
    }
    return rows;
}

TEST(SibenchCollectives, OverlapAndLatencyFiguresPerCollective) {
    const ResultIndex index(two_configs());
    std::vector<std::string> notes;
    const auto figures = collective_figures(index, notes);
    std::vector<std::string> names;
    for (const auto& figure : figures) names.push_back(figure.name);
    EXPECT_EQ(names, (std::vector<std::string>{"coll-ibcast-overlap", "coll-ibcast-latency"}));
    // The barrier has no size on a logarithmic axis: a note, no figure.
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("coll-ibarrier"), std::string::npos) << notes[0];
    const auto& overlap = figures[0];
    EXPECT_TRUE(overlap.x_is_size);
    EXPECT_FALSE(overlap.log_y);
    EXPECT_NE(overlap.title.find("4 ranks"), std::string::npos) << overlap.title;
    ASSERT_EQ(overlap.series.size(), 2u);  // one line per configuration
    EXPECT_EQ(overlap.series[0].label, "simpi-smart-h1");
    ASSERT_EQ(overlap.series[0].points.size(), 2u);
    EXPECT_DOUBLE_EQ(overlap.series[0].points[1].y, 40);
    EXPECT_EQ(overlap.series[0].points[1].low, 35);  // the benchmark's min..max
    EXPECT_EQ(overlap.series[0].points[1].high, 45);
    EXPECT_TRUE(figures[1].log_y);
    EXPECT_DOUBLE_EQ(figures[1].series[1].points[0].y, 65.536);
}

TEST(SibenchCollectives, NoOverlapFigureWithoutFactorOne) {
    const ResultIndex index({coll_row("mpich", 65536, "latency_igather_median", 30),
                             coll_row("mpich", 65536, "overlap_igather_150_median", 20)});
    std::vector<std::string> notes;
    const auto figures = collective_figures(index, notes);
    ASSERT_EQ(figures.size(), 1u);
    EXPECT_EQ(figures[0].name, "coll-igather-latency");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("--work-factor"), std::string::npos) << notes[0];
}

TEST(SibenchCollectives, TablesOfOverlapAndLatency) {
    const ResultIndex index(two_configs());
    const std::string text = format_collective_tables(index, {1048576});
    EXPECT_NE(text.find("coll (4 ranks): overlap of the nonblocking collectives"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("simpi-smart-h1  mpich"), std::string::npos) << text;
    // The barrier at 0 B, the others at the sizes asked for only.
    EXPECT_NE(text.find("ibarrier 0 B"), std::string::npos) << text;
    EXPECT_NE(text.find("ibcast 1 MiB"), std::string::npos) << text;
    EXPECT_EQ(text.find("ibcast 64 KiB"), std::string::npos) << text;
    EXPECT_NE(text.find("40.0"), std::string::npos) << text;
    EXPECT_NE(text.find("1049 / 1165"), std::string::npos) << text;  // I-collective / blocking
    EXPECT_NE(text.find("3.50 / 3.25"), std::string::npos) << text;
    // No collective study, no table.
    Row p2p = coll_row("mpich", 65536, "latency_median", 9);
    p2p.suite = "p2p";
    EXPECT_TRUE(format_collective_tables(ResultIndex({p2p}), {65536}).empty());
    EXPECT_EQ(text.find("above 100 %"), std::string::npos) << text;
}

TEST(SibenchCollectives, OverlapAbove100IsMarkedAsAnError) {
    std::vector<Row> rows = two_configs();
    for (Row& row : rows)
        if (row.metric == "overlap_ibcast_100_median" && row.config == "simpi-smart-h1" &&
            row.msg_size == 1048576)
            row.value = 118;
    const std::string text = format_collective_tables(ResultIndex(rows), {1048576});
    EXPECT_NE(text.find("118.0!"), std::string::npos) << text;
    EXPECT_NE(text.find("!: above 100 %"), std::string::npos) << text;
}

// The "collectives" studies; quick's "collectives-idle-root" runs one pair instead.
TEST(SibenchCollectives, ShippedStudiesRunFourRanksOnTwoSimulatedNodes) {
    for (const char* name : {"quick", "full", "smoke"}) {
        SCOPED_TRACE(name);
        const auto runs = expand_matrix(parse_profile_file(find_profile(name)));
        int collective_runs = 0;
        for (const auto& run : runs) {
            if (run.benchmark != "coll_overlap" || run.study != "collectives") continue;
            ++collective_runs;
            EXPECT_EQ(run.ranks(), 4) << run.id;
            if (run.config.runtime != Runtime::simpi) continue;
            const Command command = local_command(run, LaunchSite{"/b/bin", "", ""}, "x.csv");
            EXPECT_NE(std::find(command.env.begin(), command.env.end(),
                                std::pair<std::string, std::string>{"SI_NODE_SIZE", "2"}),
                      command.env.end())
                << run.id;
        }
        EXPECT_GE(collective_runs, 3);
    }
}

}  // namespace
}  // namespace si::harness
