// The client against a scripted process manager on the other end of a
// socketpair, answering the way Hydra does (including its replies without rc).
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "bootstrap/bootstrap.hpp"
#include "bootstrap/pmi1_wire.hpp"

namespace si::bootstrap {
namespace {

// Given one request line, the reply to send; "" sends nothing, "close" hangs up.
using Script = std::function<std::string(const std::string& request)>;

std::string hydra_reply(const std::string& request, const std::string& kvsname) {
    auto message = pmi1::parse_message(request);
    if (!message) return "close";
    const std::string& cmd = message->command();
    if (cmd == "init") return "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n";
    if (cmd == "get_maxes") return "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n";
    if (cmd == "get_my_kvsname") return "cmd=my_kvsname kvsname=" + kvsname + "\n";
    if (cmd == "put") return "cmd=put_result rc=0 msg=success\n";
    if (cmd == "barrier_in") return "cmd=barrier_out\n";
    if (cmd == "get" && message->find("key") == "known")
        return "cmd=get_result rc=0 msg=success value=v=1\n";
    if (cmd == "get") return "cmd=get_result rc=-1 msg=key_x_not_found value=unknown\n";
    if (cmd == "finalize") return "cmd=finalize_ack\n";
    return "close";
}

class FakeManager : public ::testing::Test {
protected:
    void start(Script script, int rank = 1, int size = 4) {
        int fds[2];
        ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        ::setenv("PMI_FD", std::to_string(fds[0]).c_str(), 1);
        ::setenv("PMI_RANK", std::to_string(rank).c_str(), 1);
        ::setenv("PMI_SIZE", std::to_string(size).c_str(), 1);
        server_ = std::thread([fd = fds[1], script = std::move(script), this] {
            pmi1::LineBuffer buffer;
            for (;;) {
                auto line = buffer.take_line();
                if (!line) {
                    if (buffer.fill_from(fd) != pmi1::LineBuffer::Fill::data) break;
                    continue;
                }
                requests_.push_back(*line);
                std::string reply = script(*line);
                if (reply == "close") break;
                // One byte per write: the client must reassemble lines.
                for (char c : reply)
                    if (!pmi1::write_all(fd, std::string_view(&c, 1))) break;
            }
            ::close(fd);
        });
    }
    void TearDown() override {
        client_.reset();  // closes the client's end, which ends the server loop
        if (server_.joinable()) server_.join();
        ::unsetenv("PMI_FD");
        ::unsetenv("PMI_RANK");
        ::unsetenv("PMI_SIZE");
    }

    std::thread server_;
    std::vector<std::string> requests_;
    std::unique_ptr<Bootstrap> client_;
};

TEST_F(FakeManager, HandshakeAndKeyValueStoreLikeHydra) {
    start([](const std::string& r) { return hydra_reply(r, "kvs_812_0_57.host-a:b/c"); });
    client_ = connect();
    EXPECT_EQ(client_->rank(), 1);
    EXPECT_EQ(client_->size(), 4);
    EXPECT_EQ(client_->job_id(), "kvs_812_0_57_host-a_b_c");
    // vallen_max counts the terminating NUL of Hydra's buffers.
    EXPECT_EQ(client_->max_value_length(), 1023u);
    client_->put("known", "v=1");
    client_->fence();
    EXPECT_EQ(client_->get("known"), "v=1");
    client_->finalize();
    client_->finalize();  // idempotent: nothing more is sent
    std::vector<std::string> expected = {
        "cmd=init pmi_version=1 pmi_subversion=1",
        "cmd=get_maxes",
        "cmd=get_my_kvsname",
        "cmd=put kvsname=kvs_812_0_57.host-a:b/c key=known value=v=1",
        "cmd=barrier_in",
        "cmd=get kvsname=kvs_812_0_57.host-a:b/c key=known",
        "cmd=finalize",
    };
    client_.reset();
    server_.join();
    EXPECT_EQ(requests_, expected);
}

TEST_F(FakeManager, MissingKeyIsAnErrorThatNamesTheKey) {
    start([](const std::string& r) { return hydra_reply(r, "kvs_1_0"); });
    client_ = connect();
    try {
        client_->get("host-7");
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("'host-7'"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("fence"), std::string::npos) << error.what();
    }
}

TEST_F(FakeManager, RejectsKeysAndValuesTheWireCannotCarry) {
    start([](const std::string& r) { return hydra_reply(r, "kvs_1_0"); });
    client_ = connect();
    EXPECT_THROW(client_->put("a key", "v"), Error);
    EXPECT_THROW(client_->put("k", "two words"), Error);
    EXPECT_THROW(client_->put("k", std::string(1024, 'v')), Error);
    EXPECT_THROW(client_->put(std::string(64, 'k'), "v"), Error);
    client_->put(std::string(63, 'k'), std::string(1023, 'v'));
}

TEST_F(FakeManager, NonzeroRcIsAnErrorQuotingTheReply) {
    start([](const std::string& r) -> std::string {
        if (r.starts_with("cmd=init")) return "cmd=response_to_init rc=-1 msg=version_mismatch\n";
        return "close";
    });
    try {
        client_ = connect();
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("msg=version_mismatch"), std::string::npos)
            << error.what();
    }
}

TEST_F(FakeManager, UnexpectedReplyIsAnError) {
    start([](const std::string& r) -> std::string {
        if (r.starts_with("cmd=init")) return "cmd=maxes rc=0\n";
        return "close";
    });
    EXPECT_THROW(client_ = connect(), Error);
}

TEST_F(FakeManager, HangUpDuringFenceIsAnError) {
    start([](const std::string& r) {
        return r == "cmd=barrier_in" ? std::string("close") : hydra_reply(r, "kvs_1_0");
    });
    client_ = connect();
    try {
        client_->fence();
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("closed the connection"), std::string::npos)
            << error.what();
    }
}

TEST_F(FakeManager, LongKvsNamesGiveShortDistinctJobIds) {
    const std::string base(200, 'k');
    start([&](const std::string& r) { return hydra_reply(r, base + "1"); });
    client_ = connect();
    std::string first = client_->job_id();
    TearDown();
    start([&](const std::string& r) { return hydra_reply(r, base + "2"); });
    client_ = connect();
    EXPECT_LE(first.size(), 96u);
    EXPECT_LE(client_->job_id().size(), 96u);
    EXPECT_NE(first, client_->job_id());
}

TEST(Singleton, WithoutProcessManagerTheJobIsOneRank) {
    ::unsetenv("PMI_FD");
    ::unsetenv("PMI_PORT");
    auto single = connect();
    EXPECT_EQ(single->rank(), 0);
    EXPECT_EQ(single->size(), 1);
    EXPECT_EQ(single->job_id(), "single-" + std::to_string(::getpid()));
    single->put("a", "1");
    // As under a real process manager, only fenced values are visible.
    EXPECT_THROW(single->get("a"), Error);
    single->fence();
    EXPECT_EQ(single->get("a"), "1");
    single->finalize();
}

TEST(Environment, InconsistentVariablesAreExplained) {
    ::setenv("PMI_FD", "3", 1);
    ::unsetenv("PMI_RANK");
    EXPECT_THROW(connect(), Error);
    ::setenv("PMI_RANK", "5", 1);
    ::setenv("PMI_SIZE", "2", 1);
    EXPECT_THROW(connect(), Error);
    ::unsetenv("PMI_FD");
    ::unsetenv("PMI_RANK");
    ::unsetenv("PMI_SIZE");
}

}  // namespace
}  // namespace si::bootstrap
