#include "bootstrap/pmi1_wire.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace si::bootstrap::pmi1 {
namespace {

TEST(Pmi1Message, FormatsFieldsInOrderWithNewline) {
    Message put("put");
    put.add("kvsname", "kvs_1_0").add("key", "host-3").add("value", "node7");
    EXPECT_EQ(put.format(), "cmd=put kvsname=kvs_1_0 key=host-3 value=node7\n");
    Message init("init");
    init.add("pmi_version", 1L).add("pmi_subversion", 1L);
    EXPECT_EQ(init.format(), "cmd=init pmi_version=1 pmi_subversion=1\n");
}

TEST(Pmi1Message, ParsesHydraReplies) {
    auto reply = parse_message("cmd=get_result rc=0 msg=success value=again");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->command(), "get_result");
    EXPECT_EQ(reply->find_int("rc"), 0);
    EXPECT_EQ(reply->find("msg"), "success");
    EXPECT_EQ(reply->find("value"), "again");
    EXPECT_FALSE(reply->find("absent"));

    auto missing = parse_message("cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->find_int("rc"), -1);

    auto maxes = parse_message("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
    ASSERT_TRUE(maxes);
    EXPECT_EQ(maxes->find_int("vallen_max"), 1024);
    EXPECT_FALSE(maxes->find_int("rc"));
}

TEST(Pmi1Message, ValueKeepsEqualsSignsAndMayBeEmpty) {
    auto message = parse_message("cmd=put key=mapping value=(vector,(0,1,4))=x empty=");
    ASSERT_TRUE(message);
    EXPECT_EQ(message->find("value"), "(vector,(0,1,4))=x");
    EXPECT_EQ(message->find("empty"), "");
    EXPECT_FALSE(message->find_int("empty"));
}

TEST(Pmi1Message, ToleratesExtraSpacesAndCarriageReturn) {
    auto message = parse_message("  cmd=barrier_out   rc=0 \r");
    ASSERT_TRUE(message);
    EXPECT_EQ(message->command(), "barrier_out");
    EXPECT_EQ(message->find_int("rc"), 0);
    EXPECT_EQ(message->fields().size(), 2u);
}

TEST(Pmi1Message, RejectsLinesThatAreNotCommands) {
    EXPECT_FALSE(parse_message(""));
    EXPECT_FALSE(parse_message("put key=a"));
    EXPECT_FALSE(parse_message("key=a cmd=put"));
    EXPECT_FALSE(parse_message("cmd= key=a"));
    EXPECT_FALSE(parse_message("cmd=put word"));
    EXPECT_FALSE(parse_message("cmd=put =value"));
    EXPECT_FALSE(parse_message("mcmd=spawn nprocs=1"));
}

TEST(Pmi1Message, RoundTrips) {
    Message original("get_result");
    original.add("rc", 0L).add("value", "a=b,c");
    auto parsed = parse_message(original.format().substr(0, original.format().size() - 1));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->fields(), original.fields());
}

TEST(Pmi1Words, KeysAndValuesMustSurviveTheWire) {
    EXPECT_TRUE(is_wire_key("host-3"));
    EXPECT_FALSE(is_wire_key(""));
    EXPECT_FALSE(is_wire_key("a=b"));
    EXPECT_FALSE(is_wire_key("a b"));
    EXPECT_TRUE(is_wire_value(""));
    EXPECT_TRUE(is_wire_value("a=b"));
    EXPECT_FALSE(is_wire_value("a b"));
    EXPECT_FALSE(is_wire_value("a\nb"));
    EXPECT_FALSE(is_wire_value("caf\xc3\xa9"));
}

TEST(Pmi1LineBuffer, ReassemblesLinesSplitAcrossReads) {
    LineBuffer buffer;
    buffer.append("cmd=barr");
    EXPECT_FALSE(buffer.take_line());
    buffer.append("ier_out\ncmd=get_result rc=0 ");
    EXPECT_EQ(buffer.take_line(), "cmd=barrier_out");
    EXPECT_FALSE(buffer.take_line());
    buffer.append("value=x\n\ncmd=finalize_ack\n");
    EXPECT_EQ(buffer.take_line(), "cmd=get_result rc=0 value=x");
    EXPECT_EQ(buffer.take_line(), "");
    EXPECT_EQ(buffer.take_line(), "cmd=finalize_ack");
    EXPECT_FALSE(buffer.take_line());
    EXPECT_TRUE(buffer.empty());
}

TEST(Pmi1LineBuffer, ReportsOverlongLines) {
    LineBuffer buffer;
    buffer.append(std::string(LineBuffer::kMaxLine, 'x'));
    EXPECT_FALSE(buffer.overflowed());
    buffer.append("y");
    EXPECT_TRUE(buffer.overflowed());
    buffer.append("\n");
    EXPECT_FALSE(buffer.overflowed());
    EXPECT_EQ(buffer.take_line()->size(), LineBuffer::kMaxLine + 1);
}

class SocketPair : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
    void TearDown() override {
        for (int fd : fds_)
            if (fd >= 0) ::close(fd);
    }
    void close_writer() {
        ::close(fds_[0]);
        fds_[0] = -1;
    }
    int fds_[2] = {-1, -1};
};

TEST_F(SocketPair, ReadsByteByByteWritesAsOneLine) {
    const std::string line = "cmd=put kvsname=k key=a value=b\n";
    for (char c : line) ASSERT_TRUE(write_all(fds_[0], std::string_view(&c, 1)));
    LineBuffer buffer;
    std::optional<std::string> got;
    while (!(got = buffer.take_line())) ASSERT_EQ(buffer.fill_from(fds_[1]), LineBuffer::Fill::data);
    EXPECT_EQ(*got + "\n", line);
}

TEST_F(SocketPair, SeesEndOfFile) {
    ASSERT_TRUE(write_all(fds_[0], "cmd=abort exitcode=3\n"));
    close_writer();
    LineBuffer buffer;
    EXPECT_EQ(buffer.fill_from(fds_[1]), LineBuffer::Fill::data);
    EXPECT_EQ(buffer.fill_from(fds_[1]), LineBuffer::Fill::end_of_file);
    EXPECT_EQ(buffer.take_line(), "cmd=abort exitcode=3");
}

TEST_F(SocketPair, WriteToClosedPeerFailsWithoutSigpipe) {
    ::close(fds_[1]);
    fds_[1] = -1;
    EXPECT_FALSE(write_all(fds_[0], "cmd=finalize\n"));
}

TEST(Pmi1Write, WorksOnPipes) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    EXPECT_TRUE(write_all(fds[1], "cmd=init\n"));
    LineBuffer buffer;
    EXPECT_EQ(buffer.fill_from(fds[0]), LineBuffer::Fill::data);
    EXPECT_EQ(buffer.take_line(), "cmd=init");
    ::close(fds[0]);
    ::close(fds[1]);
}

}  // namespace
}  // namespace si::bootstrap::pmi1
