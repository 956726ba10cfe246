// The verbs registration cache as pure bookkeeping: the pin and unpin
// callbacks are recorded, no device is needed.
#include "transport/verbs/reg_cache.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace si::transport::verbs {
namespace {

constexpr std::size_t kPage = 4096;

struct Pins {
    std::vector<std::pair<std::uintptr_t, std::size_t>> pinned;
    int unpinned = 0;
    bool refuse = false;
    bool read_only = false;
};

RegistrationCache make_cache(Pins& pins) {
    return RegistrationCache(
        kPage,
        [&pins](std::uintptr_t begin, std::size_t bytes) -> std::optional<PinnedRange> {
            if (pins.refuse) return std::nullopt;
            pins.pinned.emplace_back(begin, bytes);
            const auto key = static_cast<std::uint32_t>(pins.pinned.size());
            return PinnedRange{reinterpret_cast<void*>(begin), key, key + 100, !pins.read_only};
        },
        [&pins](const PinnedRange&) { ++pins.unpinned; });
}

const void* at(std::uintptr_t address) {
    return reinterpret_cast<const void*>(address);
}

TEST(RegistrationCache, PinsWholePages) {
    Pins pins;
    RegistrationCache cache = make_cache(pins);
    auto* entry = cache.acquire(at(0x10010), 0x2000, false);
    ASSERT_NE(entry, nullptr);
    ASSERT_EQ(pins.pinned.size(), 1u);
    EXPECT_EQ(pins.pinned[0].first, 0x10000u);
    EXPECT_EQ(pins.pinned[0].second, 0x3000u);  // 0x10010..0x12010 touches three pages
    EXPECT_EQ(cache.pinned_bytes(), 0x3000u);
    cache.release(entry);
    EXPECT_EQ(pins.unpinned, 1);
    EXPECT_EQ(cache.entries(), 0u);
}

TEST(RegistrationCache, CoveredRangesShareOneRegistration) {
    Pins pins;
    RegistrationCache cache = make_cache(pins);
    auto* whole = cache.acquire(at(0x20000), 0x4000, false);
    auto* inside = cache.acquire(at(0x21008), 16, false);
    EXPECT_EQ(whole, inside);
    EXPECT_EQ(pins.pinned.size(), 1u);
    EXPECT_EQ(cache.hits(), 1u);
    // The last user unpins, not the first.
    cache.release(whole);
    EXPECT_EQ(pins.unpinned, 0);
    cache.release(inside);
    EXPECT_EQ(pins.unpinned, 1);
}

TEST(RegistrationCache, OverlappingButNotCoveredPinsAgain) {
    Pins pins;
    RegistrationCache cache = make_cache(pins);
    auto* first = cache.acquire(at(0x30000), 0x1000, false);
    auto* second = cache.acquire(at(0x30800), 0x1000, false);  // spills into the next page
    EXPECT_NE(first, second);
    EXPECT_EQ(pins.pinned.size(), 2u);
    EXPECT_EQ(cache.entries(), 2u);
    cache.release(first);
    cache.release(second);
    EXPECT_EQ(pins.unpinned, 2);
    EXPECT_EQ(cache.pinned_bytes(), 0u);
}

TEST(RegistrationCache, NothingIsKeptOnceIdle) {
    // A buffer freed and reallocated at the same address may have new pages;
    // without munmap hooks only a registration in use is safe to share.
    Pins pins;
    RegistrationCache cache = make_cache(pins);
    cache.release(cache.acquire(at(0x40000), 64, false));
    cache.release(cache.acquire(at(0x40000), 64, false));
    EXPECT_EQ(pins.pinned.size(), 2u);
    EXPECT_EQ(pins.unpinned, 2);
}

TEST(RegistrationCache, RefusalIsReported) {
    Pins pins;
    pins.refuse = true;
    RegistrationCache cache = make_cache(pins);
    EXPECT_EQ(cache.acquire(at(0x50000), 64, false), nullptr);
    EXPECT_EQ(cache.entries(), 0u);
}

TEST(RegistrationCache, ReadOnlyMemoryServesOnlyReaders) {
    Pins pins;
    pins.read_only = true;
    RegistrationCache cache = make_cache(pins);
    // A target the NIC must write into cannot use a read-only pin.
    EXPECT_EQ(cache.acquire(at(0x60000), 64, true), nullptr);
    EXPECT_EQ(pins.unpinned, 1);
    auto* readable = cache.acquire(at(0x60000), 64, false);
    ASSERT_NE(readable, nullptr);
    pins.read_only = false;
    auto* writable = cache.acquire(at(0x60000), 64, true);
    ASSERT_NE(writable, nullptr);
    EXPECT_NE(readable, writable);
    EXPECT_TRUE(writable->pinned.writable);
    // ... while a reader may share a writable one.
    EXPECT_EQ(cache.acquire(at(0x60010), 8, false), readable);
    cache.release(readable);
    cache.release(readable);
    cache.release(writable);
    EXPECT_EQ(cache.entries(), 0u);
}

// What a read started in a signal handler uses: the receive buffer was
// registered when the receive was posted, so find() shares that pin, and a
// range nobody pinned is refused rather than pinned.
TEST(RegistrationCache, FindSharesButNeverPins) {
    Pins pins;
    RegistrationCache cache = make_cache(pins);
    EXPECT_EQ(cache.find(at(0x20000), 0x1000, true), nullptr);
    EXPECT_TRUE(pins.pinned.empty());
    auto* posted = cache.acquire(at(0x20000), 0x4000, false);
    auto* read = cache.find(at(0x21000), 0x1000, true);
    EXPECT_EQ(read, posted);
    EXPECT_EQ(pins.pinned.size(), 1u);
    EXPECT_EQ(cache.find(at(0x23000), 0x2000, true), nullptr);  // past its end
    cache.release(read);
    EXPECT_EQ(pins.unpinned, 0);  // the receive still holds it
    cache.release(posted);
    EXPECT_EQ(pins.unpinned, 1);
}

TEST(RegistrationCache, DestructorUnpinsWhatIsLeft) {
    Pins pins;
    {
        RegistrationCache cache = make_cache(pins);
        ASSERT_NE(cache.acquire(at(0x70000), 64, false), nullptr);
    }
    EXPECT_EQ(pins.unpinned, 1);
}

}  // namespace
}  // namespace si::transport::verbs
