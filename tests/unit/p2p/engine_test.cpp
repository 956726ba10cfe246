// The protocol state machines of the p2p engine, driven through an in-process
// loopback transport: eager and rendezvous in both arrival orders, matching
// order with wildcards, truncation, flow control, synchronous sends.
#include "p2p/engine.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <thread>

#include "base/error_class.hpp"
#include "p2p/segments.hpp"

#include "loopback_transport.hpp"

namespace si::p2p {
namespace {

constexpr int kErrTruncate = si::error_class::kTruncate;

struct Param {
    std::size_t eager_limit;
    int slots;
    bool deferred_rdma;
};

class EngineTest : public ::testing::TestWithParam<Param> {
protected:
    static constexpr int kRanks = 3;

    EngineTest() : fabric_(kRanks, GetParam().slots, GetParam().deferred_rdma) {
        for (int r = 0; r < kRanks; ++r) {
            locks_.push_back(std::make_unique<ProgressLock>(words_[r]));
            std::vector<transport::Transport*> transport_of(kRanks, &fabric_.endpoint(r));
            engines_.push_back(std::make_unique<Engine>(
                r, transport_of, *locks_[r], Engine::Options{GetParam().eager_limit}));
        }
        std::iota(world_.begin(), world_.end(), 0);
    }

    CommRef comm(int rank, std::uint16_t context = 4) const {
        return CommRef{context, rank, world_};
    }
    Engine& engine(int rank) { return *engines_[rank]; }

    // Progresses every engine until all requests complete (or gives up).
    void run_until_complete(std::initializer_list<Request*> requests) {
        for (int round = 0; round < 10000; ++round) {
            bool all = true;
            for (Request* r : requests) all = all && r->complete.load();
            if (all) return;
            for (auto& e : engines_) e->progress();
        }
        FAIL() << "requests did not complete";
    }

    Request* send(int from, int to, const std::vector<char>& data, int tag,
                  SendMode mode = SendMode::standard, std::uint16_t context = 4) {
        return engine(from).isend(data.data(), data.size(), to, tag, comm(from, context), context,
                                  mode);
    }
    Request* receive(int at, int from, std::vector<char>& buffer, int tag,
                     std::uint16_t context = 4) {
        return engine(at).irecv(buffer.data(), buffer.size(), from, tag, comm(at, context), context);
    }

    static std::vector<char> pattern(std::size_t bytes, char seed) {
        std::vector<char> data(bytes);
        for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>(seed + i * 7);
        return data;
    }

    test::LoopbackFabric fabric_;
    std::atomic<std::uint32_t> words_[kRanks] = {};
    std::vector<std::unique_ptr<ProgressLock>> locks_;
    std::vector<std::unique_ptr<Engine>> engines_;
    std::array<int, kRanks> world_{};
};

TEST_P(EngineTest, EagerAndRendezvousInBothArrivalOrders) {
    const std::size_t limit = GetParam().eager_limit;
    for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, limit, limit + 1, 4 * limit + 3}) {
        for (bool receiver_first : {true, false}) {
            SCOPED_TRACE(testing::Message() << bytes << " bytes, receiver first " << receiver_first);
            const auto data = pattern(bytes, 3);
            std::vector<char> buffer(bytes + 5, 'x');
            Request* r = nullptr;
            Request* s = nullptr;
            if (receiver_first) r = receive(1, 0, buffer, 9);
            s = send(0, 1, data, 9);
            engine(1).progress();  // may make the message unexpected
            if (!receiver_first) r = receive(1, 0, buffer, 9);
            run_until_complete({r, s});
            EXPECT_EQ(r->result.error, 0);
            EXPECT_EQ(r->result.bytes, bytes);
            EXPECT_EQ(r->result.source, 0);
            EXPECT_EQ(r->result.tag, 9);
            EXPECT_TRUE(std::equal(data.begin(), data.end(), buffer.begin()));
            EXPECT_EQ(buffer[bytes], 'x') << "nothing written past the message";
            engine(0).release(s);
            engine(1).release(r);
        }
    }
    EXPECT_EQ(engine(0).active_requests(), 0u);
    EXPECT_EQ(engine(1).active_requests(), 0u);
}

TEST_P(EngineTest, NonOvertakingWithWildcardsAndMixedProtocols) {
    const std::size_t limit = GetParam().eager_limit;
    std::vector<std::vector<char>> messages;
    for (int i = 0; i < 12; ++i) messages.push_back(pattern(i % 3 == 0 ? limit * 2 : 8, char(i)));
    std::vector<Request*> sends;
    for (int i = 0; i < 12; ++i) sends.push_back(send(2, 0, messages[i], 100 + i % 4));
    std::vector<std::vector<char>> buffers(12, std::vector<char>(limit * 2));
    std::vector<Request*> receives;
    for (int i = 0; i < 12; ++i) {
        receives.push_back(receive(0, kAnySource, buffers[i], kAnyTag));
        if (i % 5 == 0) engine(0).progress();  // interleave expected and unexpected paths
    }
    for (int i = 0; i < 12; ++i) run_until_complete({receives[i], sends[i]});
    for (int i = 0; i < 12; ++i) {
        EXPECT_EQ(receives[i]->result.tag, 100 + i % 4) << "message " << i << " overtaken";
        EXPECT_EQ(receives[i]->result.bytes, messages[i].size());
        EXPECT_TRUE(std::equal(messages[i].begin(), messages[i].end(), buffers[i].begin()));
    }
}

TEST_P(EngineTest, SpecificReceivesSkipOtherSourcesAndTags) {
    const auto a = pattern(16, 1), b = pattern(16, 2), c = pattern(16, 3);
    Request* s1 = send(1, 0, a, 1);
    Request* s2 = send(2, 0, b, 2);
    Request* s3 = send(1, 0, c, 3);
    engine(0).progress();
    std::vector<char> buffer(16);
    Request* r = receive(0, 1, buffer, 3);  // skips (1,1) and (2,2)
    run_until_complete({r, s1, s2, s3});
    EXPECT_EQ(buffer, c);
    Request* r2 = receive(0, kAnySource, buffer, 2);
    run_until_complete({r2});
    EXPECT_EQ(r2->result.source, 2);
    EXPECT_EQ(buffer, b);
}

// Posted receives wait in two lists (exact (context, source, tag), wildcards);
// an arrival must still take the first one posted that it matches.
TEST_P(EngineTest, PostingOrderHoldsAcrossExactAndWildcardReceives) {
    std::vector<std::vector<char>> buffers(6, std::vector<char>(8));
    // Posting order: any source, exact, any tag, exact, both wildcards, exact.
    std::vector<Request*> receives = {
        receive(0, kAnySource, buffers[0], 5),       receive(0, 1, buffers[1], 5),
        receive(0, 1, buffers[2], kAnyTag),          receive(0, 1, buffers[3], 5),
        receive(0, kAnySource, buffers[4], kAnyTag), receive(0, 1, buffers[5], 5)};
    std::vector<std::vector<char>> messages;
    std::vector<Request*> sends;
    for (int i = 0; i < 6; ++i) messages.push_back(pattern(8, char(10 * i)));
    // One at a time, each to completion: message i must land in receive i.
    for (int i = 0; i < 6; ++i) {
        sends.push_back(send(1, 0, messages[i], 5));
        run_until_complete({sends[i]});
        for (int round = 0; round < 100 && !receives[i]->complete.load(); ++round)
            engine(0).progress();
        for (int j = i + 1; j < 6; ++j)
            EXPECT_FALSE(receives[j]->complete.load()) << "message " << i << " took receive " << j;
        ASSERT_TRUE(receives[i]->complete.load()) << "message " << i;
        EXPECT_EQ(buffers[i], messages[i]) << "message " << i;
    }
}

// Unexpected messages are kept per exact key too; a wildcard receive still
// takes the oldest of all, an exact one the oldest of its key. (One sender:
// MPI orders the messages of one sender only.)
TEST_P(EngineTest, UnexpectedMessagesMatchInArrivalOrder) {
    const auto a = pattern(8, 1), b = pattern(8, 2), c = pattern(8, 3), d = pattern(8, 4);
    Request* s1 = send(1, 0, a, 5);
    Request* s2 = send(1, 0, b, 6);
    Request* s3 = send(1, 0, c, 5);
    Request* s4 = send(1, 0, d, 7);
    run_until_complete({s1, s2, s3, s4});
    for (int i = 0; i < 10; ++i) engine(0).progress();
    std::vector<char> buffer(8);
    Request* r = receive(0, 1, buffer, 5);
    run_until_complete({r});
    EXPECT_EQ(buffer, a) << "the older of the two (1, 5) messages";
    r = receive(0, kAnySource, buffer, kAnyTag);
    run_until_complete({r});
    EXPECT_EQ(buffer, b) << "the oldest message left";
    r = receive(0, 1, buffer, kAnyTag);
    run_until_complete({r});
    EXPECT_EQ(buffer, c);
    r = receive(0, kAnySource, buffer, 7);
    run_until_complete({r});
    EXPECT_EQ(buffer, d);
    EXPECT_FALSE(engine(0).iprobe(kAnySource, kAnyTag, comm(0), 4).has_value());
}

// Ever new tags (each key used once) and more unexpected messages at a time
// than the record pool keeps: everything still matches, nothing leaks (ASan).
TEST_P(EngineTest, ManyKeysAndManyUnexpectedMessages) {
    std::vector<std::vector<char>> messages;
    for (int i = 0; i < 300; ++i) messages.push_back(pattern(8, char(i)));
    for (int i = 0; i < 300; ++i) {
        run_until_complete({send(1, 0, messages[i], 1000 + i)});
        engine(0).progress();
    }
    for (int i = 299; i >= 0; --i) {
        std::vector<char> buffer(8);
        Request* r = receive(0, 1, buffer, 1000 + i);
        run_until_complete({r});
        EXPECT_EQ(buffer, messages[i]) << "tag " << 1000 + i;
        engine(0).release(r);
    }
    EXPECT_FALSE(engine(0).iprobe(kAnySource, kAnyTag, comm(0), 4).has_value());
}

TEST_P(EngineTest, ContextsNeverMatchEachOther) {
    const auto data = pattern(8, 5);
    Request* s = send(0, 1, data, 0, SendMode::standard, /*context=*/6);
    std::vector<char> buffer(8);
    Request* wrong = receive(1, kAnySource, buffer, kAnyTag, /*context=*/4);
    for (int i = 0; i < 50; ++i) engine(1).progress();
    EXPECT_FALSE(wrong->complete.load());
    EXPECT_TRUE(engine(1).iprobe(0, 0, comm(1, 6), 6).has_value());
    Request* right = receive(1, 0, buffer, 0, /*context=*/6);
    run_until_complete({right, s});
    engine(1).release(wrong);  // detached: recycled when it would complete
}

TEST_P(EngineTest, TruncationReportsErrorAndReleasesSender) {
    const std::size_t limit = GetParam().eager_limit;
    for (std::size_t bytes : {limit, limit * 3}) {
        const auto data = pattern(bytes, 9);
        std::vector<char> buffer(bytes / 2);
        Request* r = receive(1, 0, buffer, 1);
        Request* s = send(0, 1, data, 1);
        run_until_complete({r, s});
        EXPECT_EQ(r->result.error, kErrTruncate);
        EXPECT_EQ(r->result.bytes, buffer.size());
        EXPECT_EQ(s->result.error, 0);
        EXPECT_TRUE(std::equal(buffer.begin(), buffer.end(), data.begin()));
    }
}

// A receive in pieces (CompletionHook::segments): 5-byte pieces 3 bytes
// apart, more of them than one vectored read takes.
class Pieces final : public CompletionHook {
  public:
    Pieces(std::vector<char>& room, std::size_t bytes) {
        for (std::size_t at = 0; at < bytes; at += 5)
            pieces_.push_back(transport::Segment{reinterpret_cast<std::uint64_t>(&room[at / 5 * 8]),
                                                 std::min<std::size_t>(5, bytes - at)});
    }
    static std::size_t room_for(std::size_t bytes) { return (bytes + 4) / 5 * 8; }
    void completed(const Completion&) override {}
    std::span<const transport::Segment> segments() const override { return pieces_; }

  private:
    std::vector<transport::Segment> pieces_;
};

TEST_P(EngineTest, ReceiveInPiecesTakesEagerAndRendezvousData) {
    if (GetParam().deferred_rdma) {  // such a transport cannot stream, and the engine knows
        EXPECT_FALSE(engine(1).streams_with(0));
        return;
    }
    const std::size_t limit = GetParam().eager_limit;
    for (std::size_t bytes : {std::size_t{1}, limit, 4 * limit + 3, 700 * std::size_t{5}}) {
        for (bool receiver_first : {true, false}) {
            for (std::size_t capacity : {bytes, bytes / 2}) {
                SCOPED_TRACE(testing::Message() << bytes << " bytes into " << capacity
                                                << ", receiver first " << receiver_first);
                const auto data = pattern(bytes, 5);
                std::vector<char> room(Pieces::room_for(bytes), 'x');
                auto receive_in_pieces = [&] {
                    return engine(1).irecv(nullptr, capacity, 0, 2, comm(1), 4, false,
                                           std::make_unique<Pieces>(room, capacity));
                };
                Request* r = receiver_first ? receive_in_pieces() : nullptr;
                Request* s = send(0, 1, data, 2);
                engine(1).progress();
                if (!receiver_first) r = receive_in_pieces();
                run_until_complete({r, s});
                EXPECT_EQ(r->result.error, capacity < bytes ? kErrTruncate : 0);
                EXPECT_EQ(r->result.bytes, capacity);
                for (std::size_t i = 0; i < room.size(); ++i) {
                    const bool in_piece = i % 8 < 5 && i / 8 * 5 + i % 8 < capacity;
                    ASSERT_EQ(room[i], in_piece ? data[i / 8 * 5 + i % 8] : 'x') << "byte " << i;
                }
                engine(0).release(s);
                engine(1).release(r);
            }
        }
    }
    EXPECT_GT(engine(1).stats().piecewise_reads, 0u);
}

// A send still being packed (CompletionHook::bytes_ready): its receiver reads
// behind the packing, into one run or into pieces, and gets every byte.
class Packing final : public CompletionHook {
  public:
    void completed(const Completion&) override {}
    const std::atomic<std::uint64_t>* bytes_ready() const override { return &ready; }
    std::atomic<std::uint64_t> ready{0};
};

TEST_P(EngineTest, ReceiverReadsBehindASenderStillPacking) {
    if (GetParam().deferred_rdma) {  // such a transport cannot stream, and the engine knows
        EXPECT_FALSE(engine(1).streams_with(0));
        return;
    }
    const std::size_t bytes = 3 * kStreamPart + 5;
    for (bool in_pieces : {false, true}) {
        SCOPED_TRACE(testing::Message() << "receive in pieces " << in_pieces);
        const auto data = pattern(bytes, 11);
        std::vector<char> staged(bytes, 0);  // what the sender has packed so far
        std::vector<char> room(in_pieces ? Pieces::room_for(bytes) : bytes, 'x');
        Request* r = engine(1).irecv(in_pieces ? nullptr : room.data(), bytes, 0, 6, comm(1), 4,
                                     false,
                                     in_pieces ? std::make_unique<Pieces>(room, bytes) : nullptr);
        auto hook = std::make_unique<Packing>();
        std::atomic<std::uint64_t>& ready = hook->ready;
        Request* s = engine(0).isend(staged.data(), bytes, 1, 6, comm(0), 4, SendMode::standard,
                                     std::move(hook));
        std::thread packer([&] {
            for (std::size_t done = 0; done < bytes;) {
                const std::size_t n = std::min(kStreamPart / 2, bytes - done);
                std::memcpy(staged.data() + done, data.data() + done, n);
                done += n;
                ready.store(done, std::memory_order_release);
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
        run_until_complete({r, s});
        packer.join();
        ASSERT_EQ(r->result.bytes, bytes);
        for (std::size_t i = 0; i < bytes; ++i) {
            const std::size_t at = in_pieces ? i / 5 * 8 + i % 5 : i;
            ASSERT_EQ(room[at], data[i]) << "byte " << i;
        }
        engine(0).release(s);
        engine(1).release(r);
    }
    EXPECT_EQ(engine(1).stats().reads_behind_packing, 2u);
}

TEST_P(EngineTest, FloodBeyondReceiveSlotsLosesNothing) {
    std::vector<std::vector<char>> messages;
    std::vector<Request*> sends;
    for (int i = 0; i < 80; ++i) messages.push_back(pattern(4, char(i)));
    for (int i = 0; i < 80; ++i) sends.push_back(send(0, 1, messages[i], 3));
    EXPECT_GT(engine(0).stats().send_retries, 0u) << "the flood must exceed the slots";
    for (int i = 0; i < 80; ++i) {
        std::vector<char> buffer(4);
        Request* r = receive(1, 0, buffer, 3);
        run_until_complete({r});
        EXPECT_EQ(buffer, messages[i]) << "message " << i;
    }
    run_until_complete({sends.back()});
}

TEST_P(EngineTest, SynchronousSendWaitsForTheMatch) {
    const auto data = pattern(4, 1);
    Request* s = send(0, 1, data, 5, SendMode::synchronous);
    for (int i = 0; i < 50; ++i) {
        engine(0).progress();
        engine(1).progress();
    }
    EXPECT_FALSE(s->complete.load()) << "MPI_Ssend completed before a receive matched it";
    std::vector<char> buffer(4);
    Request* r = receive(1, 0, buffer, 5);
    run_until_complete({r, s});
    EXPECT_EQ(buffer, data);
}

TEST_P(EngineTest, ProcNullCompletesAtOnce) {
    std::vector<char> buffer(4);
    Request* s = engine(0).isend(buffer.data(), 4, kProcNull, 1, comm(0), 4, SendMode::standard);
    Request* r = engine(0).irecv(buffer.data(), 4, kProcNull, 1, comm(0), 4);
    EXPECT_TRUE(s->complete.load());
    EXPECT_TRUE(r->complete.load());
    EXPECT_EQ(r->result.source, kProcNull);
    EXPECT_EQ(r->result.tag, kAnyTag);
    EXPECT_EQ(r->result.bytes, 0u);
}

TEST_P(EngineTest, MessageToSelf) {
    for (std::size_t bytes : {std::size_t{8}, GetParam().eager_limit * 2}) {
        const auto data = pattern(bytes, 4);
        std::vector<char> buffer(bytes);
        Request* s = send(2, 2, data, 1);
        Request* r = receive(2, 2, buffer, 1);
        run_until_complete({r, s});
        EXPECT_EQ(buffer, data);
    }
}

INSTANTIATE_TEST_SUITE_P(Protocols, EngineTest,
                         ::testing::Values(Param{64, 4, false}, Param{64, 2, true},
                                           Param{1024, 64, false}),
                         [](const ::testing::TestParamInfo<Param>& p) {
                             return "eager" + std::to_string(p.param.eager_limit) + "_slots" +
                                    std::to_string(p.param.slots) +
                                    (p.param.deferred_rdma ? "_deferred" : "_immediate");
                         });

}  // namespace
}  // namespace si::p2p
