// Split reads (transport/shm/split_read.hpp): a large RDMA Read on shared
// memory whose owner, progressing meanwhile, copies part of it; and reads of
// an owner's staging area (staging.hpp), which are memory copies. Two ranks of
// one process (the same pid, so cross-memory attach reads our own memory),
// each with its own ShmTransport on a real region and segment; the owner's
// progress runs in a second thread. (Not under ThreadSanitizer: each rank
// maps the segment itself, so one shared word has two addresses in this
// process; split_read_protocol_test checks the protocol's synchronisation.)
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "node/locality.hpp"
#include "node/region.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {
namespace {

class NoEvents final : public Events {
  public:
    bool message_arrived(const Arrival&) override { return true; }
    void rdma_completed(std::uint64_t, int) override {}
    void peer_failed(int) override {}
};

class TwoRanks {
  public:
    explicit TwoRanks(std::size_t staging_bytes = 0) {
        static std::atomic<int> next{0};
        const std::string job = "split-read-test-" + std::to_string(::getpid()) + "-" +
                                std::to_string(next.fetch_add(1));
        const Layout layout{2, 32, 16384, 128 * 1024, staging_bytes};
        region_ = node::Region::create(job, 2, layout.icb_slots());
        region_.unlink();
        SharedSegment created = ShmTransport::create_segment(job, layout);
        std::vector<SharedSegment> segments;
        for (int rank = 0; rank < 2; ++rank) {
            node::RankBlock& block = region_.rank_block(rank);
            block.pid = ::getpid();
            block.world_rank = rank;
            ShmTransport::publish_probe(block);
            segments.push_back(rank == 0 ? SharedSegment{} : ShmTransport::open_segment(job));
        }
        created.unlink();
        segments[0] = std::move(created);
        for (int rank = 0; rank < 2; ++rank) {
            localities_[rank].world_rank = rank;
            localities_[rank].world_size = 2;
            localities_[rank].host_of = {0, 0};
            localities_[rank].local_index_of = {0, 1};
            localities_[rank].host_ranks = {0, 1};
            localities_[rank].node_of = {0, 0};
            transports_[rank] = std::make_unique<ShmTransport>(std::move(segments[rank]), region_,
                                                               localities_[rank], layout);
        }
    }

    ShmTransport& reader() { return *transports_[0]; }
    ShmTransport& owner() { return *transports_[1]; }

    static std::uint64_t counter(const ShmTransport& transport, const std::string& name) {
        for (const Counter& c : transport.counters())
            if (name == c.name) return c.value;
        return ~std::uint64_t{0};
    }

  private:
    node::Region region_;
    node::Locality localities_[2];
    std::unique_ptr<ShmTransport> transports_[2];
};

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed) {
    std::vector<std::byte> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i)
        data[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 4096) & 0xFF);
    return data;
}

// Reads `bytes` of the owner's buffer into a fresh one and checks them;
// `from_reader` swaps the roles (the owner reads the reader's buffer).
void read_and_check(TwoRanks& ranks, std::size_t bytes, unsigned seed, bool from_reader = false) {
    const std::vector<std::byte> source = pattern(bytes, seed);
    std::vector<std::byte> target(bytes, std::byte{0});
    ShmTransport& reading = from_reader ? ranks.owner() : ranks.reader();
    const Result result =
        reading.rdma_read(from_reader ? 0 : 1, target.data(), bytes,
                          RemoteKey{reinterpret_cast<std::uint64_t>(source.data()), 0}, 0);
    ASSERT_EQ(result, Result::done);
    ASSERT_EQ(std::memcmp(target.data(), source.data(), bytes), 0)
        << bytes << " bytes, seed " << seed;
}

// The owner's progress passes, in a thread, for the helper's lifetime.
class OwnerPolling {
  public:
    explicit OwnerPolling(TwoRanks& ranks)
        : thread_([this, &ranks] {
              NoEvents events;
              while (!stop_.load(std::memory_order_relaxed)) ranks.owner().progress(events);
          }) {}
    OwnerPolling(const OwnerPolling&) = delete;
    OwnerPolling& operator=(const OwnerPolling&) = delete;
    ~OwnerPolling() { stop(); }
    void stop() {
        stop_.store(true);
        if (thread_.joinable()) thread_.join();
    }

  private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST(SplitRead, AnOwnerOutsideMpiLeavesTheWholeReadToTheReader) {
    TwoRanks ranks;
    read_and_check(ranks, std::size_t{1} << 20, 1);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads"), 1u);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads_helped"), 0u);
    EXPECT_EQ(TwoRanks::counter(ranks.owner(), "shm_split_bytes_for_peers"), 0u);
}

TEST(SplitRead, SmallReadsAreNotOffered) {
    TwoRanks ranks;
    read_and_check(ranks, kSplitReadFrom - 1, 2);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads"), 0u);
}

// SI_SHM_SPLIT_READ_BYTES: a raised threshold, and 0 (off), keep the read
// whole even with an owner polling all along.
TEST(SplitRead, TheThresholdIsTheReadersChoice) {
    TwoRanks ranks;
    OwnerPolling polling(ranks);
    ranks.reader().split_reads_from(std::size_t{2} << 20);
    read_and_check(ranks, std::size_t{1} << 20, 3);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads"), 0u);
    read_and_check(ranks, std::size_t{2} << 20, 4);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads"), 1u);
    ranks.reader().split_reads_from(0);
    read_and_check(ranks, std::size_t{4} << 20, 5);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_reads"), 1u);
}

// Two ranks that read from each other at once (osu_bibw): each offers only
// while the other is not reading itself, helps the other's offers in its
// passes, and every byte of both directions arrives.
TEST(SplitRead, RanksReadingFromEachOtherAtOnce) {
    TwoRanks ranks;
    std::atomic<bool> stop{false};
    std::thread second([&] {
        NoEvents events;
        for (unsigned seed = 100; !stop.load(std::memory_order_relaxed); ++seed) {
            ranks.owner().progress(events);
            read_and_check(ranks, std::size_t{1} << 20, seed, true);
        }
    });
    NoEvents events;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        ranks.reader().progress(events);
        read_and_check(ranks, (std::size_t{1} << 20) + seed * 4096, seed);
    }
    stop.store(true);
    second.join();
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_bytes_by_owner"),
              TwoRanks::counter(ranks.owner(), "shm_split_bytes_for_peers"));
    EXPECT_EQ(TwoRanks::counter(ranks.owner(), "shm_split_bytes_by_owner"),
              TwoRanks::counter(ranks.reader(), "shm_split_bytes_for_peers"));
}

// The owner progresses in a thread while the reader reads sizes around the
// chunk boundaries: every byte arrives, and what the owner says it copied is
// what the reader says it got from it.
TEST(SplitRead, AnOwnerInsideMpiCopiesPartAndEveryByteArrives) {
    TwoRanks ranks;
    OwnerPolling polling(ranks);
    const std::size_t sizes[] = {kSplitReadFrom,       kSplitReadFrom + 1,
                                 std::size_t{1} << 20, (std::size_t{1} << 20) + 4097,
                                 std::size_t{4} << 20, std::size_t{3} * 1024 * 1024 + 12345};
    unsigned seed = 0;
    for (int round = 0; round < 8; ++round)
        for (std::size_t bytes : sizes) read_and_check(ranks, bytes, ++seed);
    polling.stop();
    const std::uint64_t offered = TwoRanks::counter(ranks.reader(), "shm_split_reads");
    EXPECT_EQ(offered, 8 * std::size(sizes));
    EXPECT_GT(TwoRanks::counter(ranks.reader(), "shm_split_reads_helped"), 0u)
        << "an owner polling all along never took a chunk";
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_split_bytes_by_owner"),
              TwoRanks::counter(ranks.owner(), "shm_split_bytes_for_peers"));
}


TEST(Staging, ARegisteredStagedRangeIsReadAsMemory) {
    TwoRanks ranks(std::size_t{256} << 10);
    const std::size_t bytes = 100000;
    std::byte* staged = ranks.owner().acquire_staging(bytes);
    ASSERT_NE(staged, nullptr);
    const std::vector<std::byte> source = pattern(bytes, 7);
    std::memcpy(staged, source.data(), bytes);
    Registration registration = ranks.owner().register_memory(staged, bytes);
    ASSERT_NE(registration.key, 0u);
    const auto address = reinterpret_cast<std::uint64_t>(staged);

    std::vector<std::byte> whole(bytes);
    ASSERT_EQ(ranks.reader().rdma_read(1, whole.data(), bytes, RemoteKey{address, registration.key}, 0),
              Result::done);
    EXPECT_EQ(whole, source);
    // Into pieces, from an offset.
    std::vector<std::byte> first(1000), second(3000);
    const Segment pieces[] = {{reinterpret_cast<std::uint64_t>(first.data()), first.size()},
                              {reinterpret_cast<std::uint64_t>(second.data()), second.size()}};
    ASSERT_EQ(ranks.reader().rdma_readv(1, pieces, RemoteKey{address + 500, registration.key}),
              Result::done);
    EXPECT_EQ(std::memcmp(first.data(), source.data() + 500, first.size()), 0);
    EXPECT_EQ(std::memcmp(second.data(), source.data() + 1500, second.size()), 0);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_staged_reads"), 1u);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_staged_bytes"), 4000u);
    // Nothing reaches past the owner's area, nor before it.
    std::vector<std::byte> more_than_the_area(std::size_t{300} << 10);
    EXPECT_EQ(ranks.reader().rdma_read(1, more_than_the_area.data(), more_than_the_area.size(),
                                       RemoteKey{address, registration.key}, 0),
              Result::failed);
    EXPECT_EQ(ranks.reader().rdma_read(1, whole.data(), 8, RemoteKey{address - 4096, registration.key}, 0),
              Result::failed);
    ranks.owner().release_staging(staged, bytes);
}

TEST(Staging, PrivateMemoryKeepsTheCrossMemoryKey) {
    TwoRanks ranks(std::size_t{256} << 10);
    std::vector<std::byte> mine(4096);
    EXPECT_EQ(ranks.owner().register_memory(mine.data(), mine.size()).key, 0u);
    read_and_check(ranks, 4096, 8);
    // A key another transport made (a verbs rkey: 32 bits) is not a staged one.
    const std::vector<std::byte> source = pattern(4096, 9);
    std::vector<std::byte> target(4096);
    ASSERT_EQ(ranks.reader().rdma_read(
                  1, target.data(), target.size(),
                  RemoteKey{reinterpret_cast<std::uint64_t>(source.data()), 0x23986c}, 0),
              Result::done);
    EXPECT_EQ(target, source);
    EXPECT_EQ(TwoRanks::counter(ranks.reader(), "shm_staged_reads"), 0u);
}

TEST(Staging, WithoutAnAreaNothingIsStaged) {
    TwoRanks ranks;
    EXPECT_EQ(ranks.owner().acquire_staging(1), nullptr);
}

}  // namespace
}  // namespace si::transport::shm
