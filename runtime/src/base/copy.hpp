// Copying a message's bytes: memcpy, but for the few bytes most messages
// carry without calling it (libc's memcpy runs about 20 instructions before
// it moves 8 bytes; a message's whole send path is a few hundred).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace si {

inline void copy_message(void* to, const void* from, std::size_t bytes) {
    auto* d = static_cast<unsigned char*>(to);
    const auto* s = static_cast<const unsigned char*>(from);
    if (bytes > 16) {
        std::memcpy(d, s, bytes);
    } else if (bytes >= 8) {  // two words that overlap unless bytes is 16
        std::uint64_t head, tail;
        std::memcpy(&head, s, 8);
        std::memcpy(&tail, s + bytes - 8, 8);
        std::memcpy(d, &head, 8);
        std::memcpy(d + bytes - 8, &tail, 8);
    } else if (bytes >= 4) {
        std::uint32_t head, tail;
        std::memcpy(&head, s, 4);
        std::memcpy(&tail, s + bytes - 4, 4);
        std::memcpy(d, &head, 4);
        std::memcpy(d + bytes - 4, &tail, 4);
    } else {
        for (std::size_t i = 0; i < bytes; ++i) d[i] = s[i];
    }
}

}  // namespace si
