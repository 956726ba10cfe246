// Instructions per operation (harness/src/instructions.*): metric names, the tables
// with their ratios to MPICH and to the faster peer, the polled mark, the gate on
// such rows (compared as they are, exactly), and the shipped profiles that run them.
#include <gtest/gtest.h>

#include <algorithm>

#include "compare.hpp"
#include "instructions.hpp"
#include "profile.hpp"

namespace si::harness {
namespace {

Row count_row(const std::string& config, int ranks, const std::string& operation,
              std::uint64_t size, const std::string& stat, double value, int round = 0) {
    Row r;
    r.suite = "instructions";
    r.benchmark = "op_instructions";
    r.study = "instructions";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.nodes = 1;
    r.ranks_per_node = ranks;
    r.ranks = ranks;
    r.msg_size = size;
    r.metric = "instructions_" + operation + "_" + stat;
    r.value = value;
    r.unit = "instructions";
    r.round = round;
    return r;
}

// The words of the table line that starts with `label`.
std::vector<std::string> line_words(const std::string& text, const std::string& label) {
    std::vector<std::string> words;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        at = end == std::string::npos ? text.size() : end + 1;
        if (!line.starts_with(label + " ")) continue;
        std::size_t w = 0;
        while ((w = line.find_first_not_of(' ', w)) != std::string::npos) {
            const auto stop = line.find(' ', w);
            words.push_back(line.substr(w, stop - w));
            w = stop;
        }
        break;
    }
    return words;
}

// Median and least count of one cell.
void add_cell(std::vector<Row>& rows, const std::string& config, int ranks,
              const std::string& operation, std::uint64_t size, double median, double least) {
    rows.push_back(count_row(config, ranks, operation, size, "median", median));
    rows.push_back(count_row(config, ranks, operation, size, "min", least));
}

TEST(SibenchInstructions, OperationOfAMetric) {
    EXPECT_EQ(instruction_operation("instructions_bcast_median"), "bcast");
    EXPECT_EQ(instruction_operation("instructions_isend_window_min"), "isend_window");
    EXPECT_EQ(instruction_operation("latency_median"), "");
    EXPECT_EQ(instruction_operation("instructions_"), "");
}

TEST(SibenchInstructions, TablesPerJobSizeInTheBenchmarksOrder) {
    std::vector<Row> rows;
    add_cell(rows, "mpich", 2, "bcast", 8, 1190, 1190);
    add_cell(rows, "simpi-none", 2, "bcast", 8, 1713, 1713);
    add_cell(rows, "simpi-none", 2, "pingpong", 8, 2081, 2081);
    add_cell(rows, "simpi-none", 2, "bcast", 1024, 1825, 1825);
    add_cell(rows, "simpi-none", 4, "bcast", 8, 2414, 2414);
    rows.push_back(count_row("simpi-none", 2, "bcast", 8, "mean", 1900));  // not shown
    const auto tables = instruction_tables(rows);
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0].ranks, 2);
    EXPECT_EQ(tables[1].ranks, 4);
    EXPECT_EQ(tables[0].configs, (std::vector<std::string>{"simpi-none", "mpich"}));
    // The per-message path first, then the collectives; sizes ascending.
    ASSERT_EQ(tables[0].rows.size(), 3u);
    using Key = std::pair<std::string, std::uint64_t>;
    EXPECT_EQ(tables[0].rows, (std::vector<Key>{{"pingpong", 8}, {"bcast", 8}, {"bcast", 1024}}));
    ASSERT_TRUE(tables[0].cells[1][0]);
    EXPECT_DOUBLE_EQ(tables[0].cells[1][0]->median, 1713);
    EXPECT_FALSE(tables[0].cells[0][1]) << "MPICH has no ping-pong row";
}

TEST(SibenchInstructions, RatiosToMpichAndToTheFasterPeer) {
    std::vector<Row> rows;
    add_cell(rows, "simpi-none", 2, "bcast", 8, 1800, 1800);
    add_cell(rows, "mpich", 2, "bcast", 8, 1200, 1200);
    add_cell(rows, "openmpi", 2, "bcast", 8, 900, 900);
    // Open MPI polled: its median is most of all waiting.
    add_cell(rows, "simpi-none", 2, "allreduce", 1024, 3000, 3000);
    add_cell(rows, "mpich", 2, "allreduce", 1024, 6000, 6000);
    add_cell(rows, "openmpi", 2, "allreduce", 1024, 9000, 2000);
    const std::string text = format_instruction_tables(instruction_tables(rows));
    EXPECT_NE(text.find("none/mpich"), std::string::npos) << text;
    EXPECT_NE(text.find("none/peer"), std::string::npos) << text;
    // bcast: 1800 / 1200 and 1800 / 900 (Open MPI the faster peer).
    EXPECT_EQ(line_words(text, "bcast"),
              (std::vector<std::string>{"bcast", "8", "B", "1800", "1200", "900", "1.50", "2.00"}))
        << text;
    // allreduce: Open MPI polled, so its cell shows its least count, 2000, marked; that
    // makes it the faster peer.
    EXPECT_EQ(line_words(text, "allreduce"),
              (std::vector<std::string>{"allreduce", "1", "KiB", "3000", "6000", "2000~", "0.50",
                                        "1.50~"}))
        << text;
    EXPECT_TRUE(InstructionCell({9000, 2000}).polled());
    EXPECT_DOUBLE_EQ(InstructionCell({9000, 2000}).shown(), 2000);
    EXPECT_FALSE(InstructionCell({2900, 2000}).polled());
    EXPECT_DOUBLE_EQ(InstructionCell({2900, 2000}).shown(), 2900);
}

TEST(SibenchInstructions, RoundsGiveTheirMedian) {
    std::vector<Row> rows;
    for (int round = 1; round <= 3; ++round) {
        rows.push_back(count_row("simpi-none", 2, "barrier", 0, "median", 2640 + 5 * round, round));
        rows.push_back(count_row("simpi-none", 2, "barrier", 0, "min", 2600 + round, round));
    }
    const auto tables = instruction_tables(rows);
    ASSERT_EQ(tables.size(), 1u);
    ASSERT_TRUE(tables[0].cells[0][0]);
    EXPECT_DOUBLE_EQ(tables[0].cells[0][0]->median, 2650);
    EXPECT_DOUBLE_EQ(tables[0].cells[0][0]->least, 2601);
    EXPECT_EQ(format_instruction_tables({}), "");
}

TEST(SibenchInstructions, AreLowerIsBetterAndGatedExactly) {
    const Row reference = count_row("simpi-none", 2, "bcast", 8, "median", 1713);
    EXPECT_EQ(direction_of(reference), Direction::lower_is_better);
    EXPECT_TRUE(is_absolute_metric(reference));
    CompareOptions options;
    options.tolerances = parse_tolerances("instructions=0,default=75%");
    Row one_more = reference;
    one_more.value = 1714;
    EXPECT_EQ(compare_rows({reference}, {one_more}, options).regressions, 1);
    Row one_less = reference;
    one_less.value = 1712;
    const auto better = compare_rows({reference}, {one_less}, options);
    EXPECT_EQ(better.regressions, 0);
    EXPECT_EQ(better.improvements, 1);
    EXPECT_EQ(compare_rows({reference}, {reference}, options).exit_code(options), 0);
}

TEST(SibenchInstructions, StayCountsUnderBaselines) {
    // simpi-none's count has no MPICH row in the gate's run: kept as it is, not dropped
    // and not divided.
    const std::vector<Row> rows = {count_row("simpi-none", 2, "bcast", 8, "median", 1713),
                                   count_row("mpich", 2, "bcast", 8, "median", 1190)};
    const auto relative = relative_to_baselines(rows, {"simpi-none", "mpich"});
    ASSERT_EQ(relative.size(), 2u);
    EXPECT_EQ(relative[0].benchmark, "op_instructions");
    EXPECT_DOUBLE_EQ(relative[0].value, 1713);
    EXPECT_EQ(relative[0].unit, "instructions");
    EXPECT_DOUBLE_EQ(relative[1].value, 1190);
}

TEST(SibenchInstructions, ShippedProfiles) {
    const auto instructions = expand_matrix(parse_profile_file(find_profile("instructions")));
    std::vector<std::string> ids;
    for (const auto& run : instructions) ids.push_back(run.id);
    for (const char* id : {"instructions.simpi-none.r2", "instructions.simpi-smart-h1.r2",
                           "instructions.mpich.r2", "instructions.openmpi.r4"})
        EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
    for (const auto& run : instructions) {
        EXPECT_EQ(run.benchmark, "op_instructions");
        EXPECT_EQ(run.pairs, 0) << "one node: no simulated nodes";
    }
    // The gate: simpi-none on 2 ranks only, a few seconds.
    int gated = 0;
    for (const auto& run : expand_matrix(parse_profile_file(find_profile("gate")))) {
        if (run.benchmark != "op_instructions") continue;
        ++gated;
        EXPECT_EQ(run.config.name(), "simpi-none");
        EXPECT_EQ(run.ranks(), 2);
    }
    EXPECT_EQ(gated, 1);
}

}  // namespace
}  // namespace si::harness
