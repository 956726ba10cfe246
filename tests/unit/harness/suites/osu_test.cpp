// OSU micro-benchmark output into rows: point-to-point, blocking and nonblocking
// collectives, iteration counts, noise between the lines.
#include <gtest/gtest.h>

#include "suite_fixtures.hpp"
#include "suites/suite.hpp"

namespace si::harness {
namespace {

using test::rows_of;
using test::run_context;
using test::suite_fixture;

TEST(SibenchSuitesOsu, LatencyTableWithOmbDefaultCounts) {
    const auto output = parse_osu_output(suite_fixture("osu_latency.simpi-none.txt"),
                                         run_context("osu_latency", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    ASSERT_EQ(output.rows.size(), 24u) << "0 B and 1 B .. 4 MiB";
    const Row& first = output.rows.front();
    EXPECT_EQ(first.suite, "osu");
    EXPECT_EQ(first.benchmark, "osu_latency");
    EXPECT_EQ(first.config, "simpi-none");
    EXPECT_EQ(first.runtime, "simpi");
    EXPECT_EQ(first.mode, "none");
    EXPECT_EQ(first.ranks, 2);
    EXPECT_EQ(first.msg_size, 0u);
    EXPECT_EQ(first.metric, "latency_mean");
    EXPECT_EQ(first.unit, "us");
    EXPECT_DOUBLE_EQ(first.value, 1.34);
    // OMB 5.3: 10000 timed and 100 warm-up iterations up to 8 KiB, 1000 and 10 above.
    const auto at = [&](std::uint64_t size) {
        for (const auto& row : output.rows)
            if (row.msg_size == size) return row;
        return Row{};
    };
    EXPECT_EQ(at(8192).iterations, 10000);
    EXPECT_EQ(at(8192).warmup, 100);
    EXPECT_DOUBLE_EQ(at(16384).value, 11.90);
    EXPECT_EQ(at(16384).iterations, 1000);
    EXPECT_EQ(at(16384).warmup, 10);
    EXPECT_EQ(output.rows.back().msg_size, 4u << 20);
}

TEST(SibenchSuitesOsu, GivenCountsWin) {
    const auto output =
        parse_osu_output(suite_fixture("osu_latency.simpi-none.txt"),
                         run_context("osu_latency", "mpich", 2, {"-i", "50", "-x", "5"}));
    ASSERT_FALSE(output.rows.empty());
    for (const auto& row : output.rows) {
        EXPECT_EQ(row.iterations, 50);
        EXPECT_EQ(row.warmup, 5);
        EXPECT_EQ(row.config, "mpich");
    }
}

TEST(SibenchSuitesOsu, CollectiveFullFormat) {
    const auto output = parse_osu_output(suite_fixture("osu_allreduce.simpi-smart-h1.txt"),
                                         run_context("osu_allreduce", "simpi-smart-h1", 2));
    const auto mean = rows_of(output, "latency_mean");
    const auto min = rows_of(output, "latency_min");
    const auto max = rows_of(output, "latency_max");
    ASSERT_EQ(mean.size(), 19u) << "4 B .. 1 MiB";
    ASSERT_EQ(min.size(), mean.size());
    ASSERT_EQ(max.size(), mean.size());
    EXPECT_EQ(output.rows.size(), 3 * mean.size()) << "Size and Iterations are no metrics";
    EXPECT_EQ(mean.front().msg_size, 4u);
    EXPECT_DOUBLE_EQ(mean.front().value, 1.06);
    EXPECT_DOUBLE_EQ(min.front().value, 1.03);
    EXPECT_DOUBLE_EQ(max.front().value, 1.10);
    EXPECT_EQ(mean.front().helpers, 1);
    // The Iterations column: 1000 up to 32 KiB here, then 100.
    EXPECT_EQ(mean[13].msg_size, 32768u);
    EXPECT_EQ(mean[13].iterations, 1000);
    EXPECT_EQ(mean[14].iterations, 100);
}

TEST(SibenchSuitesOsu, BarrierHasNoSizeColumn) {
    const auto output = parse_osu_output(suite_fixture("osu_barrier.mpich.txt"),
                                         run_context("osu_barrier", "mpich", 2));
    ASSERT_EQ(output.rows.size(), 3u);
    for (const auto& row : output.rows) {
        EXPECT_EQ(row.msg_size, 0u);
        EXPECT_EQ(row.iterations, 100);
    }
    EXPECT_DOUBLE_EQ(rows_of(output, "latency_mean").at(0).value, 0.93);
}

TEST(SibenchSuitesOsu, NonblockingCollectiveColumnsKeepTheirNames) {
    const auto output = parse_osu_output(suite_fixture("osu_ibcast.mpich.txt"),
                                         run_context("osu_ibcast", "mpich", 2));
    EXPECT_EQ(output.failure, "");
    for (const char* metric : {"overall_mean", "compute_mean", "coll_init_mean", "mpi_test_mean",
                               "mpi_wait_mean", "pure_comm_mean", "overlap_mean"})
        EXPECT_EQ(rows_of(output, metric).size(), 11u) << metric;
    const auto overlap = rows_of(output, "overlap_mean");
    EXPECT_EQ(overlap.at(5).msg_size, 32u);
    EXPECT_DOUBLE_EQ(overlap.at(5).value, 4.78);
    EXPECT_EQ(overlap.at(5).unit, "%");
    EXPECT_EQ(rows_of(output, "overall_mean").at(0).unit, "us");
}

TEST(SibenchSuitesOsu, LauncherMessagesBetweenLinesAreSkipped) {
    std::string text = suite_fixture("osu_latency.simpi-none.txt");
    text.insert(text.find("1024 "), "sirun: rank 1 is slow to start\n");
    const auto output = parse_osu_output(text, run_context("osu_latency", "simpi-none", 2));
    EXPECT_EQ(output.rows.size(), 24u);
}

// OMB 7.4 with -c: a Validation column of words after the numbers.
TEST(SibenchSuitesOsu, ValidationColumnIsReadAndAFailFailsTheRun) {
    const std::string text = suite_fixture("osu74_latency_validated.simpi-none.txt");
    const auto output = parse_osu_output(text, run_context("osu_latency", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    ASSERT_EQ(output.rows.size(), 21u) << "1 B .. 1 MiB";
    EXPECT_EQ(output.rows.front().metric, "latency_mean");
    EXPECT_DOUBLE_EQ(output.rows.front().value, 0.59);
    std::string failed = text;
    failed.replace(failed.rfind("Pass"), 4, "Fail");
    const auto bad = parse_osu_output(failed, run_context("osu_latency", "simpi-none", 2));
    EXPECT_EQ(bad.failure, "osu_latency: OSU's validation failed at size 1048576");
    EXPECT_EQ(bad.rows.size(), 21u);
}

// OMB 7.4's one-sided tests with -c end with a report of dashed lines and
// sentences; none of it is a row, and none of it may be read as one.
TEST(SibenchSuitesOsu, OneSidedValidationReportIsNoTable) {
    const auto output =
        parse_osu_output(suite_fixture("osu74_acc_latency_validated.simpi-none.txt"),
                         run_context("osu_acc_latency", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    ASSERT_EQ(output.rows.size(), 7u) << "1 B .. 64 B";
    EXPECT_EQ(output.rows.back().msg_size, 64u);
    EXPECT_DOUBLE_EQ(output.rows.back().value, 0.76);
    EXPECT_TRUE(output.notes.empty());
}

// OMB 7.4's osu_get_mbw prints a number its header does not name.
TEST(SibenchSuitesOsu, UnnamedLastColumnIsLeftWithANote) {
    const auto output = parse_osu_output(suite_fixture("osu74_get_mbw.simpi-none.txt"),
                                         run_context("osu_get_mbw", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    const auto bandwidth = rows_of(output, "bandwidth_mean");
    ASSERT_EQ(bandwidth.size(), 7u);
    EXPECT_EQ(output.rows.size(), 7u);
    EXPECT_DOUBLE_EQ(bandwidth.front().value, 4.37);
    EXPECT_EQ(bandwidth.front().unit, "MB/s");
    ASSERT_EQ(output.notes.size(), 1u);
    EXPECT_NE(output.notes.front().find("1 of the table's 3 columns"), std::string::npos)
        << output.notes.front();
}

// OMB 5.3's osu_ibarrier names its columns on a line without '#'.
TEST(SibenchSuitesOsu, HeaderWithoutHashIsRead) {
    const auto output = parse_osu_output(suite_fixture("osu_ibarrier.simpi-none.txt"),
                                         run_context("osu_ibarrier", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    EXPECT_EQ(output.rows.size(), 4u);
    EXPECT_DOUBLE_EQ(rows_of(output, "overall_mean").at(0).value, 3.47);
    EXPECT_DOUBLE_EQ(rows_of(output, "overlap_mean").at(0).value, 62.77);
    EXPECT_EQ(rows_of(output, "pure_comm_mean").at(0).unit, "us");
}

// Numbers after a table that are fewer than its columns are no row of it.
TEST(SibenchSuitesOsu, ShortNumericLineAfterATableIsSkipped) {
    std::string text = suite_fixture("osu_latency.simpi-none.txt");
    text += "42\n";
    const auto output = parse_osu_output(text, run_context("osu_latency", "simpi-none", 2));
    EXPECT_EQ(output.rows.size(), 24u);
}

TEST(SibenchSuitesOsu, NoTableIsAFailure) {
    const auto output = parse_osu_output("This test requires exactly two processes\n",
                                         run_context("osu_latency", "mpich", 4));
    EXPECT_TRUE(output.rows.empty());
    EXPECT_NE(output.failure.find("no OSU result table"), std::string::npos);
}

}  // namespace
}  // namespace si::harness
