// NPB result blocks into rows (Fortran's and C's print routines), failed runs, and
// the make.def sibench writes.
#include <gtest/gtest.h>

#include "suite_fixtures.hpp"
#include "suites/suite.hpp"

namespace si::harness {
namespace {

using test::rows_of;
using test::run_context;
using test::suite_fixture;

TEST(SibenchSuitesNpb, FortranResultBlock) {
    const auto output =
        parse_npb_output(suite_fixture("npb34_sp.S.mpich.txt"), run_context("sp.S", "mpich", 4));
    EXPECT_EQ(output.failure, "");
    EXPECT_TRUE(output.notes.empty());
    ASSERT_EQ(output.rows.size(), 3u);
    const Row time = rows_of(output, "time_max").at(0);
    EXPECT_EQ(time.suite, "npb");
    EXPECT_EQ(time.benchmark, "sp.S");
    EXPECT_DOUBLE_EQ(time.value, 3.12);
    EXPECT_EQ(time.unit, "s");
    EXPECT_EQ(time.iterations, 100);
    EXPECT_EQ(time.msg_size, 0u);
    EXPECT_EQ(time.ranks, 4);
    EXPECT_DOUBLE_EQ(rows_of(output, "mops_total").at(0).value, 30.99);
    EXPECT_DOUBLE_EQ(rows_of(output, "mops_per_process").at(0).value, 7.75);
}

TEST(SibenchSuitesNpb, CResultBlock) {
    const auto output = parse_npb_output(suite_fixture("npb33_is.S.simpi-none.txt"),
                                         run_context("is.S", "simpi-none", 4));
    EXPECT_EQ(output.failure, "");
    EXPECT_DOUBLE_EQ(rows_of(output, "mops_total").at(0).value, 152.30);
    EXPECT_DOUBLE_EQ(rows_of(output, "time_max").at(0).value, 0) << "NPB prints 2 decimals";
    EXPECT_EQ(rows_of(output, "time_max").at(0).iterations, 10);
}

TEST(SibenchSuitesNpb, FailedVerificationFailsTheRun) {
    // The real block with its verdict changed: what NPB prints when the numbers
    // are wrong.
    std::string text = suite_fixture("npb34_sp.S.mpich.txt");
    const std::string verdict = "=               SUCCESSFUL";
    text.replace(text.find(verdict), verdict.size(), "=             UNSUCCESSFUL");
    const auto output = parse_npb_output(text, run_context("sp.S", "mpich", 4));
    EXPECT_EQ(output.failure, "NPB verification UNSUCCESSFUL");
    EXPECT_EQ(output.rows.size(), 3u) << "kept in the raw CSV of the failed run";
}

TEST(SibenchSuitesNpb, NoResultBlockFailsTheRun) {
    // sp.S.4 of NPB 3.3 started on 2 ranks exits 0 without a result.
    const auto output = parse_npb_output(suite_fixture("npb33_sp.S.4-on-2-ranks.mpich.txt"),
                                         run_context("sp.S", "mpich", 2));
    EXPECT_TRUE(output.rows.empty());
    EXPECT_NE(output.failure.find("Benchmark Completed"), std::string::npos) << output.failure;
}

TEST(SibenchSuitesNpb, ClassMismatchIsNoted) {
    const auto output =
        parse_npb_output(suite_fixture("npb34_sp.S.mpich.txt"), run_context("sp.W", "mpich", 4));
    ASSERT_EQ(output.notes.size(), 1u);
    EXPECT_NE(output.notes[0].find("class S"), std::string::npos) << output.notes[0];
}

TEST(SibenchSuitesNpb, MakeDefForGfortranTenAndLater) {
    Toolchain tools;
    tools.library = "mpich";
    tools.cc = "/usr/bin/mpicc.mpich";
    tools.fc = "/usr/bin/mpif90.mpich";
    const std::string modern = npb_make_def(tools, 12);
    EXPECT_NE(modern.find("MPIFC = /usr/bin/mpif90.mpich\n"), std::string::npos) << modern;
    EXPECT_NE(modern.find("MPIF77 = /usr/bin/mpif90.mpich\n"), std::string::npos) << "NPB 3.3";
    EXPECT_NE(modern.find("FLINK = /usr/bin/mpif90.mpich\n"), std::string::npos);
    EXPECT_NE(modern.find("MPICC = /usr/bin/mpicc.mpich\n"), std::string::npos);
    EXPECT_NE(modern.find("FFLAGS = -O2 -fallow-argument-mismatch -fallow-invalid-boz\n"),
              std::string::npos)
        << modern;
    const std::string older = npb_make_def(tools, 9);
    EXPECT_NE(older.find("FFLAGS = -O2\n"), std::string::npos) << older;
}

TEST(SibenchSuitesNpb, BenchmarkNamesCarryTheClass) {
    const SuiteDriver& npb = suite_driver(SuiteKind::npb);
    EXPECT_EQ(npb.check_benchmark("sp.S"), "");
    EXPECT_EQ(npb.check_benchmark("cg.W"), "");
    EXPECT_NE(npb.check_benchmark("sp"), "");
    EXPECT_NE(npb.check_benchmark("sp.s"), "");
    EXPECT_NE(npb.check_benchmark("xx.S"), "");
}

}  // namespace
}  // namespace si::harness
