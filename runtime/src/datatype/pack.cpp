// Packing and unpacking along a type map (see datatype.hpp).
#include <algorithm>
#include <cstring>

#include "datatype/datatype.hpp"

namespace si::datatype {

void pack(const Type& type, const void* buffer, std::size_t count, void* out) {
    auto* to = static_cast<std::byte*>(out);
    if (type.contiguous) {
        if (count > 0 && type.packed > 0) std::memcpy(to, type.data(buffer), type.bytes(count));
        return;
    }
    Block storage;
    const std::span<const Block> blocks = type.blocks(storage);
    for (std::size_t i = 0; i < count; ++i) {
        const std::byte* item = at(buffer, static_cast<std::ptrdiff_t>(i) * type.extent);
        for (const Block& block : blocks) {
            std::memcpy(to, at(item, block.offset), block.length);
            to += block.length;
        }
    }
}

PartCursor::PartCursor(const Type& type, const void* buffer, std::size_t count)
    : type_(type), buffer_(buffer), count_(count), blocks_(type.blocks(storage_)) {
    if (blocks_.empty() || type.packed == 0) count_ = 0;  // nothing to copy
}

template <typename Copy>
std::size_t PartCursor::advance(std::size_t bytes, Copy copy) {
    std::size_t copied = 0;
    while (copied < bytes && item_ < count_) {
        const Block& block = blocks_[block_];
        const std::size_t n = std::min(block.length - offset_, bytes - copied);
        const std::byte* item = at(buffer_, static_cast<std::ptrdiff_t>(item_) * type_.extent);
        copy(at(item, block.offset + static_cast<std::ptrdiff_t>(offset_)), copied, n);
        copied += n;
        offset_ += n;
        if (offset_ < block.length) continue;
        offset_ = 0;
        if (++block_ == blocks_.size()) {
            block_ = 0;
            ++item_;
        }
    }
    return copied;
}

std::size_t Packer::next(void* out, std::size_t bytes) {
    auto* to = static_cast<std::byte*>(out);
    return advance(bytes, [to](const std::byte* data, std::size_t at, std::size_t n) {
        std::memcpy(to + at, data, n);
    });
}

// The items are the caller's writable buffer (the constructor took it so).
std::size_t Unpacker::next(const void* in, std::size_t bytes) {
    const auto* from = static_cast<const std::byte*>(in);
    return advance(bytes, [from](const std::byte* data, std::size_t at, std::size_t n) {
        std::memcpy(const_cast<std::byte*>(data), from + at, n);
    });
}

void unpack(const Type& type, const void* in, std::size_t bytes, void* buffer) {
    const auto* from = static_cast<const std::byte*>(in);
    if (type.packed == 0) return;
    if (type.contiguous) {
        if (bytes > 0) std::memcpy(type.data(buffer), from, bytes);
        return;
    }
    Block storage;
    const std::span<const Block> blocks = type.blocks(storage);
    for (std::size_t i = 0; bytes > 0; ++i) {
        std::byte* item = at(buffer, static_cast<std::ptrdiff_t>(i) * type.extent);
        for (const Block& block : blocks) {
            const std::size_t n = std::min(block.length, bytes);
            std::memcpy(at(item, block.offset), from, n);
            from += n;
            bytes -= n;
            if (bytes == 0) return;
        }
    }
}

std::size_t elements_in(const Type& type, std::size_t bytes) {
    if (type.packed == 0) return 0;
    std::size_t elements = bytes / type.packed * type.basic_elements;
    std::size_t rest = bytes % type.packed;
    Block storage;
    for (const Block& block : type.blocks(storage)) {
        if (rest == 0) break;
        const std::size_t n = std::min(block.length, rest);
        elements += n / block.unit * block.unit_elements;
        rest -= n;
    }
    return elements;
}

std::size_t bytes_for_elements(const Type& type, std::size_t elements) {
    if (type.basic_elements == 0) return 0;
    std::size_t bytes = elements / type.basic_elements * type.packed;
    std::size_t rest = elements % type.basic_elements;
    Block storage;
    for (const Block& block : type.blocks(storage)) {
        if (rest == 0) break;
        const std::size_t units = std::min(block.length / block.unit, rest / block.unit_elements);
        bytes += units * block.unit;
        rest -= units * block.unit_elements;
        if (units * block.unit < block.length) break;  // `rest` ends inside this block
    }
    return bytes;
}

}  // namespace si::datatype
