// Message buffers for benchmarks, and the payload pattern checked after timing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace si::bench {

// Page-aligned and touched at construction: the first timed iteration must not pay
// page faults, and alignment must not vary between runs or runtimes.
class Buffer {
  public:
    explicit Buffer(std::size_t bytes);

    [[nodiscard]] std::byte* data() { return memory_.get(); }
    [[nodiscard]] std::size_t size() const { return bytes_; }
    // `count` bytes from `offset`; checked against the allocation (throws).
    [[nodiscard]] std::span<std::byte> bytes(std::size_t offset, std::size_t count);
    [[nodiscard]] std::span<const std::byte> bytes(std::size_t offset, std::size_t count) const;

  private:
    struct Free {
        void operator()(std::byte* p) const;
    };
    std::unique_ptr<std::byte, Free> memory_;
    std::size_t bytes_ = 0;
};

// A payload that differs between sizes (seed) and along the buffer, so that a
// stale buffer from an earlier size or a misplaced chunk does not pass as correct.
void fill_pattern(std::span<std::byte> bytes, std::uint64_t seed);
[[nodiscard]] bool check_pattern(std::span<const std::byte> bytes, std::uint64_t seed);

// Receive buffers are cleared to this before a size is measured (not 0: a buffer
// that was never written is then told apart from a zero payload byte more often).
void clear(std::span<std::byte> bytes);

}  // namespace si::bench
