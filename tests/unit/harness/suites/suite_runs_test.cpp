// Suite studies in profiles and the run matrix, `sibench suite run`'s generated
// profile, a build that is skipped for want of a compiler (it builds nothing), and
// the suites' figures, summary and application results.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "apps.hpp"
#include "profile.hpp"
#include "sbatch.hpp"
#include "suite_fixtures.hpp"
#include "suites/build_steps.hpp"
#include "suites/suite_figures.hpp"
#include "suites/suite_runs.hpp"

namespace si::harness {
namespace {

using test::run_context;
using test::suite_fixture;

const char* kProfile = R"(
[defaults]
configs = ["simpi-none", "simpi-smart", "mpich"]
helpers = [1, 2]
sizes = ["64k"]
args = ["--sizes", "64k"]
timeout = 60

[[study]]
suite = "osu"
source = "/src/osu"
benchmarks = ["osu_latency", "osu_bw"]
ranks = [2]

[[study]]
name = "npb-s"
suite = "npb"
benchmarks = ["sp.S"]
ranks = [4]
configs = ["mpich"]
args = ["extra"]
)";

std::string profile_error(const std::string& study) {
    try {
        parse_profile_text("[[study]]\n" + study, "t.toml");
    } catch (const ProfileError& error) {
        return error.what();
    }
    return "";
}

TEST(SibenchSuiteRuns, StudyAndMatrix) {
    const Profile profile = parse_profile_text(kProfile, "t.toml");
    const Study& osu = profile.studies.at(0);
    EXPECT_EQ(osu.name, "osu") << "named after the suite";
    EXPECT_EQ(osu.suite, "osu");
    EXPECT_EQ(osu.source, "/src/osu");
    EXPECT_TRUE(osu.args.empty()) << "the defaults' args are sibench's benchmarks' options";
    EXPECT_TRUE(osu.sizes.empty());
    EXPECT_EQ(profile.studies.at(1).args, (std::vector<std::string>{"extra"}));
    const auto runs = expand_matrix(profile);
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    // Benchmarks, then job sizes, then configurations.
    EXPECT_EQ(ids,
              (std::vector<std::string>{
                  "osu.osu_latency.simpi-none.r2", "osu.osu_latency.simpi-smart-h1.r2",
                  "osu.osu_latency.simpi-smart-h2.r2", "osu.osu_latency.mpich.r2",
                  "osu.osu_bw.simpi-none.r2", "osu.osu_bw.simpi-smart-h1.r2",
                  "osu.osu_bw.simpi-smart-h2.r2", "osu.osu_bw.mpich.r2", "npb-s.sp.S.mpich.r4"}));
    EXPECT_EQ(runs.at(0).suite, "osu");
    EXPECT_EQ(runs.at(0).benchmark, "osu_latency");
    EXPECT_EQ(runs.at(0).suite_source, "/src/osu");
    EXPECT_EQ(runs.at(0).ranks(), 2);
    EXPECT_EQ(runs.back().ranks(), 4);
}

TEST(SibenchSuiteRuns, ProfileErrorsNameTheKey) {
    EXPECT_NE(profile_error("suite = \"hpl\"\nbenchmarks = [\"x\"]\nranks = [2]\n").find("'suite'"),
              std::string::npos);
    EXPECT_NE(profile_error("suite = \"osu\"\nbenchmarks = [\"osu_bw\"]\n").find("'ranks'"),
              std::string::npos);
    EXPECT_NE(profile_error("suite = \"npb\"\nbenchmarks = [\"sp\"]\nranks = [4]\n")
                  .find("<benchmark>.<class>"),
              std::string::npos);
    EXPECT_NE(profile_error("suite = \"osu\"\nbenchmarks = [\"osu_bw\"]\nranks = [2]\n"
                            "check = true\n")
                  .find("'check'"),
              std::string::npos);
    EXPECT_NE(
        profile_error("suite = \"osu\"\nbenchmark = \"osu_bw\"\nranks = [2]\n").find("'benchmark'"),
        std::string::npos);
    EXPECT_NE(profile_error("benchmark = \"overlap\"\nsource = \"/x\"\n").find("'source'"),
              std::string::npos);
    EXPECT_NE(profile_error("suite = \"osu\"\nbenchmarks = [\"osu_bw\"]\nranks = [2]\n"
                            "iterations = 5\n")
                  .find("'iterations'"),
              std::string::npos);
}

TEST(SibenchSuiteRuns, GeneratedProfileReadsBack) {
    SuiteRunRequest request;
    request.suite = "imb";
    request.source = "/src/imb";
    request.benchmarks = {"PingPong", "Allreduce"};
    request.ranks = {2, 4};
    request.configs = {"simpi-none", "mpich"};
    request.timeout_s = 90;
    request.args = {"-msglog", "0:16"};
    request.check = true;
    const Profile profile = parse_profile_text(suite_profile_text(request), "generated");
    EXPECT_EQ(profile.name, "suite-imb");
    const Study& study = profile.studies.at(0);
    EXPECT_EQ(study.suite, "imb");
    EXPECT_EQ(study.source, "/src/imb");
    EXPECT_EQ(study.benchmarks, request.benchmarks);
    EXPECT_EQ(study.ranks, request.ranks);
    EXPECT_EQ(study.args, request.args);
    EXPECT_TRUE(study.check);
    EXPECT_DOUBLE_EQ(study.timeout_s, 90);
    EXPECT_EQ(expand_matrix(profile).size(), 8u);
    // Without --configs: every configuration.
    request.configs.clear();
    EXPECT_EQ(parse_profile_text(suite_profile_text(request), "g").studies.at(0).configs.size(),
              7u);
}

TEST(SibenchSuiteRuns, WithoutSifortNpbIsSkippedAndNothingIsBuilt) {
    test::ScratchDir dir;
    // Enough of an NPB 3.3 tree to tell its version; no compiler runs.
    test::write_text(dir.file("npb/sys/make.common"),
                     "PROGRAM = $(BENCHMARK).$(CLASS).$(NPROCS)\n");
    test::write_text(dir.file("npb/config/make.def.template"), "MPIF77 = f77\n");
    const Profile profile = parse_profile_text(
        "[[study]]\nsuite = \"npb\"\nbenchmarks = [\"sp.S\"]\nranks = [4]\n"
        "configs = [\"simpi-none\"]\nlauncher = \"hydra\"\nsource = \"" +
            dir.file("npb") + "\"\n",
        "t.toml");
    const auto runs = expand_matrix(profile);
    SuiteBuilds builds(dir.file("work"), dir.file("build/bin"));
    builds.prepare(runs, false, false);
    const LaunchSite site{dir.file("build/bin"), "/usr/bin/mpiexec.hydra", ""};
    EXPECT_EQ(builds.missing_reason(runs.at(0), site), dir.file("build/bin/sifort") + " not found");
    const auto report = read_build_report(dir.file("work/npb/simpi/build.csv"));
    ASSERT_EQ(report.size(), 1u);
    EXPECT_EQ(report[0].target, "sp.S.4") << "NPB 3.3 compiles the process count in";
    EXPECT_EQ(report[0].status, "skipped");
    EXPECT_FALSE(std::filesystem::exists(dir.file("work/npb/simpi/src/bin/sp.S.4")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("npb/config/make.def")))
        << "the source tree is never written";
    EXPECT_TRUE(std::filesystem::exists(dir.file("work/npb/simpi/src/config/make.def")));
}

TEST(SibenchSuiteRuns, NoSourceIsSaidPerRun) {
    const Profile profile = parse_profile_text(
        "[[study]]\nsuite = \"osu\"\nbenchmarks = [\"osu_bw\"]\nranks = [2]\n"
        "configs = [\"mpich\"]\n",
        "t.toml");
    SuiteBuilds builds("/nowhere/work", "/nowhere/bin");
    const auto runs = expand_matrix(profile);
    builds.prepare(runs, false, false);
    const LaunchSite site{"/nowhere/bin", "/usr/bin/mpiexec.hydra", ""};
    EXPECT_NE(builds.missing_reason(runs.at(0), site).find("--source osu=DIR"), std::string::npos);
}

TEST(SibenchSuiteRuns, SbatchLeavesSuitesOut) {
    SbatchOptions options;
    options.nodes = {2};
    options.ranks_per_node = {1};
    options.partition = "p";
    options.time = "01:00:00";
    options.build_dir = "/b";
    options.out_dir = "/o";
    const auto plan =
        plan_sbatch(parse_profile_text(
                        std::string(kProfile) + "[[study]]\nbenchmark = \"overlap\"\n", "t.toml"),
                    options);
    for (const auto& run : plan.manifest) EXPECT_EQ(run.study, "overlap");
    EXPECT_EQ(plan.left_out.size(), 9u);
}

std::vector<Row> parsed_rows(const std::string& fixture, const std::string& benchmark,
                             const std::string& config,
                             SuiteOutput (*parse)(const std::string&, const RowContext&)) {
    auto rows = parse(suite_fixture(fixture), run_context(benchmark, config, 2)).rows;
    for (auto& row : rows) {
        row.study = row.suite;
        row.run = fmt::format("{}.{}.{}.r2", row.suite, benchmark, config);
    }
    return rows;
}

TEST(SibenchSuiteRuns, FiguresAndSummary) {
    auto rows =
        parsed_rows("osu_latency.simpi-none.txt", "osu_latency", "simpi-none", parse_osu_output);
    for (const auto& row :
         parsed_rows("osu_latency.simpi-none.txt", "osu_latency", "mpich", parse_osu_output))
        rows.push_back(row);
    for (const auto& row :
         parsed_rows("osu_barrier.mpich.txt", "osu_barrier", "mpich", parse_osu_output))
        rows.push_back(row);
    const auto figures = suite_figures(rows);
    ASSERT_EQ(figures.size(), 2u);
    const Figure& barrier = figures[0];
    const Figure& latency = figures[1];
    EXPECT_EQ(latency.name, "osu-osu_latency");
    EXPECT_TRUE(latency.x_is_size);
    EXPECT_TRUE(latency.log_y);
    ASSERT_EQ(latency.series.size(), 2u);
    EXPECT_EQ(latency.series[0].label, "simpi-none");
    EXPECT_EQ(latency.series[0].points.size(), 23u) << "0 B has no place on a log axis";
    EXPECT_EQ(barrier.name, "osu-osu_barrier");
    EXPECT_TRUE(barrier.bars);
    const std::string summary = format_suite_summary(rows);
    EXPECT_NE(summary.find("osu osu_latency, 2 ranks: latency (us), mean"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("1 KiB"), std::string::npos) << summary;
}

TEST(SibenchSuiteRuns, NpbRowsAreApplicationResults) {
    auto rows =
        parse_npb_output(suite_fixture("npb34_sp.S.mpich.txt"), run_context("sp.S", "mpich", 4))
            .rows;
    for (auto& row : rows) row.study = "npb";
    const auto results = app_results(rows);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].benchmark, "sp.S");
    EXPECT_DOUBLE_EQ(results[0].seconds, 3.12);
    ASSERT_TRUE(results[0].merit);
    EXPECT_DOUBLE_EQ(*results[0].merit, 30.99);
    EXPECT_EQ(results[0].merit_unit, "Mop/s");
}

}  // namespace
}  // namespace si::harness
