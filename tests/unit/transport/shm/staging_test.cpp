// The staging area's allocator (transport/shm/staging.hpp): runs of blocks
// taken and given back by any thread of the owning process.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

#include "transport/shm/staging.hpp"

namespace si::transport::shm {
namespace {

constexpr std::size_t kBlock = 1024;
constexpr std::size_t kArea = StagingArea::kBlocks * kBlock;

TEST(StagingArea, TakesRunsOfBlocksUntilFull) {
    std::vector<std::byte> memory(kArea);
    StagingArea area(memory.data(), kArea);
    std::byte* first = area.acquire(kBlock + 1);  // two blocks
    std::byte* second = area.acquire(1);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second - first, static_cast<std::ptrdiff_t>(2 * kBlock));
    EXPECT_EQ(area.acquire(kArea - 2 * kBlock), nullptr);  // one block short
    std::byte* rest = area.acquire(kArea - 3 * kBlock);
    ASSERT_NE(rest, nullptr);
    EXPECT_EQ(area.acquire(1), nullptr);
    area.release(second, 1);
    EXPECT_EQ(area.acquire(1), second);
}

TEST(StagingArea, FindsARunPastTakenBlocks) {
    std::vector<std::byte> memory(kArea);
    StagingArea area(memory.data(), kArea);
    std::byte* a = area.acquire(kBlock);
    std::byte* b = area.acquire(kBlock);
    std::byte* c = area.acquire(kBlock);
    area.release(b, kBlock);
    // The hole between a and c holds one block, not two.
    std::byte* two = area.acquire(2 * kBlock);
    ASSERT_NE(two, nullptr);
    EXPECT_EQ(two, c + kBlock);
    EXPECT_EQ(area.acquire(kBlock), b);
    (void)a;
}

TEST(StagingArea, RefusesWhatNeverFits) {
    std::vector<std::byte> memory(kArea);
    StagingArea area(memory.data(), kArea);
    EXPECT_EQ(area.acquire(kArea + 1), nullptr);
    EXPECT_EQ(area.acquire(0), nullptr);
    EXPECT_NE(area.acquire(kArea), nullptr);
    StagingArea none;
    EXPECT_EQ(none.acquire(1), nullptr);
    EXPECT_FALSE(none.contains(memory.data(), 1));
}

TEST(StagingArea, ContainsOnlyItsOwnBytes) {
    std::vector<std::byte> memory(kArea + 1);
    StagingArea area(memory.data(), kArea);
    EXPECT_TRUE(area.contains(memory.data(), kArea));
    EXPECT_TRUE(area.contains(memory.data() + kArea - 1, 1));
    EXPECT_FALSE(area.contains(memory.data() + kArea, 1));
    EXPECT_FALSE(area.contains(memory.data() + 1, kArea));
}

// Threads take and give back runs at once: no run is ever handed out twice
// (each writes its run and checks it after a yield).
TEST(StagingArea, ThreadsNeverShareARun) {
    std::vector<std::byte> memory(kArea);
    StagingArea area(memory.data(), kArea);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&area, t] {
            const auto mark = static_cast<std::byte>(t + 1);
            const std::size_t bytes = (static_cast<std::size_t>(t) % 3 + 1) * kBlock;
            for (int i = 0; i < 2000; ++i) {
                std::byte* run = area.acquire(bytes);
                if (run == nullptr) continue;
                std::memset(run, static_cast<int>(mark), bytes);
                std::this_thread::yield();
                for (std::size_t at = 0; at < bytes; ++at) ASSERT_EQ(run[at], mark);
                area.release(run, bytes);
            }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_NE(area.acquire(kArea), nullptr);  // everything came back
}

}  // namespace
}  // namespace si::transport::shm
