#include "p2p/request.hpp"

#include <cstdlib>

#include "base/log.hpp"

namespace si::p2p {

RequestPool::RequestPool() = default;

RequestPool::~RequestPool() {
    for (std::uint32_t c = 0; c < chunk_count_; ++c) delete[] chunks_[c].load();
}

Request* RequestPool::acquire(Request::Kind kind) {
    if (free_.empty()) {
        if (chunk_count_ == kMaxChunks) {
            log::error("more than {} requests outstanding: a request handle cannot name more; "
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
    const std::uint32_t index = free_.back();
    free_.pop_back();
    Request* r = &chunks_[index / kChunk].load(std::memory_order_relaxed)[index % kChunk];
    const std::uint32_t generation = r->generation + 1;
    r->kind = kind;
    r->phase = Request::Phase::idle;
    r->complete.store(false, std::memory_order_relaxed);
    r->in_use = true;
    r->detached = false;
    r->synchronous = false;
    r->cancel_asked = false;
    r->match = {};
    r->tuple = {};
    r->peer = -1;
    r->buffer = nullptr;
    r->segments = {};
    r->ready = nullptr;
    r->bytes = 0;
    r->result = {};
    r->remote_request = 0;
    r->registration = {};
    r->registered_with = nullptr;
    r->owner = 0;
    r->wake_for_eager = false;
    r->links = {};
    r->generation = generation;
    ++in_use_;
    return r;
}

void RequestPool::release(Request* request) {
    request->hook.reset();
    request->phase = Request::Phase::idle;
    request->in_use = false;
    ++request->generation;
    free_.push_back(request->index);
    --in_use_;
}


}  // namespace si::p2p
