#include "p2p/request.hpp"

namespace si::p2p {

RequestPool::RequestPool() = default;

RequestPool::~RequestPool() {
    for (Request* chunk : chunks_) delete[] chunk;
}

Request* RequestPool::acquire(Request::Kind kind) {
    if (free_.empty()) {
        const auto base = static_cast<std::uint32_t>(chunks_.size() * kChunk);
        chunks_.push_back(new Request[kChunk]);
        // Push in reverse so low indices are handed out first.
        for (std::uint32_t i = kChunk; i-- > 0;) {
            chunks_.back()[i].index = base + i;
            free_.push_back(base + i);
        }
    }
    const std::uint32_t index = free_.back();
    free_.pop_back();
    Request* r = &chunks_[index / kChunk][index % kChunk];
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

Request* RequestPool::find(std::uint32_t index) const {
    if (index / kChunk >= chunks_.size()) return nullptr;
    Request* r = &chunks_[index / kChunk][index % kChunk];
    return r->in_use ? r : nullptr;
}

}  // namespace si::p2p
