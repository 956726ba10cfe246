// The callgrind dump reader on text as callgrind 3.19 writes it (a dump of
// CALLGRIND_DUMP_STATS with --dump-instr=no --dump-line=no), and on damaged text.
#include <gtest/gtest.h>

#include "instructions/callgrind_dump.hpp"

namespace si::bench::instructions {
namespace {

constexpr const char* kDump = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 8841
cmd:  ./t
part: 1


desc: I1 cache: 
desc: Timerange: Basic block 0 - 30435
desc: Trigger: Client Request

positions: line
events: Ir
summary: 6015


ob=(5) /tmp/cgtest/t
fl=(139) ???
fn=(502) (below main)
cfn=(504) __libc_start_main@@GLIBC_2.34
calls=0 242 
0 6015

fn=(536) main
0 6015
totals: 6015
)";

TEST(CallgrindDump, ReadsTheInstructionTotal) {
    EXPECT_EQ(dump_total(kDump), 6015u);
}

TEST(CallgrindDump, PrefersTotalsToTheSummaryAndFindsTheEventsColumn) {
    const std::string text =
        "events: Ir Dr Dw\nsummary: 10 20 30\nfn=(1) ns::f()\n0 5 6 7\ntotals: 11 21 31\n";
    EXPECT_EQ(dump_total(text), 11u);
    EXPECT_EQ(dump_total(text, "Dw"), 31u);
}

TEST(CallgrindDump, ReadsTheSummaryWhenThereAreNoTotals) {
    EXPECT_EQ(dump_total("events: Ir\nsummary: 42\n"), 42u);
}

TEST(CallgrindDump, AnEventLeftOutOfATotalsLineIsZero) {
    EXPECT_EQ(dump_total("events: Ir Dr\ntotals: 7\n", "Dr"), 0u);
}

TEST(CallgrindDump, AnEmptyDumpCountsZero) {
    EXPECT_EQ(dump_total("events: Ir\nsummary: 0\ntotals: 0\n"), 0u);
}

TEST(CallgrindDump, NothingWithoutEventsOrTotals) {
    EXPECT_FALSE(dump_total(""));
    EXPECT_FALSE(dump_total("totals: 5\n"));                // no events line before it
    EXPECT_FALSE(dump_total("events: Ir\nfn=(1) main\n"));  // cut off before the totals
    EXPECT_FALSE(dump_total("events: Dr\ntotals: 5\n"));    // no Ir
    EXPECT_FALSE(dump_total("events: Ir\ntotals: 5x\n"));   // not a number
}

TEST(CallgrindDump, NamesTheDumpsAfterTheOutputFile) {
    EXPECT_EQ(dump_path("/tmp/d/callgrind.42", 3), "/tmp/d/callgrind.42.3");
}

}  // namespace
}  // namespace si::bench::instructions
