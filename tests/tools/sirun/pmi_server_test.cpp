#include "sirun/pmi_server.hpp"

#include <gtest/gtest.h>

#include "bootstrap/pmi1_wire.hpp"

namespace si::sirun {
namespace {

using Kind = PmiEvent::Kind;
namespace pmi1 = bootstrap::pmi1;

class PmiServerTest : public ::testing::Test {
protected:
    PmiServer server_{3, "sirun-42"};
    std::vector<PmiReply> out_;

    PmiEvent send(int rank, std::string_view line) {
        out_.clear();
        return server_.handle_line(rank, line, out_);
    }
    // The one reply to the last line, parsed.
    pmi1::Message reply() {
        EXPECT_EQ(out_.size(), 1u);
        auto message = pmi1::parse_message(out_.at(0).line.substr(0, out_.at(0).line.size() - 1));
        EXPECT_TRUE(message);
        return *message;
    }
    void fence_all() {
        for (int r = 0; r < 3; ++r) send(r, "cmd=barrier_in");
        ASSERT_EQ(out_.size(), 3u);
    }
};

TEST_F(PmiServerTest, AnswersTheHandshakeLikeHydra) {
    EXPECT_EQ(send(1, "cmd=init pmi_version=1 pmi_subversion=1").kind, Kind::initialized);
    EXPECT_EQ(reply().command(), "response_to_init");
    EXPECT_EQ(reply().find_int("rc"), 0);
    EXPECT_TRUE(server_.initialized(1));
    EXPECT_FALSE(server_.initialized(0));

    send(1, "cmd=get_maxes");
    EXPECT_EQ(reply().command(), "maxes");
    EXPECT_EQ(reply().find_int("vallen_max"), 1024);
    send(1, "cmd=get_my_kvsname");
    EXPECT_EQ(reply().find("kvsname"), "sirun-42");
    send(1, "cmd=get_appnum");
    EXPECT_EQ(reply().find_int("appnum"), 0);
    send(1, "cmd=get_universe_size");
    EXPECT_EQ(reply().find_int("size"), 3);
}

TEST_F(PmiServerTest, RefusesOtherPmiVersions) {
    EXPECT_EQ(send(0, "cmd=init pmi_version=2 pmi_subversion=0").kind, Kind::protocol_error);
    EXPECT_EQ(reply().find_int("rc"), -1);
}

TEST_F(PmiServerTest, PutsBecomeVisibleAtTheFence) {
    send(0, "cmd=put kvsname=sirun-42 key=a value=x=1");
    EXPECT_EQ(reply().command(), "put_result");
    EXPECT_EQ(reply().find_int("rc"), 0);
    send(1, "cmd=get kvsname=sirun-42 key=a");
    EXPECT_EQ(reply().find_int("rc"), -1);
    fence_all();
    send(1, "cmd=get kvsname=sirun-42 key=a");
    EXPECT_EQ(reply().find_int("rc"), 0);
    EXPECT_EQ(reply().find("value"), "x=1");
}

TEST_F(PmiServerTest, BarrierReleasesEveryRankOnlyWhenAllArrived) {
    EXPECT_EQ(send(2, "cmd=barrier_in").kind, Kind::none);
    EXPECT_TRUE(out_.empty());
    send(0, "cmd=barrier_in");
    EXPECT_TRUE(out_.empty());
    send(1, "cmd=barrier_in");
    ASSERT_EQ(out_.size(), 3u);
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(out_[r].rank, r);
        EXPECT_EQ(out_[r].line, "cmd=barrier_out rc=0\n");
    }
    // And the next barrier starts from zero.
    send(1, "cmd=barrier_in");
    EXPECT_TRUE(out_.empty());
}

TEST_F(PmiServerTest, RejectsWrongKvsNamesAndOverlongValues) {
    send(0, "cmd=put kvsname=other key=a value=b");
    EXPECT_EQ(reply().find_int("rc"), -1);
    send(0, "cmd=put kvsname=sirun-42 key=a value=" + std::string(PmiServer::kMaxValue + 1, 'v'));
    EXPECT_EQ(reply().find_int("rc"), -1);
    send(0, "cmd=get kvsname=other key=PMI_process_mapping");
    EXPECT_EQ(reply().find_int("rc"), -1);
}

TEST_F(PmiServerTest, ServesMpichProcessMapping) {
    send(2, "cmd=get kvsname=sirun-42 key=PMI_process_mapping");
    EXPECT_EQ(reply().find("value"), "(vector,(0,1,3))");
}

TEST_F(PmiServerTest, ReportsAbortWithItsCode) {
    PmiEvent event = send(2, "cmd=abort exitcode=7");
    EXPECT_EQ(event.kind, Kind::aborted);
    EXPECT_EQ(event.exit_code, 7);
    EXPECT_TRUE(out_.empty());
}

TEST_F(PmiServerTest, FinalizeIsAcknowledgedAndRemembered) {
    EXPECT_EQ(send(0, "cmd=finalize").kind, Kind::finalized);
    EXPECT_EQ(reply().command(), "finalize_ack");
    EXPECT_TRUE(server_.finalized(0));
}

TEST_F(PmiServerTest, DetectsFencesThatCanNeverComplete) {
    send(1, "cmd=barrier_in");
    PmiEvent event = send(0, "cmd=finalize");
    EXPECT_EQ(event.kind, Kind::protocol_error);
    EXPECT_NE(event.problem.find("rank(s) 1"), std::string::npos) << event.problem;

    PmiServer other{2, "sirun-43"};
    std::vector<PmiReply> out;
    other.handle_line(0, "cmd=finalize", out);
    event = other.handle_line(1, "cmd=barrier_in", out);
    EXPECT_EQ(event.kind, Kind::protocol_error);
    EXPECT_NE(event.problem.find("rank 0 already finalized"), std::string::npos) << event.problem;
}

TEST_F(PmiServerTest, UnknownCommandsAndGarbageEndTheJob) {
    EXPECT_EQ(send(0, "cmd=spawn nprocs=2").kind, Kind::protocol_error);
    EXPECT_EQ(send(0, "hello").kind, Kind::protocol_error);
    EXPECT_EQ(send(0, "cmd=barrier_in").kind, Kind::none);
    EXPECT_EQ(send(0, "cmd=barrier_in").kind, Kind::protocol_error);
}

}  // namespace
}  // namespace si::sirun
