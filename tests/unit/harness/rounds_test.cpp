// Micro-benchmark studies repeated in interleaved rounds: the profile key and the
// matrix, the round carried by every row, the median over rounds with its min..max in
// the index, the figures, the ping-pong table and summary.csv.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "derive.hpp"
#include "plot.hpp"
#include "profile.hpp"
#include "results.hpp"
#include "summary.hpp"
#include "test_files.hpp"

namespace si::harness {
namespace {

using test::ScratchDir;

const char* kPingpongProfile = R"(
[[study]]
name = "pingpong"
benchmark = "pingpong"
max_ranks = 2
configs = ["simpi-none", "mpich"]
rounds = 3
max_size = "4m"

[[study]]
name = "overlap"
benchmark = "overlap"
configs = ["simpi-none"]
pairs = [2, 1]
rounds = 2

[plots]
pingpong_sizes = ["8", "1m"]
)";

std::vector<std::string> ids_of(const std::vector<PlannedRun>& runs) {
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    return ids;
}

TEST(SibenchRounds, MicroBenchmarkStudiesInterleaveConfigurations) {
    const Profile p = parse_profile_text(kPingpongProfile, "t.toml");
    EXPECT_EQ(p.studies[0].rounds, 3);
    EXPECT_EQ(p.plots.pingpong_sizes, (std::vector<std::uint64_t>{8, 1 << 20}));
    const auto runs = expand_matrix(p);
    // Pair counts ascending, then rounds, then configurations.
    EXPECT_EQ(ids_of(runs), (std::vector<std::string>{
                                "pingpong.simpi-none.p1.round1", "pingpong.mpich.p1.round1",
                                "pingpong.simpi-none.p1.round2", "pingpong.mpich.p1.round2",
                                "pingpong.simpi-none.p1.round3", "pingpong.mpich.p1.round3",
                                "overlap.simpi-none.p1.round1", "overlap.simpi-none.p1.round2",
                                "overlap.simpi-none.p2.round1", "overlap.simpi-none.p2.round2"}));
    EXPECT_EQ(runs[3].round, 2);
    EXPECT_EQ(runs[3].config.name(), "mpich");
    // Every round runs the same command: the round is sibench's, not the benchmark's.
    EXPECT_EQ(runs[0].args, runs[4].args);
}

TEST(SibenchRounds, CommandLineReplacesTheProfilesRounds) {
    const Profile p = parse_profile_text(kPingpongProfile, "t.toml");
    MatrixFilter once;
    once.studies = {"pingpong"};
    once.rounds = 1;
    EXPECT_EQ(ids_of(expand_matrix(p, once)),
              (std::vector<std::string>{"pingpong.simpi-none.p1", "pingpong.mpich.p1"}));
    MatrixFilter twice;
    twice.studies = {"overlap"};
    twice.rounds = 2;
    twice.configs = {"simpi-none"};
    EXPECT_EQ(expand_matrix(p, twice).size(), 4u);
}

TEST(SibenchRounds, ProfileErrors) {
    for (const char* text : {"[[study]]\nbenchmark = \"pingpong\"\nrounds = 0\n",
                             "[[study]]\nbenchmark = \"pingpong\"\nrounds = \"3\"\n",
                             "[defaults]\nrounds = 3\n[[study]]\nbenchmark = \"pingpong\"\n"}) {
        try {
            parse_profile_text(text, "bad.toml");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const ProfileError& error) {
            EXPECT_NE(std::string(error.what()).find("rounds"), std::string::npos) << error.what();
        }
    }
}

TEST(SibenchRounds, ShippedProfilesRunEveryConfigurationInRounds) {
    for (const char* name : {"quick", "full"}) {
        SCOPED_TRACE(name);
        const Profile p = parse_profile_file(find_profile(name));
        const auto study = std::find_if(p.studies.begin(), p.studies.end(),
                                        [](const Study& s) { return s.name == "pingpong"; });
        ASSERT_NE(study, p.studies.end());
        EXPECT_GE(study->rounds, 3);
        EXPECT_EQ(study->max_size, std::uint64_t{4} << 20);
        for (const char* config : {"simpi-none", "simpi-thread", "simpi-smart", "mpich", "openmpi"})
            EXPECT_NE(std::find(study->configs.begin(), study->configs.end(), parse_config(config)),
                      study->configs.end())
                << config;
    }
}

TEST(SibenchRounds, EveryRowCarriesItsRound) {
    EXPECT_EQ(round_of_run("pingpong.mpich.p1.round12"), 12);
    EXPECT_EQ(round_of_run("sp.simpi-none.r4.round2"), 2);
    EXPECT_EQ(round_of_run("pingpong.mpich.p1"), 0);
    EXPECT_EQ(round_of_run("pingpong.mpich.p1.roundx"), 0);
    ScratchDir dir;
    Row row;
    row.suite = "p2p";
    row.benchmark = "pingpong";
    row.metric = "latency_median";
    row.run = "pingpong.mpich.p1.round3";
    row.round = 3;
    write_rows(dir.file("results.csv"), {row});
    EXPECT_EQ(read_rows(dir.file("results.csv")).at(0).round, 3);
    // A results.csv from before the column: the round comes from the run id.
    test::write_text(dir.file("old.csv"),
                     "suite,benchmark,runtime,mode,helpers,nodes,ranks_per_node,msg_size,metric,"
                     "value,unit,iterations,warmup,host,commit,date,config,study,pairs,run,ranks\n"
                     "p2p,pingpong,mpich,default,0,1,2,8,latency_median,0.4,us,10,1,vm,x,d,mpich,"
                     "pingpong,1,pingpong.mpich.p1.round2,2\n");
    EXPECT_EQ(read_rows(dir.file("old.csv")).at(0).round, 2);
}

Row pingpong_row(const std::string& config, int round, std::uint64_t size,
                 const std::string& metric, double value) {
    Row r;
    r.suite = "p2p";
    r.benchmark = "pingpong";
    r.study = "pingpong";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.pairs = 1;
    r.ranks = 2;
    r.msg_size = size;
    r.metric = metric;
    r.unit = metric.starts_with("latency") ? "us" : "MB/s";
    r.value = value;
    r.round = round;
    r.run = fmt::format("pingpong.{}.p1.round{}", config, round);
    return r;
}

// Three rounds of simpi-none and MPICH at 8 B and 1 MiB, one of simpi-thread.
std::vector<Row> three_rounds() {
    std::vector<Row> rows;
    const double none[] = {2, 1, 3}, mpich[] = {0.5, 1, 0.75};
    for (int round = 1; round <= 3; ++round) {
        rows.push_back(pingpong_row("simpi-none", round, 8, "latency_median", none[round - 1]));
        rows.push_back(pingpong_row("simpi-none", round, 8, "latency_min", 0.1));
        rows.push_back(pingpong_row("mpich", round, 8, "latency_median", mpich[round - 1]));
        rows.push_back(pingpong_row("simpi-none", round, 0, "latency_median", 1));
        rows.push_back(
            pingpong_row("simpi-none", round, 1 << 20, "bibandwidth_median", 1000 * round));
        rows.push_back(pingpong_row("mpich", round, 1 << 20, "bibandwidth_median", 4000));
    }
    rows.push_back(pingpong_row("simpi-thread", 1, 8, "latency_median", 5));
    return rows;
}

TEST(SibenchRounds, IndexGivesTheMedianOverRoundsAndTheirRange) {
    auto rows = three_rounds();
    // A round merged twice keeps its last value.
    rows.push_back(pingpong_row("mpich", 3, 8, "latency_median", 0.6));
    const ResultIndex index(rows);
    const auto none = index.spread("pingpong", "simpi-none", 1, 8, "latency_median");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->rounds, 3);
    EXPECT_DOUBLE_EQ(none->median, 2);
    EXPECT_DOUBLE_EQ(none->min, 1);
    EXPECT_DOUBLE_EQ(none->max, 3);
    EXPECT_DOUBLE_EQ(*index.value("pingpong", "simpi-none", 1, 8, "latency_median"), 2);
    const auto mpich = index.spread("pingpong", "mpich", 1, 8, "latency_median");
    EXPECT_DOUBLE_EQ(mpich->median, 0.6);  // of 0.5, 1, 0.6
    EXPECT_EQ(index.rounds("pingpong"), 3);
    EXPECT_FALSE(index.spread("pingpong", "openmpi", 1, 8, "latency_median"));
    // NaN in a round is not hidden by the others.
    const ResultIndex with_nan({pingpong_row("mpich", 1, 8, "latency_median", 1),
                                pingpong_row("mpich", 2, 8, "latency_median", std::nan(""))});
    EXPECT_TRUE(std::isnan(*with_nan.value("pingpong", "mpich", 1, 8, "latency_median")));
}

TEST(SibenchRounds, FiguresDrawTheRangeOfTheRounds) {
    const ResultIndex index(three_rounds());
    std::vector<std::string> notes;
    const auto figures = thesis_figures(index, PlotSpec{}, notes);
    const auto named = [&](const std::string& name) {
        return std::find_if(figures.begin(), figures.end(),
                            [&](const Figure& f) { return f.name == name; });
    };
    ASSERT_NE(named("pingpong-latency"), figures.end());
    ASSERT_NE(named("pingpong-bibandwidth"), figures.end());
    EXPECT_EQ(named("pingpong-bandwidth"), figures.end());  // not measured
    const Figure& latency = *named("pingpong-latency");
    EXPECT_TRUE(latency.x_is_size);
    EXPECT_TRUE(latency.log_y);
    ASSERT_EQ(latency.series.size(), 3u);
    EXPECT_EQ(latency.series[0].label, "simpi-none");
    // 0 B has no place on the log axis.
    ASSERT_EQ(latency.series[0].points.size(), 1u);
    EXPECT_DOUBLE_EQ(*latency.series[0].points[0].low, 1);
    EXPECT_DOUBLE_EQ(*latency.series[0].points[0].high, 3);
    // simpi-thread ran once: no error bar.
    EXPECT_EQ(latency.series[1].label, "simpi-thread");
    EXPECT_FALSE(latency.series[1].points[0].low);
    const std::string script = figure_script(latency);
    EXPECT_NE(script.find("index 0 using 1:2:3:4 with yerrorlines"), std::string::npos) << script;
    EXPECT_NE(script.find("index 1 using 1:2 with linespoints"), std::string::npos) << script;
    EXPECT_NE(script.find("median of 3 rounds, min..max"), std::string::npos) << script;
    EXPECT_NE(figure_data(latency).find("8 2 1 3\n"), std::string::npos) << figure_data(latency);
}

TEST(SibenchRounds, PingpongTableSideBySideWithRatios) {
    PlotSpec plots;
    plots.pingpong_sizes = {8};  // and the largest size, 1 MiB
    const auto tables = pingpong_tables(ResultIndex(three_rounds()), plots);
    ASSERT_EQ(tables.size(), 2u);  // latency, bidirectional bandwidth
    const PingpongTable& latency = tables[0];
    EXPECT_EQ(latency.measurement.name, "latency");
    EXPECT_EQ(latency.rounds, 3);
    EXPECT_EQ(latency.configs, (std::vector<std::string>{"simpi-none", "simpi-thread", "mpich"}));
    EXPECT_EQ(latency.sizes, (std::vector<std::uint64_t>{8}));  // no latency at 1 MiB
    EXPECT_EQ(latency.ratio_configs, (std::vector<std::string>{"simpi-none", "simpi-thread"}));
    EXPECT_DOUBLE_EQ(latency.cells[0][0]->median, 2);
    EXPECT_DOUBLE_EQ(*latency.ratios[0][0], 2 / 0.75);
    EXPECT_DOUBLE_EQ(*latency.ratios[0][1], 5 / 0.75);
    const PingpongTable& bibw = tables[1];
    EXPECT_EQ(bibw.sizes, (std::vector<std::uint64_t>{1 << 20}));
    EXPECT_FALSE(bibw.cells[0][1]);  // simpi-thread: not measured
    EXPECT_FALSE(bibw.ratios[0][1]);
    EXPECT_DOUBLE_EQ(*bibw.ratios[0][0], 0.5);

    const std::string text = format_pingpong_tables(tables);
    EXPECT_NE(text.find("pingpong latency (us, lower is better): median of 3 interleaved rounds"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("pingpong bidirectional bandwidth (MB/s, higher is better)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("2.00 [1.00..3.00]"), std::string::npos) << text;
    EXPECT_NE(text.find("2000 [1000..3000]"), std::string::npos) << text;
    EXPECT_NE(text.find("none/mpich"), std::string::npos) << text;
    EXPECT_NE(text.find("thread/mpich"), std::string::npos) << text;
    EXPECT_NE(text.find("2.67"), std::string::npos) << text;
    EXPECT_NE(text.find("0.50"), std::string::npos) << text;

    // Without MPICH, no ratios; without the study, no table.
    auto rows = three_rounds();
    std::erase_if(rows, [](const Row& r) { return r.config == "mpich"; });
    EXPECT_TRUE(pingpong_tables(ResultIndex(rows), plots).front().ratio_configs.empty());
    plots.pingpong = "other";
    EXPECT_TRUE(pingpong_tables(ResultIndex(rows), plots).empty());
}

TEST(SibenchRounds, SummaryCsvHoldsTheSpreadWithItsContext) {
    ScratchDir dir;
    write_summary_csv(dir.file("summary.csv"), ResultIndex(three_rounds()));
    const std::string text = test::read_text(dir.file("summary.csv"));
    EXPECT_EQ(text.rfind("study,benchmark,config,runtime,mode,helpers,pairs,ranks,msg_size,metric,"
                         "unit,rounds,median,min,max,ratio_to_mpich\n",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("pingpong,pingpong,simpi-none,simpi,none,0,1,2,8,latency_median,us,3,2,1,3,"
                        "2.66667\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("pingpong,pingpong,simpi-thread,simpi,thread,0,1,2,8,latency_median,us,1,5,"
                        "5,5,6.66667\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(",1048576,bibandwidth_median,MB/s,3,2000,1000,3000,0.5\n"),
              std::string::npos)
        << text;
    // Only the medians: latency_min stays in results.csv.
    EXPECT_EQ(text.find("latency_min"), std::string::npos) << text;
    // A size MPICH did not measure has no ratio.
    EXPECT_NE(text.find(",0,latency_median,us,3,1,1,1,\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace si::harness
