// Google Benchmark studies: the profile's rules, the command line, the JSON turned
// into rows (statistics over repetitions, self-skipped benchmarks as notes), the
// summary, and the regression gate on those rows.
#include "gbench.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "compare.hpp"
#include "profile.hpp"

namespace si::harness {
namespace {

// As Google Benchmark 1.7 writes it with --benchmark_repetitions=3 (trimmed): a
// CPU-timed benchmark, a real-time one, the aggregates, and one that skipped
// itself in every repetition.
const char* kJson = R"json({
  "context": {"date": "2026-11-25T08:28:38+00:00", "host_name": "vm", "num_cpus": 2,
              "mhz_per_cpu": 2300, "cpu_scaling_enabled": false,
              "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1}],
              "load_avg": [0.5, 0.25, 0.125], "library_build_type": "release"},
  "benchmarks": [
    {"name": "match_posted/named_source/256", "run_name": "match_posted/named_source/256",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 0, "threads": 1,
     "iterations": 1000, "real_time": 700, "cpu_time": 600, "time_unit": "ns"},
    {"name": "match_posted/named_source/256", "run_name": "match_posted/named_source/256",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 1, "threads": 1,
     "iterations": 1000, "real_time": 900, "cpu_time": 610, "time_unit": "ns"},
    {"name": "match_posted/named_source/256", "run_name": "match_posted/named_source/256",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 2, "threads": 1,
     "iterations": 1000, "real_time": 800, "cpu_time": 620, "time_unit": "ns"},
    {"name": "match_posted/named_source/256_mean", "run_name": "match_posted/named_source/256",
     "run_type": "aggregate", "aggregate_name": "mean", "iterations": 3,
     "real_time": 800, "cpu_time": 610, "time_unit": "ns"},
    {"name": "wake_round_trip/futex/real_time", "run_name": "wake_round_trip/futex/real_time",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 0, "threads": 1,
     "iterations": 10, "real_time": 4.5, "cpu_time": 2.0, "time_unit": "us"},
    {"name": "wake_round_trip/kmod/real_time", "run_name": "wake_round_trip/kmod/real_time",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 0, "threads": 1,
     "error_occurred": true, "error_message": "cannot open /dev/si_wake (No such file or directory)",
     "iterations": 1, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"},
    {"name": "wake_round_trip/kmod/real_time", "run_name": "wake_round_trip/kmod/real_time",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 1, "threads": 1,
     "error_occurred": true, "error_message": "cannot open /dev/si_wake (No such file or directory)",
     "iterations": 1, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"}
  ]
})json";

const Row* find(const std::vector<Row>& rows, const std::string& benchmark,
                const std::string& metric) {
    const auto at = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
        return r.benchmark == benchmark && r.metric == metric;
    });
    return at == rows.end() ? nullptr : &*at;
}

TEST(SibenchGbench, RepetitionsBecomeStatisticsInNanoseconds) {
    const GbenchOutput out = parse_gbench_json(kJson, "vm", "abc123", "2026-11-25T08:30:00Z");
    EXPECT_TRUE(out.failure.empty()) << out.failure;
    const std::string match = "match_posted/named_source/256";
    ASSERT_NE(find(out.rows, match, "time_median"), nullptr);
    EXPECT_DOUBLE_EQ(find(out.rows, match, "time_min")->value, 700);
    EXPECT_DOUBLE_EQ(find(out.rows, match, "time_median")->value, 800);
    EXPECT_DOUBLE_EQ(find(out.rows, match, "time_mean")->value, 800);
    EXPECT_DOUBLE_EQ(find(out.rows, match, "time_max")->value, 900);
    EXPECT_DOUBLE_EQ(find(out.rows, match, "cpu_time_median")->value, 610);
    const Row& row = *find(out.rows, match, "time_median");
    EXPECT_EQ(row.suite, kGbenchSuite);
    EXPECT_EQ(row.unit, "ns");
    EXPECT_EQ(row.iterations, 3000) << "iterations summed over the repetitions";
    EXPECT_EQ(row.config, "simpi-none");
    EXPECT_EQ(row.host, "vm");
    EXPECT_EQ(row.commit, "abc123");
    // /real_time is dropped from the name; microseconds become nanoseconds.
    ASSERT_NE(find(out.rows, "wake_round_trip/futex", "time_median"), nullptr);
    EXPECT_DOUBLE_EQ(find(out.rows, "wake_round_trip/futex", "time_median")->value, 4500);
    EXPECT_EQ(out.rows.size(), 16u) << "two benchmarks x two times x four statistics";
}

TEST(SibenchGbench, SelfSkippedBenchmarkIsANoteWithItsReasonNotANumber) {
    const GbenchOutput out = parse_gbench_json(kJson, "vm", "abc", "now");
    EXPECT_EQ(find(out.rows, "wake_round_trip/kmod", "time_median"), nullptr);
    ASSERT_EQ(out.notes.size(), 1u);
    EXPECT_NE(out.notes[0].find("wake_round_trip/kmod skipped: cannot open /dev/si_wake"),
              std::string::npos)
        << out.notes[0];
}

TEST(SibenchGbench, ContextIsKeptForTheCsvComments) {
    const GbenchOutput out = parse_gbench_json(kJson, "vm", "abc", "now");
    const auto value = [&](const std::string& key) {
        for (const auto& [k, v] : out.context)
            if (k == key) return v;
        return std::string("(absent)");
    };
    EXPECT_EQ(value("library_build_type"), "release");
    EXPECT_EQ(value("num_cpus"), "2");
    EXPECT_EQ(value("load_avg"), "0.5 0.25 0.125");
    EXPECT_NE(value("caches").find("L1 Data 48 KiB"), std::string::npos) << value("caches");
}

TEST(SibenchGbench, AggregatesOnlyGiveMedianAndMean) {
    const char* json = R"({"benchmarks": [
      {"name": "progress_idle/ranks:2_mean", "run_name": "progress_idle/ranks:2",
       "run_type": "aggregate", "aggregate_name": "mean", "real_time": 40, "cpu_time": 22,
       "time_unit": "ns"},
      {"name": "progress_idle/ranks:2_median", "run_name": "progress_idle/ranks:2",
       "run_type": "aggregate", "aggregate_name": "median", "real_time": 41, "cpu_time": 23,
       "time_unit": "ns"},
      {"name": "progress_idle/ranks:2_stddev", "run_name": "progress_idle/ranks:2",
       "run_type": "aggregate", "aggregate_name": "stddev", "real_time": 1, "cpu_time": 1,
       "time_unit": "ns"}]})";
    const GbenchOutput out = parse_gbench_json(json, "vm", "abc", "now");
    ASSERT_NE(find(out.rows, "progress_idle/ranks:2", "time_median"), nullptr);
    EXPECT_DOUBLE_EQ(find(out.rows, "progress_idle/ranks:2", "time_median")->value, 41);
    EXPECT_DOUBLE_EQ(find(out.rows, "progress_idle/ranks:2", "cpu_time_mean")->value, 22);
    EXPECT_EQ(out.rows.size(), 4u) << "no stddev rows, no min or max";
}

// Google Benchmark 1.7 writes the coefficient of variation of a counter that is 0
// in every repetition as a bare NaN, which is no JSON: the run is still read.
TEST(SibenchGbench, BareNanOfACounterIsReadAsNoValue) {
    const char* json = R"json({"benchmarks": [
    {"name": "timer_arm/real_time", "run_name": "timer_arm/real_time", "run_type": "iteration",
     "iterations": 10, "real_time": 1000, "cpu_time": 990, "time_unit": "ns",
     "signals_per_iteration": 0},
    {"name": "timer_arm/real_time_cv", "run_name": "timer_arm/real_time", "run_type": "aggregate",
     "aggregate_name": "cv", "aggregate_unit": "percentage", "iterations": 3,
     "real_time": 0.01, "cpu_time": 0.01, "time_unit": "ns", "signals_per_iteration": NaN}]})json";
    const GbenchOutput out = parse_gbench_json(json, "vm", "c", "d");
    EXPECT_EQ(out.failure, "");
    ASSERT_NE(find(out.rows, "timer_arm", "time_median"), nullptr);
    EXPECT_DOUBLE_EQ(find(out.rows, "timer_arm", "time_median")->value, 1000);
}

TEST(SibenchGbench, WhatIsNotAResultFailsTheRun) {
    EXPECT_FALSE(parse_gbench_json("Run on (2 X 2300 MHz CPU s)", "vm", "c", "d").failure.empty());
    EXPECT_FALSE(parse_gbench_json(R"({"context": {}})", "vm", "c", "d").failure.empty());
    EXPECT_FALSE(parse_gbench_json(R"({"benchmarks": []})", "vm", "c", "d").failure.empty());
}

TEST(SibenchGbench, CompareGatesTheRowsLikeAnyOther) {
    const auto reference = parse_gbench_json(kJson, "vm", "old", "then").rows;
    auto current = reference;
    for (auto& row : current)
        if (row.benchmark == "match_posted/named_source/256" && row.metric == "time_median")
            row.value *= 1.5;  // the linear scan came back
    CompareOptions options;
    const CompareReport report = compare_rows(reference, current, options);
    EXPECT_EQ(direction_of(reference.front()), Direction::lower_is_better);
    EXPECT_EQ(report.compared, 4) << "time and cpu_time medians of two benchmarks";
    EXPECT_EQ(report.regressions, 1);
    EXPECT_EQ(report.exit_code(options), 1);
    EXPECT_NE(format_report(report, false).find("match_posted/named_source/256 simpi-none"),
              std::string::npos);
}

TEST(SibenchGbench, SummaryListsEveryBenchmark) {
    auto rows = parse_gbench_json(kJson, "vm", "abc", "now").rows;
    for (auto& row : rows) row.study = "runtime-costs";
    const std::string text = format_gbench_summary(rows);
    EXPECT_NE(text.find("match_posted/named_source/256"), std::string::npos) << text;
    EXPECT_NE(text.find("700..900"), std::string::npos) << text;
    EXPECT_EQ(format_gbench_summary({}), "");
}

const char* kProfile = R"(
[defaults]
configs = ["simpi-none", "mpich"]
sizes = ["16k"]
iterations = 10
args = ["--batch", "1"]
timeout = 30

[[study]]
name = "runtime-costs"
kind = "gbench"
benchmark = "runtime_costs"
args = ["--benchmark_repetitions=3"]
)";

TEST(SibenchGbench, StudyRunsOnceAsSimpiNoneWithItsOwnArgs) {
    const Profile profile = parse_profile_text(kProfile, "t.toml");
    const auto runs = expand_matrix(profile);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].kind, "gbench");
    EXPECT_EQ(runs[0].config.name(), "simpi-none");
    EXPECT_EQ(runs[0].ranks(), 1);
    EXPECT_EQ(runs[0].timeout_s, 30);
    EXPECT_EQ(runs[0].args, std::vector<std::string>{"--benchmark_repetitions=3"})
        << "neither the defaults' sizes and iterations nor their args";
    const Command command = gbench_command(runs[0], "/b/bin", "/r/raw/x.json");
    EXPECT_EQ(command.argv.front(), "/b/bin/runtime_costs");
    EXPECT_EQ(command.argv[command.argv.size() - 2], "--benchmark_out=/r/raw/x.json");
    EXPECT_EQ(command.argv.back(), "--benchmark_out_format=json");
    EXPECT_EQ(gbench_json_path("/r/raw/runtime-costs.simpi-none.r1.csv"),
              "/r/raw/runtime-costs.simpi-none.r1.json");
}

TEST(SibenchGbench, StudyRefusesWhatItCannotUse) {
    const std::string base = "[[study]]\nkind = \"gbench\"\nbenchmark = \"runtime_costs\"\n";
    EXPECT_THROW(parse_profile_text(base + "sizes = [\"16k\"]\n", "t"), ProfileError);
    EXPECT_THROW(parse_profile_text(base + "pairs = [2]\n", "t"), ProfileError);
    EXPECT_THROW(parse_profile_text(base + "configs = [\"mpich\"]\n", "t"), ProfileError);
    EXPECT_THROW(parse_profile_text("[[study]]\nkind = \"python\"\nbenchmark = \"x\"\n", "t"),
                 ProfileError);
    EXPECT_NO_THROW(parse_profile_text(base + "configs = [\"simpi-none\"]\n", "t"));
}

}  // namespace
}  // namespace si::harness
