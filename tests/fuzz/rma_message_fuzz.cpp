// Messages to a window's owner as a peer (or a corrupt one) may send them:
// the input is the first message, then what follows it on the data tag. The
// owner's checks (rma/wire.hpp) must refuse whatever would make it read or
// write outside the message or a 4 KiB window; what they accept is applied
// to that window, under AddressSanitizer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "rma/wire.hpp"

using namespace si::rma;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    constexpr std::uint64_t kWindowBytes = 4096;
    const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(bytes), size);
    MessageHeader header;
    if (input.size() < sizeof header) return 0;
    std::memcpy(&header, input.data(), sizeof header);
    // The first message ends where its header says; the rest is the follow-up.
    const std::uint64_t layout = sizeof header + std::uint64_t{header.blocks} * sizeof(TargetBlock);
    std::uint64_t first = header.blocks_follow ? sizeof header : layout;
    if (header.data_inline) first += header.data_bytes;
    if (first > input.size()) return 0;
    const std::span<const std::byte> message = input.first(first);
    if (!check_message(message, kWindowBytes).empty()) return 0;
    if (header.type == MessageType::lock || header.type == MessageType::unlock) return 0;

    // As Window::serve and apply_follow_up put the layout and data together.
    std::vector<std::byte> layout_bytes(message.begin(), message.end());
    std::span<const std::byte> data;
    const std::span<const std::byte> follow = input.subspan(first);
    if (header.data_inline) {
        layout_bytes.resize(layout);
        data = message.subspan(layout);
    } else {
        const std::uint64_t blocks_bytes = header.blocks_follow ? layout - sizeof header : 0;
        if (follow.size() != blocks_bytes + header.data_bytes) return 0;
        layout_bytes.insert(layout_bytes.end(), follow.begin(), follow.begin() + blocks_bytes);
        data = follow.subspan(blocks_bytes);
    }
    TargetAccess access;
    if (!decode_access(layout_bytes, data, kWindowBytes, access).empty()) return 0;
    std::vector<std::byte> window(kWindowBytes);
    std::vector<std::byte> reply;
    apply_access(window.data(), access, reply);
    return 0;
}
