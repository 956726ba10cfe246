// A rank's staging area: its part of the host's segment, which it fills with
// data its peers then copy out with plain memory copies (Transport::
// acquire_staging). On the development VM a cross-memory read moves about
// 16 GB/s where memcpy moves 64 (README, "Derived datatypes"), so a
// non-contiguous message packed here and unpacked by the receiver, both at
// once, beats one packed privately and read by the kernel.
//
// The area is cut into kBlocks blocks; a bit per block says it is taken.
// Only the owning process takes and gives back blocks (any of its threads),
// so the bitmap is a process-private atomic word; its peers only read.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace si::transport::shm {

class StagingArea {
  public:
    static constexpr std::size_t kBlocks = 64;

    StagingArea() = default;
    StagingArea(std::byte* begin, std::size_t bytes)
        : begin_(begin), block_bytes_(bytes / kBlocks) {}

    // `bytes` in consecutive free blocks, or null.
    std::byte* acquire(std::size_t bytes) {
        const std::size_t blocks = blocks_for(bytes);
        if (blocks == 0 || blocks > kBlocks) return nullptr;
        const std::uint64_t run = mask(blocks);
        std::uint64_t used = used_.load(std::memory_order_relaxed);
        for (;;) {
            std::size_t first = 0;
            while (first + blocks <= kBlocks && (used & (run << first)) != 0)
                first = std::bit_width(used & (run << first));  // past the last taken
            if (first + blocks > kBlocks) return nullptr;
            if (used_.compare_exchange_weak(used, used | (run << first), std::memory_order_acq_rel))
                return begin_ + first * block_bytes_;
        }
    }

    void release(std::byte* at, std::size_t bytes) {
        const auto first = static_cast<std::size_t>(at - begin_) / block_bytes_;
        used_.fetch_and(~(mask(blocks_for(bytes)) << first), std::memory_order_release);
    }

    bool contains(const void* address, std::size_t bytes) const {
        const auto* at = static_cast<const std::byte*>(address);
        return block_bytes_ != 0 && at >= begin_ && at + bytes <= begin_ + kBlocks * block_bytes_;
    }

  private:
    std::size_t blocks_for(std::size_t bytes) const {
        return block_bytes_ == 0 ? 0 : (bytes + block_bytes_ - 1) / block_bytes_;
    }
    static std::uint64_t mask(std::size_t blocks) {
        return blocks >= kBlocks ? ~std::uint64_t{0} : (std::uint64_t{1} << blocks) - 1;
    }

    std::byte* begin_ = nullptr;
    std::size_t block_bytes_ = 0;
    std::atomic<std::uint64_t> used_{0};
};

}  // namespace si::transport::shm
