// sibench trace: rebuilding transfers from SI_TRACE events, on hand-written
// files whose stages are known.
#include "trace.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "test_files.hpp"

namespace si::harness {
namespace {

using test::ScratchDir;
using test::write_text;

constexpr const char* kHeader = "t_ns,process,thread,event,peer,id,value\n";

// Receiver-first, the thesis' path: rank 0 sends 1 MiB to rank 1, helper0
// matches and wakes rank 1's interrupt thread, which reads.
void write_interrupt_path(const ScratchDir& dir) {
    write_text(dir.file("t.rank0"), std::string(kHeader) +
                                         "10000,rank0,application,rts_sent,1,77,1048576\n"
                                         "95000,rank0,application,fin_seen,1,77,0\n");
    write_text(dir.file("t.rank1"), std::string(kHeader) +
                                         "1000,rank1,application,recv_posted,0,5,0\n"
                                         "25000,rank1,interrupt,interrupt_running,-1,0,0\n"
                                         "26000,rank1,interrupt,read_issued,0,77,1048576\n"
                                         "90000,rank1,interrupt,read_done,0,77,0\n"
                                         "120000,rank1,application,wait_entered,-1,0,0\n");
    write_text(dir.file("t.helper0"), std::string(kHeader) +
                                           "13000,helper0,helper,helper_matched,1,0,0\n"
                                           "14000,helper0,helper,wake_issued,1,0,0\n");
}

TEST(Trace, RebuildsTheStagesOfTheInterruptPath) {
    ScratchDir dir;
    write_interrupt_path(dir);
    const auto events = read_trace(dir.file("t"));
    ASSERT_EQ(events.size(), 9u);
    EXPECT_LE(events.front().t_ns, events.back().t_ns);
    const auto transfers = rebuild_transfers(events);
    ASSERT_EQ(transfers.size(), 1u);
    const Transfer& t = transfers[0];
    EXPECT_EQ(t.sender, 0);
    EXPECT_EQ(t.receiver, 1);
    EXPECT_EQ(t.bytes, 1048576u);
    EXPECT_EQ(t.moved_by, "interrupt thread");
    EXPECT_EQ(t.matched_ns, 13000u);
    EXPECT_EQ(t.wake_ns, 14000u);
    EXPECT_EQ(t.running_ns, 25000u);
    EXPECT_EQ(t.move_start_ns, 26000u);
    EXPECT_EQ(t.move_end_ns, 90000u);
    EXPECT_EQ(t.sender_done_ns, 95000u);
    EXPECT_EQ(t.receiver_posted_ns, 1000u);
    EXPECT_EQ(t.receiver_waits_ns, 120000u);

    const auto stages = stages_of(transfers);
    auto stage = [&](const std::string& name) {
        for (const Stage& s : stages)
            if (s.name == name) return s.us;
        throw std::logic_error("no stage " + name);
    };
    EXPECT_EQ(stage("rts->match"), std::vector<double>{3.0});
    EXPECT_EQ(stage("wake->running"), std::vector<double>{11.0});
    EXPECT_EQ(stage("move"), std::vector<double>{64.0});
    EXPECT_EQ(stage("rts->receiver in MPI"), std::vector<double>{110.0});
}

TEST(Trace, ASenderThatWritesItselfMovesTheData) {
    ScratchDir dir;
    write_text(dir.file("t.rank2"), std::string(kHeader) +
                                         "5000,rank2,application,rts_sent,3,9,262144\n"
                                         "5400,rank2,application,write_issued,3,9,262144\n"
                                         "20000,rank2,application,write_done,3,9,0\n");
    write_text(dir.file("t.rank3"), std::string(kHeader) +
                                         "4000,rank3,application,recv_posted,2,1,0\n"
                                         "60000,rank3,application,wait_entered,-1,0,0\n"
                                         "60500,rank3,application,read_done,2,9,0\n");
    const auto transfers = rebuild_transfers(read_trace(dir.file("t")));
    ASSERT_EQ(transfers.size(), 1u);
    EXPECT_EQ(transfers[0].moved_by, "sender");
    EXPECT_EQ(transfers[0].move_end_ns, 20000u);
    EXPECT_EQ(transfers[0].sender_done_ns, 20000u);
    EXPECT_FALSE(transfers[0].wake_ns.has_value());
}

TEST(Trace, ReportWritesTableAndData) {
    ScratchDir dir;
    write_interrupt_path(dir);
    const auto events = read_trace(dir.file("t"));
    std::vector<std::string> notes;
    const std::string table =
        write_trace_report(rebuild_transfers(events), events, dir.file("report"), 1, notes);
    EXPECT_NE(table.find("1048576 bytes: 1 transfers; data moved by 1 interrupt thread"),
              std::string::npos)
        << table;
    EXPECT_NE(test::read_text(dir.file("report/transfers.csv")).find("0,1,1048576,interrupt thread"),
              std::string::npos);
    EXPECT_NE(test::read_text(dir.file("report/timeline.dat")).find("\"wake\""), std::string::npos);
}

TEST(Trace, NoFilesIsAnErrorThatSaysWhatWasLookedFor) {
    ScratchDir dir;
    try {
        read_trace(dir.file("missing"));
        FAIL() << "expected an error";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("SI_TRACE"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace si::harness
