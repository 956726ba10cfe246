// Telling the CPU we are spinning, and ordering a store before a later load.
#pragma once

#include <atomic>

namespace si {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// A full fence for the store-then-load handshakes between a sleeper and its
// waker (each stores, fences, then loads what the other stored). GCC's
// ThreadSanitizer does not model fences and rejects them under -Werror, so a
// TSan build orders both sides with a read-modify-write on one shared word,
// which gives the same guarantee and which TSan understands.
#if defined(__SANITIZE_THREAD__)
inline std::atomic<unsigned> store_load_fence_word{0};
inline void store_load_fence() { store_load_fence_word.fetch_add(1, std::memory_order_seq_cst); }
#else
inline void store_load_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
#endif

}  // namespace si
