// The verbs transport's registration cache: pure bookkeeping, so it can be
// tested without a device (the pinning itself is a callback).
//
// Ranges are pinned whole pages at a time, and a request is served by any
// pinned range that covers its pages (and allows writing if it must), so
// concurrent transfers from one buffer (a linear broadcast, a window read by
// several peers) share one registration. Each entry counts its users; the
// last release unpins it at once. Keeping idle registrations for later would
// save the pinning cost of a buffer sent again and again, but it is only safe
// with hooks that see memory being unmapped (UCX and Open MPI patch munmap
// and friends for that): without them, a buffer freed and a new one
// allocated at the same address would be served the old pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace si::transport::verbs {

struct PinnedRange {
    void* handle = nullptr;  // the transport's (an ibv_mr)
    std::uint32_t lkey = 0;
    std::uint32_t rkey = 0;
    bool writable = false;  // the NIC may write into it
};

class RegistrationCache {
  public:
    struct Entry {
        std::uintptr_t begin = 0;  // page-aligned
        std::uintptr_t end = 0;
        PinnedRange pinned;
        int users = 0;
    };

    // pin(begin, bytes) pins a page-aligned range, writable by the NIC if it
    // can be (read-only memory cannot); nullopt if the kernel refused.
    using Pin = std::function<std::optional<PinnedRange>(std::uintptr_t begin, std::size_t bytes)>;
    using Unpin = std::function<void(const PinnedRange&)>;

    RegistrationCache(std::size_t page_bytes, Pin pin, Unpin unpin);
    ~RegistrationCache();
    RegistrationCache(const RegistrationCache&) = delete;
    RegistrationCache& operator=(const RegistrationCache&) = delete;

    // A registration covering [address, address + bytes), with one more user;
    // nullptr if pinning failed or the memory is read-only and `writable` was asked.
    Entry* acquire(const void* address, std::size_t bytes, bool writable);
    // The same without pinning (no system call, no allocation): nullptr if
    // no pinned range covers it.
    Entry* find(const void* address, std::size_t bytes, bool writable);
    // Drops one user; the last one unpins.
    void release(Entry* entry);

    std::size_t entries() const { return entries_.size(); }
    std::size_t pinned_bytes() const { return pinned_bytes_; }
    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return misses_; }

  private:
    // [begin, end) of the whole pages holding the range.
    std::pair<std::uintptr_t, std::uintptr_t> pages_of(const void* address,
                                                       std::size_t bytes) const;

    std::size_t page_bytes_;
    Pin pin_;
    Unpin unpin_;
    std::vector<std::unique_ptr<Entry>> entries_;  // few: one per transfer in flight
    std::size_t pinned_bytes_ = 0;
    std::uint64_t hits_ = 0;
    std::uint64_t misses_ = 0;
};

}  // namespace si::transport::verbs
