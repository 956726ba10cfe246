// Reading and writing the tidy CSVs, and merging a run directory's raw CSVs.
#include "results.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "run.hpp"
#include "sbatch.hpp"
#include "test_files.hpp"

namespace si::harness {
namespace {

using test::benchmark_csv;
using test::ScratchDir;
using test::write_text;

TEST(SibenchReadRows, BenchmarkCsvWithContextLines) {
    ScratchDir dir;
    write_text(dir.file("a.csv"),
               benchmark_csv("p2p,overlap,simpi,smart,1,2,1,65536,overlap_median,81.5,%,300,30,vm,"
                             "abc,2026-11-23T05:00:00Z\n"
                             "\n"
                             "p2p,overlap,mpich,default,0,1,2,65536,latency_median,12.25,us,300,30,"
                             "vm,abc,2026-11-23T05:00:00Z\n"));
    const auto rows = read_rows(dir.file("a.csv"));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].config, "simpi-smart-h1");  // derived from runtime, mode, helpers
    EXPECT_EQ(rows[0].pairs, 1);                  // 2 nodes x 1 rank / 2
    EXPECT_EQ(rows[0].study, "overlap");          // the benchmark, without sibench's column
    EXPECT_EQ(rows[0].msg_size, 65536u);
    EXPECT_DOUBLE_EQ(rows[0].value, 81.5);
    EXPECT_EQ(rows[0].measurement(), "overlap");
    EXPECT_EQ(rows[0].statistic(), "median");
    EXPECT_EQ(rows[1].config, "mpich");
    EXPECT_EQ(rows[1].pairs, 1);  // 1 node x 2 ranks / 2
}

TEST(SibenchReadRows, MetricNamesWithUnderscores) {
    Row row;
    row.metric = "arrival_150_median";
    EXPECT_EQ(row.measurement(), "arrival_150");
    row.metric = "overlap_at_lat_max";
    EXPECT_EQ(row.measurement(), "overlap_at_lat");
    EXPECT_EQ(row.statistic(), "max");
    row.metric = "custom";
    EXPECT_EQ(row.measurement(), "custom");
    EXPECT_EQ(row.statistic(), "");
}

TEST(SibenchReadRows, NotANumberIsKept) {
    ScratchDir dir;
    write_text(
        dir.file("a.csv"),
        benchmark_csv("p2p,overlap,simpi,none,0,2,1,16384,overlap_median,nan,%,3,1,vm,x,d\n"));
    const auto rows = read_rows(dir.file("a.csv"));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_TRUE(std::isnan(rows[0].value));
}

TEST(SibenchReadRows, ErrorsNameTheFileAndColumn) {
    ScratchDir dir;
    write_text(dir.file("short.csv"), "suite,benchmark\np2p,overlap\n");
    try {
        read_rows(dir.file("short.csv"));
        FAIL();
    } catch (const CsvError& error) {
        EXPECT_NE(std::string(error.what()).find("short.csv"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("runtime"), std::string::npos) << error.what();
    }
    write_text(
        dir.file("bad.csv"),
        benchmark_csv("p2p,overlap,simpi,none,0,2,1,16384,latency_median,fast,us,3,1,vm,x,d\n"));
    EXPECT_THROW(read_rows(dir.file("bad.csv")), CsvError);
    write_text(
        dir.file("badint.csv"),
        benchmark_csv("p2p,overlap,simpi,none,x,2,1,16384,latency_median,1,us,3,1,vm,x,d\n"));
    EXPECT_THROW(read_rows(dir.file("badint.csv")), CsvError);
}

TEST(SibenchWriteRows, RoundTripWithQuoting) {
    ScratchDir dir;
    Row row;
    row.suite = "p2p";
    row.benchmark = "overlap";
    row.runtime = "simpi";
    row.mode = "smart";
    row.helpers = 2;
    row.nodes = 2;
    row.ranks_per_node = 4;
    row.msg_size = 262144;
    row.metric = "overlap_median";
    row.value = 0.1 + 0.2;  // needs every digit to come back equal
    row.unit = "%";
    row.host = "node,1 \"big\"";
    row.config = "simpi-smart-h2";
    row.study = "scalability";
    row.pairs = 4;
    row.run = "scalability.simpi-smart-h2.p4";
    row.ranks = 8;
    write_rows(dir.file("r.csv"), {row}, {{"profile", "quick"}});
    EXPECT_EQ(test::read_text(dir.file("r.csv")).rfind("# profile: quick\n", 0), 0u);
    const auto back = read_rows(dir.file("r.csv"));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].host, row.host);
    EXPECT_EQ(back[0].value, row.value);
    EXPECT_EQ(back[0].study, "scalability");
    EXPECT_EQ(back[0].pairs, 4);
    EXPECT_EQ(back[0].run, row.run);
    EXPECT_EQ(back[0].config, row.config);
    EXPECT_EQ(back[0].ranks, 8);
}

TEST(SibenchRuns, RoundTrip) {
    ScratchDir dir;
    RunRecord r;
    r.id = "overlap.mpich.p1";
    r.study = "overlap";
    r.benchmark = "overlap";
    r.config = "mpich";
    r.ranks = 2;
    r.pairs = 1;
    r.status = "failed";
    r.exit_status = 3;
    r.seconds = 1.25;
    r.command = "K='a b' mpiexec.hydra -n 2 ./overlap.mpich --sizes 16k,1m";
    r.log = "logs/overlap.mpich.p1.log";
    r.csv = "raw/overlap.mpich.p1.csv";
    r.note = "said \"no\"";
    write_runs(dir.file("runs.csv"), {r, r});
    const auto back = read_runs(dir.file("runs.csv"));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[1].command, r.command);
    EXPECT_EQ(back[1].note, r.note);
    EXPECT_EQ(back[1].exit_status, 3);
    EXPECT_NEAR(back[1].seconds, 1.2, 0.051);  // written with one decimal
}

// A run directory: two successful runs and a failed one; results merge the two.
TEST(SibenchCollect, MergesSuccessfulRunsAndTagsRows) {
    ScratchDir dir;
    auto record = [](std::string id, std::string config, std::string status) {
        RunRecord r;
        r.id = id;
        r.study = "scalability";
        r.benchmark = "overlap";
        r.config = config;
        r.ranks = 8;
        r.pairs = 4;
        r.status = status;
        r.csv = "raw/" + id + ".csv";
        r.log = "logs/" + id + ".log";
        return r;
    };
    write_runs(dir.file("runs.csv"), {record("a", "simpi-none", "ok"), record("b", "mpich", "ok"),
                                      record("c", "simpi-thread", "failed")});
    write_text(
        dir.file("raw/a.csv"),
        benchmark_csv("p2p,overlap,simpi,none,0,2,4,32768,overlap_median,10,%,3,1,vm,x,d\n"));
    // MPICH on one host: 1 node of 8 ranks, but the run says 4 pairs.
    write_text(
        dir.file("raw/b.csv"),
        benchmark_csv("p2p,overlap,mpich,default,0,1,8,32768,overlap_median,20,%,3,1,vm,x,d\n"));
    write_text(
        dir.file("raw/c.csv"),
        benchmark_csv("p2p,overlap,simpi,thread,0,2,4,32768,overlap_median,30,%,3,1,vm,x,d\n"));
    const Collected c = collect_results(dir.path());
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_TRUE(c.notes.empty());
    EXPECT_EQ(c.rows[1].config, "mpich");
    EXPECT_EQ(c.rows[1].study, "scalability");
    EXPECT_EQ(c.rows[1].pairs, 4);
    EXPECT_EQ(c.rows[1].run, "b");
}

TEST(SibenchCollect, NotesAConfigurationThatDidNotReachTheBenchmark) {
    ScratchDir dir;
    RunRecord r;
    r.id = "a";
    r.study = "overlap";
    r.benchmark = "overlap";
    r.config = "simpi-smart-h1";
    r.pairs = 1;
    r.status = "ok";
    r.csv = "raw/a.csv";
    write_runs(dir.file("runs.csv"), {r});
    write_text(
        dir.file("raw/a.csv"),
        benchmark_csv("p2p,overlap,simpi,none,0,2,1,32768,overlap_median,10,%,3,1,vm,x,d\n"));
    const Collected c = collect_results(dir.path());
    ASSERT_EQ(c.notes.size(), 1u);
    EXPECT_NE(c.notes[0].find("simpi-none"), std::string::npos) << c.notes[0];
}

TEST(SibenchCollect, SbatchStatusFiles) {
    ScratchDir dir;
    auto record = [](std::string id) {
        RunRecord r;
        r.id = id;
        r.study = "overlap";
        r.benchmark = "overlap";
        r.config = "simpi-none";
        r.ranks = 2;
        r.pairs = 1;
        r.csv = "raw/" + id + ".csv";
        return r;
    };
    write_runs(dir.file("manifest.csv"),
               {record("ok"), record("bad"), record("late"), record("pending")});
    write_text(dir.file("status/ok"), "0 100.0 112.5\n");
    write_text(dir.file("status/bad"), "1 100 101\n");
    write_text(dir.file("status/late"), "124 100 700\n");
    write_text(
        dir.file("raw/ok.csv"),
        benchmark_csv("p2p,overlap,simpi,none,0,2,1,32768,overlap_median,10,%,3,1,vm,x,d\n"));
    ASSERT_TRUE(is_sbatch_dir(dir.path()));
    const auto runs = read_sbatch_status(dir.path());
    ASSERT_EQ(runs.size(), 4u);
    EXPECT_EQ(runs[0].status, "ok");
    EXPECT_DOUBLE_EQ(runs[0].seconds, 12.5);
    EXPECT_EQ(runs[1].status, "failed");
    EXPECT_EQ(runs[1].exit_status, 1);
    EXPECT_EQ(runs[2].status, "timeout");
    EXPECT_EQ(runs[3].status, "planned");
    EXPECT_EQ(collect_results(dir.path()).rows.size(), 1u);
}

}  // namespace
}  // namespace si::harness
