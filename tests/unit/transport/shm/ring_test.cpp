#include "transport/shm/ring.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace si::transport::shm {
namespace {

struct RingMemory {
    explicit RingMemory(std::size_t capacity) : storage(sizeof(RingControl) + capacity + 64) {
        auto* base = reinterpret_cast<std::byte*>(
            (reinterpret_cast<std::uintptr_t>(storage.data()) + 63) & ~std::uintptr_t{63});
        view = RingView{new (base) RingControl{}, base + sizeof(RingControl), capacity};
    }
    std::vector<std::byte> storage;
    RingView view;
};

// Publishes one record of `body` bytes holding `value` in its first word.
bool send(RingProducer& producer, std::size_t body, std::uint64_t value,
          std::uint64_t max_records = ~std::uint64_t{0}) {
    std::byte* at = producer.reserve(body, max_records);
    if (at == nullptr) return false;
    std::memset(at, 0xA5, body);
    if (body >= sizeof value) std::memcpy(at, &value, sizeof value);
    producer.publish(static_cast<std::uint32_t>(body), value);
    return true;
}

TEST(Ring, RecordSizesAreRoundedAndTheMinimumHoldsTwoLargest) {
    EXPECT_EQ(record_bytes(0), 16u);
    EXPECT_EQ(record_bytes(8), 32u);
    EXPECT_EQ(record_bytes(16), 32u);
    EXPECT_EQ(record_bytes(17), 48u);
    EXPECT_EQ(min_ring_bytes(16384), 2 * (16384 + 16) + 16u);
    for (const std::uint64_t record : {0ull, 1ull << 31, 1ull << 32, (1ull << 32) - 1})
        EXPECT_NE(sequence_of(record), 0u) << "0 marks an unpublished header, record " << record;
    EXPECT_NE(sequence_of(41), sequence_of(42));
}

TEST(Ring, FullWhenTheNextHeaderHasNoRoomAndFreeAfterRelease) {
    // 256 bytes: seven 32-byte records and the 16 bytes the next header needs.
    RingMemory memory(256);
    RingProducer producer(memory.view);
    RingConsumer consumer(memory.view);
    for (std::uint64_t i = 0; i < 7; ++i) ASSERT_TRUE(send(producer, 8, i)) << i;
    EXPECT_FALSE(send(producer, 8, 7))
        << "an eighth record would leave no room for the next header";
    std::uint64_t number = 0;
    std::uint64_t end = 0;
    std::vector<std::uint64_t> ends;
    for (std::uint64_t i = 0; i < 7; ++i) {
        const RecordHeader* record = consumer.next(number, end);
        ASSERT_NE(record, nullptr);
        EXPECT_EQ(number, i);
        EXPECT_EQ(record->tuple, i);
        EXPECT_EQ(record->bytes, 8u);
        ends.push_back(end);
    }
    EXPECT_EQ(consumer.next(number, end), nullptr);
    EXPECT_FALSE(send(producer, 8, 7)) << "handed out but not released: still full";
    consumer.release(ends[0]);
    EXPECT_EQ(consumer.oldest_unreleased(), 1u);
    EXPECT_TRUE(send(producer, 8, 7));
}

TEST(Ring, RecordLimitBoundsRecordsInFlight) {
    RingMemory memory(4096);
    RingProducer producer(memory.view);
    RingConsumer consumer(memory.view);
    ASSERT_TRUE(send(producer, 0, 1, 2));
    ASSERT_TRUE(send(producer, 0, 2, 2));
    EXPECT_FALSE(send(producer, 0, 3, 2));
    EXPECT_EQ(producer.records_in_flight(), 2u);
    std::uint64_t number = 0;
    std::uint64_t end = 0;
    ASSERT_NE(consumer.next(number, end), nullptr);
    consumer.release(end);
    EXPECT_EQ(producer.records_in_flight(), 1u);
    EXPECT_TRUE(send(producer, 0, 3, 2));
}

TEST(Ring, RecordThatDoesNotFitStartsAtOffsetZeroAfterASkip) {
    RingMemory memory(256);
    RingProducer producer(memory.view);
    RingConsumer consumer(memory.view);
    std::uint64_t number = 0;
    std::uint64_t end = 0;
    // 160 bytes used and released: a 128-byte record does not fit in the
    // 96 bytes left before the end.
    for (std::uint64_t i = 0; i < 5; ++i) {
        ASSERT_TRUE(send(producer, 8, i));
        ASSERT_NE(consumer.next(number, end), nullptr);
        consumer.release(end);
    }
    ASSERT_TRUE(send(producer, 112, 42));
    const RecordHeader* record = consumer.next(number, end);
    ASSERT_NE(record, nullptr);
    EXPECT_EQ(number, 5u);
    EXPECT_EQ(record->tuple, 42u);
    EXPECT_EQ(reinterpret_cast<const std::byte*>(record), memory.view.records)
        << "the record continues at offset 0";
    EXPECT_EQ(end, 256u + 128u);
    consumer.put_back();
    EXPECT_EQ(consumer.next(number, end), record) << "a record put back comes again";
    consumer.release(end);
}

// Stale bytes of an older lap never look like a published header: a payload
// full of what the next sequence number would be is overwritten by the
// producer's clearing of the next header (ring invariant 3).
TEST(Ring, StalePayloadNeverPassesForAHeader) {
    RingMemory memory(512);
    RingProducer producer(memory.view);
    RingConsumer consumer(memory.view);
    std::uint64_t number = 0;
    std::uint64_t end = 0;
    for (std::uint64_t i = 0; i < 200; ++i) {
        // Sizes of 64 and 32 bytes, so that later records start inside the
        // bodies of earlier laps' records.
        const std::size_t body = i % 2 == 0 ? 40 : 8;
        std::byte* at = producer.reserve(body);
        ASSERT_NE(at, nullptr);
        // Every word of the body is a sequence number a later record polls for.
        for (std::size_t w = 0; w < body / 4; ++w) {
            const std::uint32_t fake = sequence_of(i + 1 + w);
            std::memcpy(at + 4 * w, &fake, 4);
        }
        producer.publish(static_cast<std::uint32_t>(body), i);
        ASSERT_NE(consumer.next(number, end), nullptr);
        EXPECT_EQ(number, i);
        consumer.release(end);
        EXPECT_EQ(consumer.next(number, end), nullptr) << "after record " << i;
    }
}

// One producer thread, one consumer thread, a small ring, records of
// varying sizes: every record arrives once, in order, intact. Run under
// ThreadSanitizer too (make check-sanitizers).
TEST(Ring, ThreadsExchangeRecordsInOrder) {
    constexpr std::uint64_t kRecords = 200000;
    RingMemory memory(1024);
    const auto body_of = [](std::uint64_t i) { return static_cast<std::size_t>(i % 7) * 24; };
    std::thread producer_thread([&] {
        RingProducer producer(memory.view);
        for (std::uint64_t i = 0; i < kRecords;) {
            std::byte* at = producer.reserve(body_of(i));
            if (at == nullptr) {
                std::this_thread::yield();
                continue;
            }
            for (std::size_t b = 0; b + 8 <= body_of(i); b += 8) {
                const std::uint64_t word = i ^ b;
                std::memcpy(at + b, &word, 8);
            }
            producer.publish(static_cast<std::uint32_t>(body_of(i)), ~i);
            ++i;
        }
    });
    RingConsumer consumer(memory.view);
    std::uint64_t expected = 0;
    while (expected < kRecords) {
        std::uint64_t number = 0;
        std::uint64_t end = 0;
        const RecordHeader* record = consumer.next(number, end);
        if (record == nullptr) {
            std::this_thread::yield();
            continue;
        }
        ASSERT_EQ(number, expected);
        ASSERT_EQ(record->tuple, ~expected);
        ASSERT_EQ(record->bytes, body_of(expected));
        const auto* body = reinterpret_cast<const std::byte*>(record + 1);
        for (std::size_t b = 0; b + 8 <= body_of(expected); b += 8) {
            std::uint64_t word = 0;
            std::memcpy(&word, body + b, 8);
            ASSERT_EQ(word, expected ^ b);
        }
        consumer.release(end);
        ++expected;
    }
    producer_thread.join();
}

}  // namespace
}  // namespace si::transport::shm
