// The protocol of a node's shared area (coll/node_area.hpp), with threads of
// one process standing for the ranks: contributions are read whole and
// never overwritten before every reader is through, whichever rank runs
// ahead; barriers hold every rank until all arrived.
#include "coll/node_area.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace si::coll {
namespace {

struct Memory {
    explicit Memory(int ranks)
        : bytes(NodeArea::bytes_for(ranks)),
          data(static_cast<std::byte*>(std::aligned_alloc(NodeArea::kLine, bytes))) {
        std::memset(data, 0, bytes);
        NodeArea::format(data, ranks);
    }
    ~Memory() { std::free(data); }
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;
    std::size_t bytes;
    std::byte* data;
};

// Runs body(area, rank) on `ranks` threads, each with its own view.
template <typename Body>
void run_ranks(int ranks, Body body) {
    Memory memory(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            NodeArea area;
            ASSERT_TRUE(area.attach(memory.data, memory.bytes, r, ranks));
            body(area, r);
        });
    for (std::thread& t : threads) t.join();
}

template <typename Ready>
void spin_until(Ready ready) {
    while (!ready()) std::this_thread::yield();
}

TEST(NodeAreaTest, AttachChecksTheHeader) {
    Memory memory(4);
    NodeArea area;
    EXPECT_TRUE(area.attach(memory.data, memory.bytes, 3, 4));
    EXPECT_FALSE(area.attach(memory.data, memory.bytes, 0, 3));  // another size
    EXPECT_FALSE(area.attach(memory.data, memory.bytes - 1, 0, 4));
    EXPECT_FALSE(area.attach(memory.data, memory.bytes, 4, 4));
    EXPECT_EQ(area.cell_bytes(), NodeArea::cell_bytes_for(4));
    EXPECT_EQ(NodeArea::cell_bytes_for(2), 16u * 1024);
    EXPECT_EQ(NodeArea::cell_bytes_for(16), 64u * 1024);
}

// Rank 0 broadcasts call after call with no barrier; the readers are slowed
// down now and then, so that the root runs ahead until its cells' reuse
// stops it. Every reader must see every call's whole contribution.
TEST(NodeAreaTest, APublisherThatRunsAheadNeverOverwritesAnUnreadCell) {
    constexpr int kRanks = 4;
    constexpr int kCalls = 2000;
    constexpr std::size_t kBytes = 1000;
    std::atomic<int> torn{0};
    run_ranks(kRanks, [&](NodeArea& area, int r) {
        for (int i = 0; i < kCalls; ++i) {
            const std::uint64_t t = area.begin();
            if (r == 0) {
                spin_until([&] { return area.cell_free(t); });
                std::memset(area.cell_data(t), static_cast<int>(t & 0xff), kBytes);
                area.publish(t, kBytes, NodeArea::kEveryRank);
                continue;
            }
            if (i % 97 == r) std::this_thread::yield();
            const std::byte* data = nullptr;
            std::size_t bytes = 0;
            spin_until([&] { return (data = area.contribution(0, t, bytes)) != nullptr; });
            std::vector<std::byte> copy(data, data + bytes);
            if (bytes != kBytes) ++torn;
            for (std::byte b : copy)
                if (b != static_cast<std::byte>(t & 0xff)) {
                    ++torn;
                    break;
                }
            area.finish(t);
        }
    });
    EXPECT_EQ(torn.load(), 0);
}

// Every rank publishes and reads every other rank's (an allreduce), then a
// single reader collects (a gather), then a barrier, in turn: the readers
// each publisher waits for change from call to call.
TEST(NodeAreaTest, MixedCallsKeepEveryContribution) {
    constexpr int kRanks = 3;
    constexpr int kRounds = 1500;
    std::atomic<int> wrong{0};
    std::atomic<int> early{0};
    std::atomic<int> arrived{0};
    run_ranks(kRanks, [&](NodeArea& area, int r) {
        for (int i = 0; i < kRounds; ++i) {
            const int kind = i % 3;
            const std::uint64_t t = area.begin();
            if (kind == 2) {  // barrier
                arrived.fetch_add(1);
                area.finish(t);
                for (int j = 0; j < kRanks; ++j) spin_until([&] { return area.finished(j, t); });
                if (arrived.load() < (i / 3 + 1) * kRanks) ++early;
                continue;
            }
            const int root = i % kRanks;
            const bool publishes = kind == 0 || r != root;
            if (publishes) {
                spin_until([&] { return area.cell_free(t); });
                const std::uint64_t word = t * 100 + static_cast<std::uint64_t>(r);
                std::memcpy(area.cell_data(t), &word, sizeof word);
                area.publish(t, sizeof word, kind == 0 ? NodeArea::kEveryRank : root);
            }
            const bool reads = kind == 0 || r == root;
            if (!reads) continue;
            for (int j = 0; j < kRanks; ++j) {
                if (kind == 1 && j == root) continue;
                const std::byte* data = nullptr;
                std::size_t bytes = 0;
                spin_until([&] { return (data = area.contribution(j, t, bytes)) != nullptr; });
                std::uint64_t word = 0;
                std::memcpy(&word, data, sizeof word);
                if (bytes != sizeof word || word != t * 100 + static_cast<std::uint64_t>(j)) ++wrong;
            }
            area.finish(t);
        }
    });
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(early.load(), 0);
}

}  // namespace
}  // namespace si::coll
