// The owner's checks of a message to its window (wire.hpp).
#include "rma/wire.hpp"

#include <cstring>

#include <fmt/format.h>

namespace si::rma {

namespace {

// Data the origin may send at most: the bytes of the target range, twice for
// a compare-and-swap (the value compared and the new one).
bool plausible_data(const MessageHeader& header, std::optional<std::uint64_t> window_bytes) {
    return !window_bytes || header.data_bytes <= 2 * *window_bytes;
}

}  // namespace

std::string check_message(std::span<const std::byte> message,
                          std::optional<std::uint64_t> window_bytes) {
    MessageHeader header;
    if (message.size() < sizeof header)
        return fmt::format("{} bytes, shorter than a header ({})", message.size(), sizeof header);
    std::memcpy(&header, message.data(), sizeof header);
    if (header.type > MessageType::unlock)
        return fmt::format("unknown type {}", static_cast<int>(header.type));
    if (header.type == MessageType::lock && header.lock_type != 1 && header.lock_type != 2)
        return fmt::format("lock type {} is neither exclusive nor shared", header.lock_type);
    if (header.type == MessageType::lock || header.type == MessageType::unlock) return {};
    if (header.blocks > datatype::kMaxBlocks)
        return fmt::format("{} target blocks, more than a type map has", header.blocks);
    if (!plausible_data(header, window_bytes))
        return fmt::format("{} bytes of data for a window of {}", header.data_bytes, *window_bytes);
    const std::uint64_t layout = sizeof header + std::uint64_t{header.blocks} * sizeof(TargetBlock);
    const std::uint64_t here = (header.blocks_follow ? sizeof header : layout) +
                               (header.data_inline ? header.data_bytes : 0);
    if (header.data_inline && header.blocks_follow) return "data inline while the layout follows";
    if (message.size() != here)
        return fmt::format("{} bytes where the header announces {}", message.size(), here);
    return {};
}

std::string decode_access(std::span<const std::byte> layout, std::span<const std::byte> data,
                          std::optional<std::uint64_t> window_bytes, TargetAccess& out) {
    MessageHeader& h = out.header;
    if (layout.size() < sizeof h) return "no header";
    std::memcpy(&h, layout.data(), sizeof h);
    if (h.type > MessageType::compare_and_swap)
        return fmt::format("type {} is not an access", static_cast<int>(h.type));
    if (layout.size() != sizeof h + std::uint64_t{h.blocks} * sizeof(TargetBlock))
        return fmt::format("a layout of {} bytes for {} blocks", layout.size(), h.blocks);
    if (data.size() != h.data_bytes)
        return fmt::format("{} bytes of data where the header announces {}", data.size(),
                           h.data_bytes);
    out.blocks.resize(h.blocks);
    if (!out.blocks.empty())
        std::memcpy(out.blocks.data(), layout.data() + sizeof h,
                    out.blocks.size() * sizeof(TargetBlock));
    out.data = data;
    const bool accumulates =
        h.type == MessageType::accumulate || h.type == MessageType::get_accumulate;
    if (h.op != 0 && !accumulates) return "an operator on an access that does not accumulate";
    out.op = h.op != 0 ? datatype::lookup_op(h.op) : nullptr;
    if (h.op != 0 && out.op == nullptr) return fmt::format("op {:#x} does not exist", h.op);
    out.element = h.base != MPI_DATATYPE_NULL ? datatype::lookup(h.base) : nullptr;
    if (h.base != MPI_DATATYPE_NULL && (out.element == nullptr || out.element->packed == 0))
        return fmt::format("datatype {:#x} is not a type elements can have", h.base);
    if (out.op != nullptr && out.element == nullptr) return "an operator without a datatype";

    // Every block of every item inside the window; the bytes one item moves.
    // A reduction takes whole elements per block, or per item for a pair
    // type split in two runs (apply_access gathers those).
    const bool reduces = out.op != nullptr && !h.no_op;
    const bool gathers = reduces && out.element->map && out.element->map->size() > 1;
    const bool reduces_blocks = reduces && !gathers;
    __int128 run = 0;
    const __int128 last_item = h.count == 0 ? 0 : (__int128{h.count} - 1) * h.extent;
    for (const TargetBlock& block : out.blocks) {
        if (block.length > (std::uint64_t{1} << 62)) return "a block longer than memory";
        if (reduces_blocks && block.length % out.element->packed != 0)
            return fmt::format("a block of {} bytes holds no whole element", block.length);
        run += block.length;
        const __int128 low =
            __int128{h.displacement} + block.offset + std::min<__int128>(0, last_item);
        const __int128 high = __int128{h.displacement} + block.offset +
                              std::max<__int128>(0, last_item) + block.length;
        if (window_bytes && h.count > 0 && block.length > 0 && (low < 0 || high > *window_bytes))
            return fmt::format("bytes {}..{} of a window of {}", static_cast<long long>(low),
                               static_cast<long long>(high), *window_bytes);
    }
    // Items that overlap could move more bytes than the window holds: no
    // program needs that in one access, and a corrupt count would make the
    // owner loop or allocate without end.
    if (run > (__int128{1} << 62)) return "an item longer than memory";
    if (window_bytes && run * h.count > static_cast<__int128>(*window_bytes))
        return fmt::format("{} items of {} bytes, more than the window's {}", h.count,
                           static_cast<long long>(run), *window_bytes);
    out.bytes = static_cast<std::uint64_t>(run * h.count);
    if (gathers && run % out.element->packed != 0)
        return fmt::format("an item of {} bytes holds no whole element",
                           static_cast<long long>(run));
    if (h.type == MessageType::compare_and_swap) {
        // One element: the value compared, then the new one.
        const std::uint64_t size = data.size() / 2;
        if (size == 0 || data.size() % 2 != 0 ||
            (out.element != nullptr && size != out.element->packed))
            return fmt::format("{} bytes of compare-and-swap data", data.size());
        if (window_bytes &&
            (h.displacement > *window_bytes || size > *window_bytes - h.displacement))
            return fmt::format("a compare-and-swap at byte {} of a window of {}", h.displacement,
                               *window_bytes);
        return {};
    }
    // More is the origin's erroneous program (a type signature longer than
    // the target's), which changes nothing here; less would be read past.
    const bool reads_data = h.type != MessageType::get && !h.no_op;
    const __int128 needed = reads_data ? run * h.count : 0;
    if (needed > static_cast<__int128>(data.size()))
        return fmt::format("{} bytes of data for an access that takes {}", data.size(),
                           static_cast<long long>(needed));
    return {};
}

bool replies(MessageType type) {
    return type == MessageType::get || type == MessageType::get_accumulate ||
           type == MessageType::compare_and_swap;
}

}  // namespace si::rma
