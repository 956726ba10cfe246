// Application studies (`ranks` instead of `pairs`): profile rules, run matrix, Slurm
// placement, and the time / Mop/s / speed-up results, figures and summary.
#include "apps.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plot.hpp"

#include "profile.hpp"
#include "sbatch.hpp"

namespace si::harness {
namespace {

const char* kProfile = R"(
[defaults]
configs = ["simpi-none", "simpi-smart", "mpich"]
helpers = [1, 2]
sizes = ["64k"]
iterations = 100
timeout = 60

[[study]]
name = "sp-w"
benchmark = "sp"
ranks = [4, 1]
args = ["--class", "W"]
)";

TEST(SibenchApps, StudyTakesNoBenchmarkOptionsFromTheDefaults) {
    const Profile p = parse_profile_text(kProfile, "t.toml");
    const Study& sp = p.studies.at(0);
    EXPECT_EQ(sp.ranks, (std::vector<int>{1, 4}));
    EXPECT_TRUE(sp.pairs.empty());
    // No --sizes or --iterations: SP would take --iterations as its time steps.
    EXPECT_EQ(benchmark_args(sp), (std::vector<std::string>{"--class", "W"}));
    EXPECT_EQ(sp.timeout_s, 60);
}

TEST(SibenchApps, MicroBenchmarkKeysAreRefused) {
    for (const char* key : {"pairs = [1]", "sizes = [\"64k\"]", "iterations = 5"}) {
        const std::string text =
            std::string("[[study]]\nbenchmark = \"sp\"\nranks = [4]\n") + key + "\n";
        try {
            parse_profile_text(text, "t.toml");
            ADD_FAILURE() << key << " accepted";
        } catch (const ProfileError& error) {
            EXPECT_NE(std::string(error.what()).find("args"), std::string::npos) << error.what();
        }
    }
}

TEST(SibenchApps, MatrixRunsJobSizesWithHelpersCappedAtTheJob) {
    const auto runs = expand_matrix(parse_profile_text(kProfile, "t.toml"));
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    // One rank: one helper at most.
    EXPECT_EQ(ids, (std::vector<std::string>{"sp-w.simpi-none.r1", "sp-w.simpi-smart-h1.r1",
                                             "sp-w.mpich.r1", "sp-w.simpi-none.r4",
                                             "sp-w.simpi-smart-h1.r4", "sp-w.simpi-smart-h2.r4",
                                             "sp-w.mpich.r4"}));
    EXPECT_EQ(runs.back().ranks(), 4);
    EXPECT_EQ(runs.back().pairs, 0);
}

TEST(SibenchApps, SbatchPlacesEachJobOnTheFewestNodesThatHoldIt) {
    const Profile p = parse_profile_text(R"(
[defaults]
configs = ["simpi-none"]
[[study]]
name = "sp-e"
benchmark = "sp"
ranks = [324, 400, 484, 900]
args = ["--class", "E"]
)",
                                         "t.toml");
    SbatchOptions o;
    o.nodes = {31, 21, 25};
    o.ranks_per_node = {16};
    o.partition = "ib";
    o.time = "12:00:00";
    o.build_dir = "/b";
    o.out_dir = "/o";
    const SbatchPlan plan = plan_sbatch(p, o);
    // Scripts follow the order of --nodes.
    ASSERT_EQ(plan.manifest.size(), 3u);
    EXPECT_EQ(plan.manifest[0].id, "sp-e.simpi-none.n31x484");
    EXPECT_EQ(plan.manifest[1].id, "sp-e.simpi-none.n21x324");
    EXPECT_EQ(plan.manifest[2].id, "sp-e.simpi-none.n25x400");
    EXPECT_EQ(plan.manifest[1].ranks, 324);
    EXPECT_EQ(plan.manifest[1].pairs, 0);
    EXPECT_NE(plan.manifest[1].command.find("--nodes=21 --ntasks-per-node=16 --ntasks=324"),
              std::string::npos)
        << plan.manifest[1].command;
    ASSERT_EQ(plan.left_out.size(), 1u);  // 900 > 31 x 16
    EXPECT_NE(plan.left_out[0].find("900"), std::string::npos);
}

Row sp_row(const std::string& config, int ranks, const std::string& metric, double value) {
    Row r;
    r.suite = "nas";
    r.benchmark = "sp.W";
    r.study = "sp-w";
    r.config = config;
    r.ranks = ranks;
    r.metric = metric;
    r.value = value;
    return r;
}

TEST(SibenchApps, SpeedUpOverSimpiNoneOfTheSameJob) {
    const auto results = app_results({
        sp_row("mpich", 4, "time_max", 8), sp_row("mpich", 4, "mops_median", 100),
        sp_row("simpi-none", 4, "time_max", 2), sp_row("simpi-none", 4, "time_min", 1),
        sp_row("simpi-smart-h1", 4, "time_max", 1.6),
        sp_row("simpi-smart-h1", 1, "time_max", 5),  // no baseline at 1 rank
    });
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(results[0].ranks, 1);
    EXPECT_FALSE(results[0].speedup);
    EXPECT_EQ(results[1].config, "simpi-none");  // legend order
    EXPECT_DOUBLE_EQ(*results[1].speedup, 1.0);
    EXPECT_EQ(results[2].config, "simpi-smart-h1");
    EXPECT_DOUBLE_EQ(*results[2].speedup, 1.25);
    EXPECT_EQ(results[3].config, "mpich");
    EXPECT_DOUBLE_EQ(*results[3].speedup, 0.25);
    EXPECT_DOUBLE_EQ(*results[3].merit, 100);

    const std::string table = format_app_summary(results);
    EXPECT_NE(table.find("1.25x"), std::string::npos) << table;
    EXPECT_NE(table.find("sp-w"), std::string::npos) << table;
}

TEST(SibenchApps, RoundsInterleaveConfigurations) {
    const auto runs = expand_matrix(parse_profile_text(R"(
[[study]]
name = "sp"
benchmark = "sp"
ranks = [4]
rounds = 2
configs = ["simpi-none", "mpich"]
)",
                                                       "t.toml"));
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"sp.simpi-none.r4.round1", "sp.mpich.r4.round1",
                                             "sp.simpi-none.r4.round2", "sp.mpich.r4.round2"}));
}

TEST(SibenchApps, SbatchKeepsRoundsApart) {
    const Profile p = parse_profile_text(R"(
[[study]]
name = "sp"
benchmark = "sp"
ranks = [4]
rounds = 2
configs = ["simpi-none"]
)",
                                         "t.toml");
    SbatchOptions o;
    o.nodes = {2};
    o.ranks_per_node = {2};
    o.partition = "ib";
    o.time = "1:00:00";
    o.build_dir = "/b";
    o.out_dir = "/o";
    const SbatchPlan plan = plan_sbatch(p, o);
    ASSERT_EQ(plan.manifest.size(), 2u);
    EXPECT_EQ(plan.manifest[0].id, "sp.simpi-none.n2x4.round1");
    EXPECT_EQ(plan.manifest[1].id, "sp.simpi-none.n2x4.round2");
}

TEST(SibenchApps, RoundsGiveMediansAndPairedSpeedUps) {
    const auto in_round = [](Row row, int round) {
        row.run = fmt::format("sp-w.{}.r4.round{}", row.config, round);
        row.round = round;
        return row;
    };
    // The machine is twice as slow in round 2: the paired ratios stay 2, 2, 2.
    std::vector<Row> rows;
    const double none[] = {2, 4, 2.2}, smart[] = {1, 2, 1.1};
    for (int round = 1; round <= 3; ++round) {
        rows.push_back(in_round(sp_row("simpi-none", 4, "time_max", none[round - 1]), round));
        rows.push_back(in_round(sp_row("simpi-smart-h1", 4, "time_max", smart[round - 1]), round));
    }
    rows.push_back(sp_row("mpich", 4, "time_max", 11));  // one run, no round: not paired
    const auto results = app_results(rows);
    ASSERT_EQ(results.size(), 3u);
    const AppResult& smart_result = results[1];
    EXPECT_EQ(smart_result.config, "simpi-smart-h1");
    EXPECT_EQ(smart_result.rounds, 3);
    EXPECT_DOUBLE_EQ(smart_result.seconds, 1.1);
    EXPECT_DOUBLE_EQ(smart_result.seconds_min, 1);
    EXPECT_DOUBLE_EQ(smart_result.seconds_max, 2);
    EXPECT_DOUBLE_EQ(*smart_result.speedup, 2);
    EXPECT_DOUBLE_EQ(*smart_result.speedup_min, 2);
    EXPECT_DOUBLE_EQ(*smart_result.speedup_max, 2);
    // Unpaired: the median of the baseline's rounds over its time, no range.
    EXPECT_DOUBLE_EQ(*results[2].speedup, 2.2 / 11);
    EXPECT_FALSE(results[2].speedup_min);
    const std::string table = format_app_summary(results);
    EXPECT_NE(table.find("1.000..2.000"), std::string::npos) << table;
    EXPECT_NE(table.find("2.00..2.00"), std::string::npos) << table;

    const auto figures = app_figures(results);
    ASSERT_EQ(figures.size(), 1u);
    EXPECT_NE(figure_script(figures[0]).find("yerrorbars"), std::string::npos);
    EXPECT_NE(figure_data(figures[0]).find("1.1 1 2"), std::string::npos)
        << figure_data(figures[0]);
}

TEST(SibenchApps, SpeedUpFindsTheBaselineInAnotherStudy) {
    Row mpich = sp_row("mpich", 4, "time_max", 8);
    mpich.study = "sp-mpich";
    const auto results = app_results({sp_row("simpi-none", 4, "time_max", 2), mpich});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].study, "sp-mpich");  // studies in name order
    EXPECT_DOUBLE_EQ(*results[0].speedup, 0.25);
}

TEST(SibenchApps, BarsForOneJobSizeLinesForSeveral) {
    const auto one = app_figures(
        app_results({sp_row("simpi-none", 4, "time_max", 2), sp_row("mpich", 4, "time_max", 3)}));
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].name, "sp-w-W");
    EXPECT_TRUE(one[0].bars);
    ASSERT_EQ(one[0].series.size(), 2u);
    EXPECT_EQ(one[0].series[0].label, "simpi-none");

    const auto scaling = app_figures(app_results(
        {sp_row("simpi-none", 4, "time_max", 2), sp_row("simpi-none", 9, "time_max", 1)}));
    ASSERT_EQ(scaling.size(), 1u);
    EXPECT_FALSE(scaling[0].bars);
    EXPECT_EQ(scaling[0].xlabel, "ranks");
    EXPECT_TRUE(scaling[0].x_is_count);
    EXPECT_NE(figure_script(scaling[0]).find("set xtics ('4' 4, '9' 9)"), std::string::npos)
        << figure_script(scaling[0]);
    ASSERT_EQ(scaling[0].series.at(0).points.size(), 2u);
    EXPECT_EQ(scaling[0].series[0].points[1].x, 9);
}

}  // namespace
}  // namespace si::harness
