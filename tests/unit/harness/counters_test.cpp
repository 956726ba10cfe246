// The runtime's counters in a run directory: gathered from the ranks' SI_STATS
// files of the runs that ended well, kept in counters.csv, and the summary's
// table of wake-ups per message.
#include "counters.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_files.hpp"

namespace si::harness {
namespace {

RunRecord run(const std::string& id, const std::string& config, const std::string& status) {
    RunRecord r;
    r.id = id;
    r.study = "overlap";
    r.config = config;
    r.ranks = 2;
    r.status = status;
    return r;
}

void write_rank(const test::ScratchDir& dir, const std::string& id, int rank, int messages,
                int wakeups, int futile) {
    std::string text = "rank,counter,value\n";
    text += fmt::format("{},messages_received,{}\n", rank, messages);
    if (wakeups >= 0) {
        text += fmt::format("{},wakeups,{}\n", rank, wakeups);
        text += fmt::format("{},futile_wakeups,{}\n", rank, futile);
    }
    test::write_text(fmt::format("{}.{}", counters_prefix(dir.path(), id), rank), text);
}

TEST(SibenchCounters, GatheredFromTheRanksOfRunsThatEndedWell) {
    test::ScratchDir dir;
    write_rank(dir, "a", 0, 10, 9, 4);
    write_rank(dir, "a", 1, 10, 8, 2);
    write_rank(dir, "b", 0, 10, 1, 0);  // a failed run's counters are left out
    const auto rows = collect_counters(dir.path(), {run("a", "simpi-interrupt", "ok"),
                                                    run("b", "simpi-smart-h1", "failed"),
                                                    run("c", "mpich", "ok")});
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[0].run, "a");
    EXPECT_EQ(rows[0].config, "simpi-interrupt");
    EXPECT_EQ(rows[4].rank, 1);
    EXPECT_EQ(rows[4].counter, "wakeups");
    EXPECT_EQ(rows[4].value, 8u);

    write_counters(dir.file("counters.csv"), rows);
    const auto again = read_counters(dir.file("counters.csv"));
    ASSERT_EQ(again.size(), rows.size());
    EXPECT_EQ(again[5].counter, "futile_wakeups");
    EXPECT_EQ(again[5].value, 2u);
    EXPECT_TRUE(read_counters(dir.file("none.csv")).empty());
}

TEST(SibenchCounters, WakeupsPerMessageForConfigurationsThatWake) {
    test::ScratchDir dir;
    write_rank(dir, "i", 0, 100, 90, 30);
    write_rank(dir, "i", 1, 100, 70, 10);
    write_rank(dir, "s", 0, 100, 4, 0);
    write_rank(dir, "s", 1, 100, 0, 0);
    write_rank(dir, "n", 0, 100, -1, 0);  // no thread that wakes: no line
    write_rank(dir, "n", 1, 100, -1, 0);
    const auto rows = collect_counters(
        dir.path(), {run("s", "simpi-smart-h1", "ok"), run("i", "simpi-interrupt", "ok"),
                     run("n", "simpi-none", "ok")});
    const std::string table = format_wakeup_table(rows);
    // interrupt before smart (the comparison's order), each summed over its ranks.
    const auto interrupt = table.find("simpi-interrupt");
    const auto smart = table.find("simpi-smart-h1");
    ASSERT_NE(interrupt, std::string::npos) << table;
    ASSERT_NE(smart, std::string::npos) << table;
    EXPECT_LT(interrupt, smart);
    EXPECT_EQ(table.find("simpi-none"), std::string::npos) << table;
    EXPECT_NE(table.find("200        160         40        0.800       0.200"), std::string::npos)
        << table;
    EXPECT_NE(table.find("0.020       0.000"), std::string::npos) << table;
    EXPECT_TRUE(format_wakeup_table({}).empty());
}

}  // namespace
}  // namespace si::harness
