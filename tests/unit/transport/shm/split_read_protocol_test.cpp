// The split-read protocol (transport/shm/split_read.hpp) between two threads
// on plain memory, the copies made with memcpy: every byte arrives once, the
// chunks the owner says it copied are the ones the reader did not, a failed
// owner copy is reported, and an owner never claims a later offer's chunk
// with an earlier offer's view. Run under ThreadSanitizer too (the transport
// test beside it maps the segment twice in one process, which hides the
// synchronisation from ThreadSanitizer).
#include "transport/shm/split_read.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace si::transport::shm {
namespace {

constexpr int kReader = 0;
constexpr int kOwner = 1;

int copy_into(std::uint64_t to, std::uint64_t from, std::uint64_t n) {
    std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), n);
    return 0;
}

// One read of `source` into `target` through `offer`, the reader's side.
// `owner_first`: the reader takes chunks only once the owner claimed one, so
// that both copy whatever the scheduler does (on a loaded machine the owner's
// thread may not run at all during a read otherwise); false if that took
// longer than 10 s.
bool read_through(ReadOffer& offer, std::uint64_t generation, std::vector<std::byte>& target,
                  const std::vector<std::byte>& source, bool owner_first, ReaderShare& mine) {
    const auto to = reinterpret_cast<std::uint64_t>(target.data());
    const auto from = reinterpret_cast<std::uint64_t>(source.data());
    publish_offer(offer, generation, to, from, source.size(), kOwner);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (owner_first && chunk_of(offer.claim.load()) == 0)
        if (std::chrono::steady_clock::now() > until) return false;
    mine = take_chunks(
        offer, [&](std::uint64_t at, std::uint64_t n) { return copy_into(to + at, from + at, n); });
    while (!owner_finished(offer, mine)) std::this_thread::yield();
    return true;
}

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed) {
    std::vector<std::byte> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 7 + seed) & 0xFF);
    return data;
}

TEST(SplitReadProtocol, ChunksCoverTheReadAndAreAtMostKMaxChunks) {
    EXPECT_EQ(chunk_bytes_for(kSplitReadFrom), kMinChunkBytes);
    EXPECT_EQ(chunk_bytes_for(std::uint64_t{64} << 20), (std::uint64_t{64} << 20) / kMaxChunks);
}

TEST(SplitReadProtocol, AReaderAloneTakesEveryChunk) {
    ReadOffer offer{};
    const std::vector<std::byte> source = pattern(std::size_t{1} << 20, 3);
    std::vector<std::byte> target(source.size());
    ReaderShare mine;
    ASSERT_TRUE(read_through(offer, 1, target, source, false, mine));
    EXPECT_EQ(mine.bytes, source.size());
    EXPECT_EQ(mine.chunks, (source.size() + kMinChunkBytes - 1) / kMinChunkBytes);
    EXPECT_EQ(target, source);
}

TEST(SplitReadProtocol, AFailedOwnerCopyIsReported) {
    ReadOffer offer{};
    const std::vector<std::byte> source = pattern(std::size_t{1} << 20, 4);
    std::vector<std::byte> target(source.size());
    publish_offer(offer, 1, reinterpret_cast<std::uint64_t>(target.data()),
                  reinterpret_cast<std::uint64_t>(source.data()), source.size(), kOwner);
    const std::uint64_t theirs = help_offer(
        offer, kOwner, [](std::uint64_t, std::uint64_t, std::uint64_t) { return EFAULT; });
    EXPECT_EQ(theirs, source.size()) << "an owner that came first takes every chunk";
    const ReaderShare mine = take_chunks(offer, [](std::uint64_t, std::uint64_t) { return 0; });
    EXPECT_EQ(mine.chunks, 0u);
    EXPECT_TRUE(owner_finished(offer, mine));
    EXPECT_NE(offer.failed.load(), 0u);
}

TEST(SplitReadProtocol, AnOfferForAnotherOwnerIsLeftAlone) {
    ReadOffer offer{};
    std::vector<std::byte> source = pattern(kSplitReadFrom, 5);
    std::vector<std::byte> target(source.size());
    publish_offer(offer, 1, reinterpret_cast<std::uint64_t>(target.data()),
                  reinterpret_cast<std::uint64_t>(source.data()), source.size(), kOwner);
    EXPECT_EQ(help_offer(offer, kReader, copy_into), 0u);
}

// The owner polls all along, as a rank waiting for its FIN does, while the
// reader reads one buffer after another, of sizes around chunk boundaries;
// every other read waits for the owner's first claim, so both sides copy.
TEST(SplitReadProtocol, ThreadsShareReadsAndEveryByteArrives) {
    ReadOffer offer{};
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> owner_bytes{0};
    std::thread owner([&] {
        while (!stop.load(std::memory_order_relaxed))
            owner_bytes.fetch_add(help_offer(offer, kOwner, copy_into), std::memory_order_relaxed);
    });
    const std::size_t sizes[] = {kSplitReadFrom, kSplitReadFrom + 1, std::size_t{1} << 20,
                                 (std::size_t{1} << 20) + 4097, std::size_t{3} << 20};
    std::uint64_t reader_bytes = 0;
    std::uint64_t total = 0;
    std::uint64_t generation = 0;
    for (int round = 0; round < 20; ++round) {
        for (std::size_t bytes : sizes) {
            const std::vector<std::byte> source = pattern(bytes, static_cast<unsigned>(round));
            std::vector<std::byte> target(bytes, std::byte{0});
            ReaderShare mine;
            ++generation;
            ASSERT_TRUE(read_through(offer, generation, target, source, generation % 2 == 0, mine))
                << "the owner's thread never claimed a chunk in 10 s";
            ASSERT_EQ(mine.error, 0);
            ASSERT_EQ(offer.failed.load(), 0u);
            ASSERT_EQ(target, source) << bytes << " bytes, round " << round;
            reader_bytes += mine.bytes;
            total += bytes;
        }
    }
    stop.store(true);
    owner.join();
    EXPECT_EQ(reader_bytes + owner_bytes.load(), total);
    EXPECT_GT(owner_bytes.load(), 0u) << "an owner polling all along never took a chunk";
}

}  // namespace
}  // namespace si::transport::shm
