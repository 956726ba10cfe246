#include "p2p/request.hpp"

#include <cstdlib>

#include "base/log.hpp"

namespace si::p2p {

RequestPool::RequestPool() = default;

RequestPool::~RequestPool() {
    for (std::uint32_t c = 0; c < chunk_count_; ++c) delete[] chunks_[c].load();
}

void RequestPool::grow() {
    if (chunk_count_ == kMaxChunks) {
        log::error(
            "more than {} requests outstanding: a request handle cannot name more; "
            "complete some before starting others",
            kMaxRequests);
        std::abort();
    }
    const std::uint32_t base = chunk_count_ * kChunk;
    auto* chunk = new Request[kChunk];
    // Push in reverse so low indices are handed out first.
    for (std::uint32_t i = kChunk; i-- > 0;) {
        chunk[i].index = base + i;
        if (base + i < kMaxRequests) free_.push_back(base + i);
    }
    chunks_[chunk_count_++].store(chunk, std::memory_order_release);
}

}  // namespace si::p2p
