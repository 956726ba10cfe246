// The OSU and IMB summary's side-by-side columns: this runtime over the faster of
// MPICH and Open MPI per size (the lower time, the higher rate), the cache-line floor
// under the latency and rate tables, and the profile that runs OSU side by side.
#include <gtest/gtest.h>

#include <algorithm>

#include "profile.hpp"
#include "suites/suite_figures.hpp"

namespace si::harness {
namespace {

Row osu_row(const std::string& benchmark, const std::string& config, std::uint64_t size,
            const std::string& metric, double value, const std::string& unit) {
    Row r;
    r.suite = "osu";
    r.benchmark = benchmark;
    r.study = "osu";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.msg_size = size;
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.ranks = 2;
    return r;
}

std::string line_of(const std::string& text, const std::string& start, std::size_t from = 0) {
    const auto at = text.find(start, from);
    if (at == std::string::npos) return "";
    return text.substr(at, text.find('\n', at) - at);
}

TEST(SibenchSuiteSummary, RatiosToTheFasterPeer) {
    std::vector<Row> rows;
    for (auto [config, latency, bandwidth] :
         {std::tuple{"simpi-none", 0.5, 100.0}, {"mpich", 0.4, 200.0}, {"openmpi", 0.25, 150.0}}) {
        rows.push_back(osu_row("osu_latency", config, 8, "latency_mean", latency, "us"));
        rows.push_back(osu_row("osu_bw", config, 8, "bandwidth_mean", bandwidth, "MB/s"));
        rows.push_back(
            osu_row("osu_mbw_mr", config, 8, "message_rate_mean", bandwidth * 1e5, "msg/s"));
    }
    rows.push_back(osu_row("osu_latency", "mpich-async", 8, "latency_mean", 0.1, "us"));
    const std::string text = format_suite_summary(rows);
    const auto latency = text.find("osu osu_latency, 2 ranks");
    const auto bandwidth = text.find("osu osu_bw, 2 ranks");
    ASSERT_NE(latency, std::string::npos) << text;
    ASSERT_NE(bandwidth, std::string::npos) << text;
    EXPECT_NE(line_of(text, "     size", latency).find("none/peer"), std::string::npos) << text;
    // Latency: over Open MPI's 0.25 (the lower; mpich-async is no peer); bandwidth: over
    // MPICH's 200 (the higher).
    EXPECT_NE(line_of(text, "      8 B", latency).find(" 2.00"), std::string::npos) << text;
    EXPECT_NE(line_of(text, "      8 B", bandwidth).find(" 0.50"), std::string::npos) << text;
    // A message rate, like a bandwidth: over the higher (osu_mbw_mr printed x/peer over
    // the lower peer once, 2.02 where it was 0.95).
    const auto rate = text.find("osu osu_mbw_mr, 2 ranks: message rate");
    ASSERT_NE(rate, std::string::npos) << text;
    EXPECT_NE(line_of(text, "      8 B", rate).find(" 0.50"), std::string::npos) << text;
    EXPECT_NE(text.find("x/peer: simpi-x's value over the faster"), std::string::npos) << text;
}

TEST(SibenchSuiteSummary, NoRatiosWithoutAPeer) {
    const std::string text =
        format_suite_summary({osu_row("osu_latency", "simpi-none", 8, "latency_mean", 0.5, "us")});
    EXPECT_EQ(text.find("/peer"), std::string::npos) << text;
}

TEST(SibenchSuiteSummary, FloorUnderLatencyAndRateTables) {
    std::vector<Row> rows = {
        osu_row("osu_latency", "simpi-none", 8, "latency_mean", 0.5, "us"),
        osu_row("osu_mbw_mr", "simpi-none", 8, "message_rate_mean", 20e6, "msg/s"),
        // osu_mbw_mr's bandwidth table leaves the floor to its message-rate table.
        osu_row("osu_mbw_mr", "simpi-none", 8, "bandwidth_mean", 160, "MB/s"),
        osu_row("osu_bibw", "simpi-none", 8, "bandwidth_mean", 160, "MB/s")};
    for (auto [metric, value, unit] :
         {std::tuple{"latency_min", 50.0, "ns"}, {"message_rate_max", 100e6, "msg/s"}}) {
        Row r = osu_row("floor", "simpi-none", 64, metric, value, unit);
        r.suite = "p2p";
        r.study = "floor";
        rows.push_back(r);
    }
    const std::string text = format_suite_summary(rows);
    EXPECT_NE(text.find("8 B latency / the cache-line floor's: simpi-none 10\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("8 B messages per second / the cache-line floor's: simpi-none 0.2\n"),
              std::string::npos)
        << text;
    // osu_bibw's bytes go both ways: 160 MB/s of 8 B is 10 M msg/s each way.
    EXPECT_NE(text.find("8 B messages per second each way / the cache-line floor's: simpi-none "
                        "0.1\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("cache-line floor: 0.050 us one way"), std::string::npos) << text;
    const auto mbw_bandwidth = text.find("osu osu_mbw_mr, 2 ranks: bandwidth");
    ASSERT_NE(mbw_bandwidth, std::string::npos) << text;
    EXPECT_EQ(text.find("floor's", mbw_bandwidth),
              text.find("floor's", text.find("osu osu_mbw_mr, 2 ranks: message rate")))
        << text;
}

TEST(SibenchSuiteSummary, OsuSideBySideProfile) {
    const Profile p = parse_profile_file(find_profile("osu-side-by-side"));
    std::vector<std::string> benchmarks;
    for (const auto& study : p.studies)
        if (study.suite == "osu")
            benchmarks.insert(benchmarks.end(), study.benchmarks.begin(), study.benchmarks.end());
    for (const char* wanted : {"osu_latency", "osu_bw", "osu_bibw", "osu_mbw_mr", "osu_barrier",
                               "osu_bcast", "osu_reduce", "osu_allreduce", "osu_gather",
                               "osu_scatter", "osu_allgather", "osu_alltoall"})
        EXPECT_NE(std::find(benchmarks.begin(), benchmarks.end(), wanted), benchmarks.end())
            << wanted;
    for (const auto& run : expand_matrix(p)) {
        const std::string config = run.config.name();
        EXPECT_TRUE(config == "simpi-none" || config == "mpich" || config == "openmpi") << run.id;
    }
}

}  // namespace
}  // namespace si::harness
