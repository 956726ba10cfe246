// Unit tests of the MPI-free parts of the benchmark harness: CSV quoting, statistics,
// the size sweep and the iteration schedule.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <CLI/CLI.hpp>

#include "common/csv.hpp"
#include "common/options.hpp"
#include "common/stats.hpp"

namespace si::bench {
namespace {

TEST(CsvQuote, LeavesPlainFieldsAlone) {
    EXPECT_EQ(csv_quote("latency_median"), "latency_median");
    EXPECT_EQ(csv_quote(""), "");
}

TEST(CsvQuote, QuotesSeparatorsAndDoublesQuotes) {
    EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_quote("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_quote("cr\r"), "\"cr\r\"");
}

TEST(Summarize, OddAndEvenCounts) {
    const double odd[] = {5, 1, 3};
    const Summary s = summarize(odd);
    EXPECT_EQ(s.count, 3u);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.median, 3);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_DOUBLE_EQ(s.max, 5);
    const double even[] = {4, 1, 3, 2};
    EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
}

TEST(Summarize, AMissingValueMakesEveryStatisticMissing) {
    const double values[] = {1, std::numeric_limits<double>::quiet_NaN(), 3};
    const Summary s = summarize(values);
    EXPECT_EQ(s.count, 3u);
    EXPECT_TRUE(std::isnan(s.min) && std::isnan(s.median) && std::isnan(s.mean) && std::isnan(s.max));
}

TEST(Summarize, ConvertsBeforeSummarizing) {
    // Times of 1 s and 4 s for 4 bytes: rates 4 and 1 B/s. The mean rate is 2.5,
    // not the rate of the mean time (1.6).
    const double seconds[] = {1, 4};
    const Summary s = summarize(seconds, [](double t) { return 4 / t; });
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 4);
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
}

TEST(Summarize, EmptyIsZero) {
    const Summary s = summarize(std::span<const double>{});
    EXPECT_EQ(s.count, 0u);
    EXPECT_DOUBLE_EQ(s.median, 0);
}

TEST(SizeSweep, IncludesZeroAndPowersOfTwo) {
    EXPECT_EQ(size_sweep(0, 8), (std::vector<std::size_t>{0, 1, 2, 4, 8}));
    EXPECT_EQ(size_sweep(1, 4), (std::vector<std::size_t>{1, 2, 4}));
    EXPECT_EQ(size_sweep(3, 20), (std::vector<std::size_t>{4, 8, 16}));
    EXPECT_EQ(size_sweep(0, 0), (std::vector<std::size_t>{0}));
    EXPECT_TRUE(size_sweep(16, 8).empty());
}

TEST(Schedule, DefaultsSplitAtLargeAbove) {
    const Options options;
    const ScheduleDefaults d{
        .iterations = 1000, .warmup = 100, .large_iterations = 100, .large_warmup = 10};
    EXPECT_EQ(options.schedule_for(64 * KiB, d).iterations, 1000);
    EXPECT_EQ(options.schedule_for(64 * KiB + 1, d).iterations, 100);
    EXPECT_EQ(options.schedule_for(4 * MiB, d).warmup, 10);
}

TEST(Schedule, ExplicitIterationsCapLargeSizes) {
    Options options;
    options.iterations = 3;
    options.warmup = 1;
    const ScheduleDefaults d;
    const Schedule large = options.schedule_for(4 * MiB, d);
    EXPECT_EQ(large.iterations, 3);
    EXPECT_EQ(large.warmup, 1);
    options.large_iterations = 7;
    EXPECT_EQ(options.schedule_for(4 * MiB, d).iterations, 7);
}

TEST(Schedule, CarriesTheBatch) {
    Options options;
    EXPECT_EQ(options.schedule_for(8, ScheduleDefaults{}).batch, 0);  // automatic
    options.batch = 1;
    EXPECT_EQ(options.schedule_for(8, ScheduleDefaults{}).batch, 1);
    EXPECT_EQ(options.schedule_for(4 * MiB, ScheduleDefaults{}).batch, 1);
}

TEST(Options, ParsesSizeSuffixes) {
    Options options;
    CLI::App app;
    options.add_to(app);
    app.parse("--max-size 4m --min-size 64k --iterations 5 --csv out.csv -q", false);
    EXPECT_EQ(options.max_size, 4 * MiB);
    EXPECT_EQ(options.min_size, 64 * KiB);
    EXPECT_EQ(options.iterations, 5);
    EXPECT_EQ(options.csv_path, "out.csv");
    EXPECT_TRUE(options.quiet);
}

TEST(Options, SizeListReplacesTheSweep) {
    Options options;
    CLI::App app;
    options.add_to(app);
    app.parse("--sizes 256k,32k,256k --min-size 1 --max-size 8", false);
    options.apply_size_list();
    EXPECT_EQ(options.sizes(), (std::vector<std::size_t>{32 * KiB, 256 * KiB}));
    // Buffers are sized by max_size: it must cover the list.
    EXPECT_EQ(options.min_size, 32 * KiB);
    EXPECT_EQ(options.max_size, 256 * KiB);
}

TEST(Options, NoSizeListKeepsTheSweep) {
    Options options;
    CLI::App app;
    options.add_to(app);
    app.parse("--min-size 16k --max-size 64k", false);
    options.apply_size_list();
    EXPECT_EQ(options.sizes(), (std::vector<std::size_t>{16 * KiB, 32 * KiB, 64 * KiB}));
}

TEST(Options, SizeListAcceptsPlainBytesAndMiB) {
    Options options;
    CLI::App app;
    options.add_to(app);
    app.parse("--sizes 0,100,1m", false);
    options.apply_size_list();
    EXPECT_EQ(options.sizes(), (std::vector<std::size_t>{0, 100, MiB}));
}

TEST(Options, SizeListRejectsNonsense) {
    Options options;
    CLI::App app;
    options.add_to(app);
    EXPECT_THROW(app.parse("--sizes 32k,lots", false), CLI::ValidationError);
    Options huge;
    CLI::App huge_app;
    huge.add_to(huge_app);
    EXPECT_THROW(huge_app.parse("--sizes 2g", false), CLI::ValidationError);
}

TEST(Options, RejectsZeroIterations) {
    Options options;
    CLI::App app;
    options.add_to(app);
    EXPECT_THROW(app.parse("--iterations 0", false), CLI::ValidationError);
}

}  // namespace
}  // namespace si::bench
