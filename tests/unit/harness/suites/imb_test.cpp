// IMB-MPI1 output into rows: PingPong with -DCHECK's defects column, collectives'
// t_min/t_max/t_avg, IMB's time-out, several process counts.
#include <gtest/gtest.h>

#include "suite_fixtures.hpp"
#include "suites/suite.hpp"

namespace si::harness {
namespace {

using test::rows_of;
using test::run_context;
using test::suite_fixture;

TEST(SibenchSuitesImb, PingPongOfACheckingBuild) {
    const auto output = parse_imb_output(suite_fixture("imb_pingpong_check.simpi-none.txt"),
                                         run_context("PingPong", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    EXPECT_TRUE(output.notes.empty()) << "no defects";
    const auto time = rows_of(output, "time_mean");
    const auto bandwidth = rows_of(output, "bandwidth_mean");
    const auto defects = rows_of(output, "defects");
    ASSERT_EQ(time.size(), 18u) << "0 B, then 1 B .. 64 KiB";
    EXPECT_EQ(bandwidth.size(), time.size());
    EXPECT_EQ(defects.size(), time.size());
    EXPECT_EQ(output.rows.size(), 3 * time.size());
    const Row& last = time.back();
    EXPECT_EQ(last.suite, "imb");
    EXPECT_EQ(last.benchmark, "PingPong");
    EXPECT_EQ(last.msg_size, 65536u);
    EXPECT_EQ(last.iterations, 640) << "#repetitions";
    EXPECT_DOUBLE_EQ(last.value, 111.73);
    EXPECT_EQ(last.unit, "us");
    EXPECT_DOUBLE_EQ(bandwidth.back().value, 586.54);
    EXPECT_EQ(bandwidth.back().unit, "MB/s");
    EXPECT_DOUBLE_EQ(defects.back().value, 0);
}

TEST(SibenchSuitesImb, DefectsAreNoted) {
    // The real table with one defect written in: a checking build reports wrong
    // results in that column.
    std::string text = suite_fixture("imb_pingpong_check.simpi-none.txt");
    const std::string line = "586.54         0.00";
    text.replace(text.find(line), line.size(), "586.54         3.00");
    const auto output = parse_imb_output(text, run_context("PingPong", "simpi-none", 2));
    EXPECT_EQ(output.failure, "") << "recorded, not a failed run";
    ASSERT_EQ(output.notes.size(), 1u);
    EXPECT_NE(output.notes[0].find("3 defects"), std::string::npos) << output.notes[0];
    EXPECT_DOUBLE_EQ(rows_of(output, "defects").back().value, 3);
}

TEST(SibenchSuitesImb, CollectivesAndATimeOut) {
    const auto output = parse_imb_output(suite_fixture("imb_allreduce_barrier.mpich.txt"),
                                         run_context("Allreduce", "mpich", 4));
    std::vector<Row> allreduce, barrier;
    for (const auto& row : output.rows)
        (row.benchmark == "Allreduce" ? allreduce : barrier).push_back(row);
    // 0, 4 and 8 bytes; IMB gave up at 16.
    ASSERT_EQ(allreduce.size(), 9u);
    EXPECT_EQ(allreduce[6].msg_size, 8u);
    EXPECT_EQ(allreduce[6].metric, "time_min");
    EXPECT_EQ(allreduce[7].metric, "time_max");
    EXPECT_EQ(allreduce[8].metric, "time_mean");
    EXPECT_DOUBLE_EQ(allreduce[8].value, 9060.85);
    EXPECT_EQ(allreduce[8].iterations, 556);
    ASSERT_EQ(output.notes.size(), 1u);
    EXPECT_NE(output.notes[0].find("stopped at 16 bytes"), std::string::npos) << output.notes[0];
    // Barrier: no #bytes column.
    ASSERT_EQ(barrier.size(), 3u);
    EXPECT_EQ(barrier[2].msg_size, 0u);
    EXPECT_EQ(barrier[2].iterations, 761);
    EXPECT_DOUBLE_EQ(barrier[2].value, 14055.18);
}

TEST(SibenchSuitesImb, TheLargestProcessCountCounts) {
    const auto output = parse_imb_output(suite_fixture("imb_allreduce_np2_np4.simpi-none.txt"),
                                         run_context("Allreduce", "simpi-none", 4));
    const auto mean = rows_of(output, "time_mean");
    ASSERT_EQ(mean.size(), 2u) << "the 4-process table only";
    EXPECT_DOUBLE_EQ(mean[0].value, 43.43);
    EXPECT_DOUBLE_EQ(mean[1].value, 19.41);
    EXPECT_EQ(mean[0].ranks_per_node, 4);
}

// IMB-RMA measures a benchmark twice, non-aggregate and aggregate: both are kept,
// named with the component and the mode.
TEST(SibenchSuitesImb, RmaModesAreTwoBenchmarks) {
    const auto output = parse_imb_output(suite_fixture("imb_rma_unidir_put.simpi-none.txt"),
                                         run_context("RMA:Unidir_put", "simpi-none", 2));
    EXPECT_EQ(output.failure, "");
    std::vector<Row> plain, aggregate;
    for (const Row& row : output.rows) {
        if (row.metric != "time_mean") continue;
        if (row.benchmark == "RMA:Unidir_put.non_aggregate") plain.push_back(row);
        if (row.benchmark == "RMA:Unidir_put.aggregate") aggregate.push_back(row);
    }
    ASSERT_EQ(plain.size(), 20u) << "0 B and 1 B .. 256 KiB";
    ASSERT_EQ(aggregate.size(), 20u);
    EXPECT_DOUBLE_EQ(plain.back().value, 24.46);
    EXPECT_DOUBLE_EQ(aggregate.back().value, 23.38);
    EXPECT_EQ(output.rows.size(), 2 * 20u * 3) << "time, bandwidth and defects";
}

TEST(SibenchSuitesImb, ComponentsNameTheirProgram) {
    const SuiteDriver& imb = suite_driver(SuiteKind::imb);
    EXPECT_EQ(imb.check_benchmark("PingPong"), "");
    EXPECT_EQ(imb.check_benchmark("NBC:Ibcast"), "");
    EXPECT_EQ(imb.check_benchmark("EXT:Accumulate"), "");
    EXPECT_NE(imb.check_benchmark("XYZ:Ibcast"), "");
    EXPECT_NE(imb.check_benchmark("NBC:"), "");
    EXPECT_EQ(imb.target_of("/src", "PingPong", 2), "IMB-MPI1");
    EXPECT_EQ(imb.target_of("/src", "RMA:Accumulate", 2), "IMB-RMA");
    const std::vector<std::string> argv = imb.program("/w/IMB-NBC", "NBC:Ibcast", 4, {"-iter", "5"});
    const std::vector<std::string> expected = {"/w/IMB-NBC", "-npmin", "4", "-iter", "5", "Ibcast"};
    EXPECT_EQ(argv, expected);
}

TEST(SibenchSuitesImb, NoTableIsAFailure) {
    const auto output = parse_imb_output("# Invalid benchmark name PingPang\n",
                                         run_context("PingPang", "mpich", 2));
    EXPECT_NE(output.failure.find("no IMB result table"), std::string::npos);
}

}  // namespace
}  // namespace si::harness
