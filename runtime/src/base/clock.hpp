// Timestamps that several processes of one host compare (steady_clock is
// CLOCK_MONOTONIC on Linux, shared by every process of the host).
#pragma once

#include <chrono>
#include <cstdint>

namespace si {

inline std::uint64_t monotonic_ns() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
}

}  // namespace si
