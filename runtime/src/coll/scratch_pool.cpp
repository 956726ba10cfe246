#include "coll/scratch_pool.hpp"

#include <algorithm>
#include <bit>
#include <mutex>
#include <new>
#include <vector>

namespace si::coll {

namespace {

// Buffers are kept per power-of-two size class, a few per class and a bounded
// total, so that a burst of large collectives cannot pin memory for good.
constexpr std::size_t kKeptPerClass = 4;
constexpr std::size_t kMaxKeptBytes = std::size_t{128} << 20;

struct Pool {
    std::mutex mutex;
    std::vector<std::vector<std::byte*>> classes = std::vector<std::vector<std::byte*>>(64);
    std::size_t kept_bytes = 0;
};

Pool& pool() {
    static Pool* instance = new Pool;  // never destroyed: schedules may end after exit starts
    return *instance;
}

std::byte* allocate(std::size_t capacity) {
    return static_cast<std::byte*>(
        ::operator new[](capacity, std::align_val_t{ScratchPool::kAlign}));
}

void release(std::byte* buffer) {
    ::operator delete[](buffer, std::align_val_t{ScratchPool::kAlign});
}

// Small buffers, per thread: powers of two from kSmallest to kPooledBytes / 2.
// A nonblocking collective's buffers return to the thread that ends its
// schedule (a progress thread, say), whose cache then serves its own calls:
// the bound per class keeps that from piling up.
constexpr std::size_t kSmallest = 64;
constexpr int kSmallClasses = std::countr_zero(ScratchPool::kPooledBytes / kSmallest);
constexpr std::size_t kKeptSmallPerClass = 4;

// Plain data, so that it stays usable after the thread's destructors ran
// (a buffer returned then goes to the heap).
struct ThreadCache {
    std::byte* kept[kSmallClasses][kKeptSmallPerClass];
    std::size_t count[kSmallClasses];
    bool closed;
};
constinit thread_local ThreadCache t_cache{};

// Frees the thread's buffers when it ends; registered by the first buffer kept.
struct CacheCloser {
    CacheCloser() = default;
    CacheCloser(const CacheCloser&) = delete;
    CacheCloser& operator=(const CacheCloser&) = delete;
    ~CacheCloser() {
        for (int c = 0; c < kSmallClasses; ++c)
            for (std::size_t i = 0; i < t_cache.count[c]; ++i) release(t_cache.kept[c][i]);
        t_cache = ThreadCache{};
        t_cache.closed = true;
    }
};
thread_local CacheCloser t_closer;

int small_class(std::size_t capacity) {
    return std::countr_zero(capacity) - std::countr_zero(kSmallest);
}

}  // namespace

void ScratchPool::Return::operator()(std::byte* buffer) const {
    if (buffer == nullptr) return;
    if (capacity < kPooledBytes) {
        ThreadCache& cache = t_cache;
        const int c = small_class(capacity);
        if (!cache.closed && cache.count[c] < kKeptSmallPerClass) {
            static_cast<void>(&t_closer);  // constructs it once, so that it runs at thread exit
            cache.kept[c][cache.count[c]++] = buffer;
            return;
        }
    } else {
        Pool& p = pool();
        std::lock_guard lock(p.mutex);
        auto& kept = p.classes[static_cast<std::size_t>(std::countr_zero(capacity))];
        if (kept.size() < kKeptPerClass && p.kept_bytes + capacity <= kMaxKeptBytes) {
            kept.push_back(buffer);
            p.kept_bytes += capacity;
            return;
        }
    }
    release(buffer);
}

ScratchPool::Buffer ScratchPool::take(std::size_t bytes) {
    // By capacity, as Return decides: a request just under kPooledBytes
    // rounds up to it, a class past the thread's cache.
    const std::size_t capacity = std::bit_ceil(std::max(bytes, kSmallest));
    if (capacity < kPooledBytes) {
        ThreadCache& cache = t_cache;
        const int c = small_class(capacity);
        if (cache.count[c] > 0) return Buffer(cache.kept[c][--cache.count[c]], Return{capacity});
        return Buffer(allocate(capacity), Return{capacity});
    }
    {
        Pool& p = pool();
        std::lock_guard lock(p.mutex);
        auto& kept = p.classes[static_cast<std::size_t>(std::countr_zero(capacity))];
        if (!kept.empty()) {
            std::byte* buffer = kept.back();
            kept.pop_back();
            p.kept_bytes -= capacity;
            return Buffer(buffer, Return{capacity});
        }
    }
    return Buffer(allocate(capacity), Return{capacity});
}

}  // namespace si::coll
