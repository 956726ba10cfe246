#include "coll/scratch_pool.hpp"

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

}  // namespace

void ScratchPool::Return::operator()(std::byte* buffer) const {
    if (buffer == nullptr) return;
    if (capacity >= kPooledBytes) {
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
    if (bytes < kPooledBytes) return Buffer(allocate(bytes > 0 ? bytes : 1), Return{bytes});
    const std::size_t capacity = std::bit_ceil(bytes);
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
