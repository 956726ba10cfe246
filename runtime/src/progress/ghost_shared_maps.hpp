// A ghost's mappings of the ranks' shared blocks (the MPI_Alloc_mem memory
// of SI_PROGRESS=ghost, node/ghost_area.hpp), through which it copies a
// message in one memcpy or one cross-memory copy instead of two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "node/ghost_area.hpp"
#include "node/region.hpp"

namespace si::progress {

// Made when a message first touches a block, remade when its entry's
// generation changed (the rank freed it and put another there).
class SharedMaps {
  public:
    SharedMaps(const node::GhostArea& area, const node::Region& region);
    ~SharedMaps();
    SharedMaps(const SharedMaps&) = delete;
    SharedMaps& operator=(const SharedMaps&) = delete;

    // Where [address, address + bytes) of local rank `rank` is mapped here,
    // or null if it is not in one of its shared blocks.
    std::byte* find(int rank, std::uint64_t address, std::size_t bytes);

  private:
    struct Map {
        std::uint64_t generation = 0;
        std::byte* base = nullptr;
        std::size_t bytes = 0;
    };

    bool remap(Map& map, int rank, const node::SharedBlock& block, std::uint64_t generation);

    const node::GhostArea& area_;
    const node::Region& region_;
    std::vector<Map> maps_;  // per rank, per entry
};

}  // namespace si::progress
