// Futex wait and wake on a 32-bit word that may live in memory shared between
// processes (so the private-futex flag is not used).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <ctime>

namespace si::futex {

// Sleeps while *word == expected; returns on wake, signal, timeout or mismatch.
inline void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                 const timespec* timeout = nullptr) {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, timeout,
              nullptr, 0);
}

inline void wake(std::atomic<std::uint32_t>& word, int count) {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, count, nullptr,
              nullptr, 0);
}

}  // namespace si::futex
