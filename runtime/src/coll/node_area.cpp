#include "coll/node_area.hpp"

#include <algorithm>
#include <memory>
#include <new>

namespace si::coll {

namespace {

constexpr std::uint64_t kMagic = 0x73692d6e6f646531;  // "si-node1"
constexpr std::size_t kBlockBytes = std::size_t{4} * 1024;
constexpr std::size_t kMinCellBytes = std::size_t{16} * 1024;

std::size_t round_up(std::size_t bytes, std::size_t to) {
    return (bytes + to - 1) / to * to;
}

}  // namespace

struct NodeArea::Header {
    std::uint64_t magic;
    std::uint64_t ranks;
    std::uint64_t cell_bytes;
    std::uint64_t bytes;
};

std::size_t NodeArea::cell_bytes_for(int ranks) {
    return std::max(kMinCellBytes, kBlockBytes * static_cast<std::size_t>(ranks));
}

std::size_t NodeArea::cell_stride(int ranks) {
    return round_up(kCellHeader + cell_bytes_for(ranks), kLine);
}

std::size_t NodeArea::bytes_for(int ranks) {
    const auto n = static_cast<std::size_t>(ranks);
    return kLine + n * kLine + n * static_cast<std::size_t>(kCells) * cell_stride(ranks);
}

void NodeArea::format(void* memory, int ranks) {
    Header* header = std::construct_at(static_cast<Header*>(memory));
    header->magic = kMagic;
    header->ranks = static_cast<std::uint64_t>(ranks);
    header->cell_bytes = cell_bytes_for(ranks);
    header->bytes = bytes_for(ranks);
}

bool NodeArea::attach(void* memory, std::size_t bytes, int rank, int ranks) {
    static_assert(sizeof(Header) <= kLine && sizeof(Control) <= kLine && kCellHeader >= sizeof(Cell));
    if (ranks < 1 || ranks > kMaxRanks || rank < 0 || rank >= ranks) return false;
    const auto* header = static_cast<const Header*>(memory);
    if (bytes < bytes_for(ranks) || header->magic != kMagic ||
        header->ranks != static_cast<std::uint64_t>(ranks) ||
        header->cell_bytes != cell_bytes_for(ranks) || header->bytes != bytes_for(ranks))
        return false;
    controls_ = static_cast<std::byte*>(memory) + kLine;
    cells_ = controls_ + static_cast<std::size_t>(ranks) * kLine;
    rank_ = rank;
    ranks_ = ranks;
    cell_bytes_ = cell_bytes_for(ranks);
    stride_ = cell_stride(ranks);
    return true;
}

bool NodeArea::all_through(std::uint64_t u) {
    for (int j = 0; j < ranks_; ++j)
        if (!through(j, u)) return false;
    return true;
}

}  // namespace si::coll
