// ScratchPool: every request gets a buffer of at least its size, aligned, and
// sizes on either side of the boundary between the thread's cache and the
// shared pool (a request just under kPooledBytes rounds up to it) come back
// and serve again. Under UBSan, an index past the cache's classes fails.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "coll/scratch_pool.hpp"

namespace si::coll {
namespace {

TEST(ScratchPool, SizesAroundTheCacheBoundaryAreServedAndReused) {
    const std::size_t sizes[] = {0,
                                 1,
                                 64,
                                 65,
                                 ScratchPool::kPooledBytes / 2 + 1,
                                 ScratchPool::kPooledBytes - 1,
                                 ScratchPool::kPooledBytes,
                                 ScratchPool::kPooledBytes + 1};
    for (int round = 0; round < 3; ++round) {
        std::vector<ScratchPool::Buffer> held;
        for (std::size_t bytes : sizes) {
            ScratchPool::Buffer buffer = ScratchPool::take(bytes);
            ASSERT_NE(buffer.get(), nullptr) << bytes;
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.get()) % ScratchPool::kAlign, 0u);
            EXPECT_GE(buffer.get_deleter().capacity, bytes);
            std::memset(buffer.get(), 0xA5, bytes);
            held.push_back(std::move(buffer));
        }
    }
}

}  // namespace
}  // namespace si::coll
