#include "transport/verbs/reg_cache.hpp"

#include <algorithm>

namespace si::transport::verbs {

RegistrationCache::RegistrationCache(std::size_t page_bytes, Pin pin, Unpin unpin)
    : page_bytes_(page_bytes), pin_(std::move(pin)), unpin_(std::move(unpin)) {}

std::pair<std::uintptr_t, std::uintptr_t> RegistrationCache::pages_of(const void* address,
                                                                       std::size_t bytes) const {
    const auto first = reinterpret_cast<std::uintptr_t>(address);
    return {first / page_bytes_ * page_bytes_,
            (first + std::max<std::size_t>(bytes, 1) + page_bytes_ - 1) / page_bytes_ * page_bytes_};
}

RegistrationCache::~RegistrationCache() {
    for (const auto& entry : entries_) unpin_(entry->pinned);
}

RegistrationCache::Entry* RegistrationCache::find(const void* address, std::size_t bytes,
                                                  bool writable) {
    const auto [begin, end] = pages_of(address, bytes);
    for (const auto& entry : entries_) {
        if (entry->begin <= begin && end <= entry->end && (entry->pinned.writable || !writable)) {
            ++entry->users;
            ++hits_;
            return entry.get();
        }
    }
    return nullptr;
}

RegistrationCache::Entry* RegistrationCache::acquire(const void* address, std::size_t bytes,
                                                     bool writable) {
    if (Entry* entry = find(address, bytes, writable)) return entry;
    const auto [begin, end] = pages_of(address, bytes);
    ++misses_;
    std::optional<PinnedRange> pinned = pin_(begin, end - begin);
    if (!pinned) return nullptr;
    if (writable && !pinned->writable) {
        unpin_(*pinned);
        return nullptr;
    }
    entries_.push_back(std::make_unique<Entry>(Entry{begin, end, *pinned, 1}));
    pinned_bytes_ += end - begin;
    return entries_.back().get();
}

void RegistrationCache::release(Entry* entry) {
    if (--entry->users > 0) return;
    unpin_(entry->pinned);
    pinned_bytes_ -= entry->end - entry->begin;
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const auto& e) { return e.get() == entry; });
    *it = std::move(entries_.back());
    entries_.pop_back();
}

}  // namespace si::transport::verbs
