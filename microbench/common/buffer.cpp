#include "common/buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

namespace si::bench {

namespace {

constexpr std::size_t kPage = 4096;

std::byte pattern_byte(std::size_t index, std::uint64_t seed) {
    // A multiplicative hash of the position: not periodic at any power of two, so
    // chunks landing at a wrong offset are noticed.
    const std::uint64_t x = (index + 1) * 0x9e3779b97f4a7c15ULL + seed * 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::byte>(x >> 56);
}

}  // namespace

void Buffer::Free::operator()(std::byte* p) const {
    std::free(p);
}

Buffer::Buffer(std::size_t bytes) : bytes_(bytes) {
    // At least one page, so that even a 0-byte buffer has a valid address to pass.
    const std::size_t rounded = (std::max(bytes, std::size_t{1}) + kPage - 1) / kPage * kPage;
    auto* p = static_cast<std::byte*>(std::aligned_alloc(kPage, rounded));
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, 0, rounded);
    memory_.reset(p);
}

std::span<std::byte> Buffer::bytes(std::size_t offset, std::size_t count) {
    if (offset > bytes_ || count > bytes_ - offset)
        throw std::out_of_range(
            fmt::format("bytes [{}, +{}) outside a buffer of {}", offset, count, bytes_));
    return {memory_.get() + offset, count};
}

std::span<const std::byte> Buffer::bytes(std::size_t offset, std::size_t count) const {
    return const_cast<Buffer*>(this)->bytes(offset, count);
}

void fill_pattern(std::span<std::byte> bytes, std::uint64_t seed) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = pattern_byte(i, seed);
}

bool check_pattern(std::span<const std::byte> bytes, std::uint64_t seed) {
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] != pattern_byte(i, seed)) return false;
    return true;
}

void clear(std::span<std::byte> bytes) {
    std::memset(bytes.data(), 0xa5, bytes.size());
}

}  // namespace si::bench
