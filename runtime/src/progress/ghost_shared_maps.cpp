#include "progress/ghost_shared_maps.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include <fmt/format.h>

namespace si::progress {

SharedMaps::SharedMaps(const node::GhostArea& area, const node::Region& region)
    : area_(area),
      region_(region),
      maps_(static_cast<std::size_t>(area.shape().local_size) * node::kSharedBlocks) {}

SharedMaps::~SharedMaps() {
    for (const Map& map : maps_)
        if (map.base != nullptr) ::munmap(map.base, map.bytes);
}

std::byte* SharedMaps::find(int rank, std::uint64_t address, std::size_t bytes) {
    node::SharedBlock* blocks = area_.shared_blocks(rank);
    for (std::size_t i = 0; i < node::kSharedBlocks; ++i) {
        const std::uint64_t generation = blocks[i].generation.load(std::memory_order_acquire);
        if (generation == 0 || address < blocks[i].address ||
            address + bytes > blocks[i].address + blocks[i].bytes)
            continue;
        Map& map = maps_[static_cast<std::size_t>(rank) * node::kSharedBlocks + i];
        if (map.generation != generation && !remap(map, rank, blocks[i], generation))
            return nullptr;
        return map.base + (address - blocks[i].address);
    }
    return nullptr;
}

bool SharedMaps::remap(Map& map, int rank, const node::SharedBlock& block,
                       std::uint64_t generation) {
    if (map.base != nullptr) ::munmap(map.base, map.bytes);
    map = Map{};
    // The rank's memory file, opened through its descriptor table.
    const std::string path = fmt::format("/proc/{}/fd/{}", region_.rank_block(rank).pid, block.fd);
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    void* memory = ::mmap(nullptr, block.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (memory == MAP_FAILED) return false;
    map = Map{generation, static_cast<std::byte*>(memory), block.bytes};
    return true;
}

}  // namespace si::progress
