#include "transport/shm/ring.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace si::transport::shm {
namespace {

struct RingMemory {
    explicit RingMemory(std::uint32_t cells, std::size_t cell_bytes)
        : storage(sizeof(RingControl) + cells * cell_bytes + 64) {
        auto* base = reinterpret_cast<std::byte*>(
            (reinterpret_cast<std::uintptr_t>(storage.data()) + 63) & ~std::uintptr_t{63});
        view = RingView{new (base) RingControl{}, base + sizeof(RingControl), cells, cell_bytes};
    }
    std::vector<std::byte> storage;
    RingView view;
};

TEST(Ring, FullAfterCellCountAndEmptyAfterDrain) {
    RingMemory memory(4, 64);
    RingProducer producer(memory.view);
    RingConsumer consumer(memory.view);
    std::uint64_t position = 0;
    for (int i = 0; i < 4; ++i) {
        ASSERT_NE(producer.reserve(position), nullptr);
        EXPECT_EQ(position, static_cast<std::uint64_t>(i));
        producer.publish();
    }
    EXPECT_EQ(producer.reserve(position), nullptr) << "a full ring must refuse a fifth cell";
    for (int i = 0; i < 4; ++i) {
        ASSERT_NE(consumer.next(position), nullptr);
        EXPECT_EQ(position, static_cast<std::uint64_t>(i));
    }
    EXPECT_EQ(consumer.next(position), nullptr);
    // Handed out but not released: still full for the producer.
    EXPECT_EQ(producer.reserve(position), nullptr);
    consumer.release();
    EXPECT_NE(producer.reserve(position), nullptr);
    EXPECT_EQ(position, 4u);
}

// One producer thread, one consumer thread, a tiny ring and a million
// messages: every message arrives once, in order, intact. Run under
// ThreadSanitizer too (make check-sanitizers).
TEST(Ring, ThreadsExchangeMessagesInOrder) {
    constexpr std::uint64_t kMessages = 200000;
    RingMemory memory(8, 64);
    std::thread producer_thread([&] {
        RingProducer producer(memory.view);
        for (std::uint64_t i = 0; i < kMessages;) {
            std::uint64_t position = 0;
            std::byte* cell = producer.reserve(position);
            if (cell == nullptr) {
                std::this_thread::yield();
                continue;
            }
            const std::uint64_t value[2] = {i, ~i};
            std::memcpy(cell, value, sizeof value);
            producer.publish();
            ++i;
        }
    });
    RingConsumer consumer(memory.view);
    std::uint64_t expected = 0;
    while (expected < kMessages) {
        std::uint64_t position = 0;
        const std::byte* cell = consumer.next(position);
        if (cell == nullptr) {
            std::this_thread::yield();
            continue;
        }
        std::uint64_t value[2];
        std::memcpy(value, cell, sizeof value);
        ASSERT_EQ(value[0], expected);
        ASSERT_EQ(value[1], ~expected);
        consumer.release();
        ++expected;
    }
    producer_thread.join();
}

}  // namespace
}  // namespace si::transport::shm
