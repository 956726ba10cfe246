// The cache-line floor (harness/src/floor.*): found in a sweep's rows, printed, set
// beside the ping-pong tables and the latency and rate figures; the quick profile
// measures it.
#include <gtest/gtest.h>

#include <algorithm>

#include "derive.hpp"
#include "floor.hpp"
#include "profile.hpp"
#include "summary.hpp"

namespace si::harness {
namespace {

Row row_of(const std::string& benchmark, const std::string& config, std::uint64_t size,
           const std::string& metric, double value, const std::string& unit, int round = 0) {
    Row r;
    r.suite = "p2p";
    r.benchmark = benchmark;
    r.study = benchmark;
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.msg_size = size;
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.pairs = 1;
    r.ranks = 2;
    r.round = round;
    return r;
}

std::vector<Row> floor_rows() {
    // Three rounds: the floor is the best any of them saw (50 ns, 100 M msg/s).
    return {row_of("floor", "simpi-none", 64, "latency_min", 60, "ns", 1),
            row_of("floor", "simpi-none", 64, "latency_min", 50, "ns", 2),
            row_of("floor", "simpi-none", 64, "latency_min", 150, "ns", 3),
            row_of("floor", "simpi-none", 64, "latency_median", 40, "ns", 1),  // not a min
            row_of("floor", "simpi-none", 64, "message_rate_max", 90e6, "msg/s", 1),
            row_of("floor", "simpi-none", 64, "message_rate_max", 100e6, "msg/s", 2),
            row_of("floor", "simpi-none", 64, "message_rate_max", 30e6, "msg/s", 3),
            row_of("floor", "simpi-none", 64, "message_rate_median", 200e6, "msg/s", 2)};
}

TEST(SibenchFloor, IsTheBestOfTheFloorRuns) {
    const auto floor = find_cache_line_floor(floor_rows());
    ASSERT_TRUE(floor);
    EXPECT_DOUBLE_EQ(floor->latency_us, 0.05);
    EXPECT_DOUBLE_EQ(floor->message_rate, 100e6);
    const std::string line = format_floor(*floor);
    EXPECT_NE(line.find("cache-line floor: 0.050 us one way, 100 M msg/s"), std::string::npos)
        << line;
}

TEST(SibenchFloor, NeedsBothMeasurements) {
    auto rows = floor_rows();
    std::erase_if(rows, [](const Row& r) { return r.metric == "message_rate_max"; });
    EXPECT_FALSE(find_cache_line_floor(rows));
    EXPECT_FALSE(
        find_cache_line_floor({row_of("pingpong", "mpich", 8, "latency_median", 0.4, "us")}));
}

TEST(SibenchFloor, RatesInFewDigits) {
    EXPECT_EQ(format_rate(110e6), "110 M msg/s");
    EXPECT_EQ(format_rate(27.96e6), "28.0 M msg/s");
    EXPECT_EQ(format_rate(5.4321e6), "5.43 M msg/s");
    EXPECT_EQ(format_rate(870e3), "870 k msg/s");
    EXPECT_EQ(format_rate(12), "12 msg/s");
}

TEST(SibenchFloor, PingpongTablesSaySmallSizesOverTheFloor) {
    auto rows = floor_rows();
    for (const char* config : {"simpi-none", "mpich"}) {
        const bool ours = std::string(config) == "simpi-none";
        rows.push_back(row_of("pingpong", config, 8, "latency_median", ours ? 0.5 : 0.4, "us"));
        rows.push_back(row_of("pingpong", config, 1 << 20, "latency_median", 80, "us"));
        // 8 B at 400 MB/s is 50 M msg/s: half the floor's rate.
        rows.push_back(row_of("pingpong", config, 8, "bandwidth_median", ours ? 400 : 800, "MB/s"));
        rows.push_back(row_of("pingpong", config, 8, "bibandwidth_median", 800, "MB/s"));
    }
    const ResultIndex index(rows);
    const auto tables = pingpong_tables(index, PlotSpec{});
    ASSERT_EQ(tables.size(), 3u);
    const std::string text = format_pingpong_tables(tables, find_cache_line_floor(rows));
    EXPECT_NE(text.find("8 B latency / the floor's: simpi-none 10, mpich 8\n"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("1 MiB latency / the floor's"), std::string::npos) << "large: no floor";
    EXPECT_NE(text.find("8 B messages per second / the floor's: simpi-none 0.5, mpich 1\n"),
              std::string::npos)
        << text;
    // Both directions: each way is half of the 100 M msg/s the bytes make.
    EXPECT_NE(text.find("8 B messages per second each way / the floor's: simpi-none 0.5"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("cache-line floor: 0.050 us"), std::string::npos) << text;
    // Without the floor, the tables as before.
    EXPECT_EQ(format_pingpong_tables(tables).find("floor"), std::string::npos);
}

TEST(SibenchFloor, MarksLatencyAndRateFigures) {
    std::vector<Figure> figures(4);
    figures[0].name = "pingpong-latency";
    figures[1].name = "pingpong-bandwidth";
    figures[2].name = "osu-osu_mbw_mr-message-rate";
    figures[2].ylabel = "message rate (msg/s), mean";
    figures[3].name = "progression-64k";
    figures[3].reference_y = 9.0;  // its own line stays
    mark_floor(figures, CacheLineFloor{0.05, 100e6});
    ASSERT_TRUE(figures[0].reference_y);
    EXPECT_DOUBLE_EQ(*figures[0].reference_y, 0.05);
    EXPECT_NE(figures[0].reference_label.find("cache-line floor"), std::string::npos);
    EXPECT_FALSE(figures[1].reference_y);
    ASSERT_TRUE(figures[2].reference_y);
    EXPECT_DOUBLE_EQ(*figures[2].reference_y, 100e6);
    EXPECT_DOUBLE_EQ(*figures[3].reference_y, 9.0);
}

TEST(SibenchFloor, QuickAndOsuProfilesMeasureItBeforePingpong) {
    for (const char* name : {"quick", "osu-side-by-side"}) {
        SCOPED_TRACE(name);
        const Profile p = parse_profile_file(find_profile(name));
        const auto floor = std::find_if(p.studies.begin(), p.studies.end(),
                                        [](const Study& s) { return s.benchmark == "floor"; });
        ASSERT_NE(floor, p.studies.end());
        EXPECT_EQ(floor->configs.size(), 1u);
        EXPECT_EQ(floor->max_ranks, 2);
        for (const auto& run : expand_matrix(p)) {
            if (run.benchmark == "floor") {
                EXPECT_EQ(run.ranks(), 2) << run.id;
            }
        }
    }
}

}  // namespace
}  // namespace si::harness
