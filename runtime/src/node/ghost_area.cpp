#include "node/ghost_area.hpp"

#include "base/error.hpp"

namespace si::node {

struct GhostArea::Header {
    std::uint64_t magic;
    std::uint32_t version;
    std::int32_t local_size;
    std::int32_t ghosts;
    std::uint32_t cells_per_rank;
    std::uint32_t payloads_per_rank;
    std::uint64_t inline_bytes;
    config::GhostMatching matching;
};

namespace {

constexpr std::uint64_t kMagic = 0x5349'4748'4f53'5453ULL;  // "SIGHOSTS"
constexpr std::uint32_t kVersion = 5;
constexpr std::size_t kHeaderBytes = 64;

constexpr std::size_t round_up(std::size_t bytes) {
    return (bytes + 63) / 64 * 64;
}

std::size_t ghosts_offset() {
    return kHeaderBytes;
}

}  // namespace

std::size_t GhostArea::queue_bytes() const {
    return sizeof(PostQueue) + round_up(sizeof(std::uint32_t) * header().cells_per_rank);
}

std::size_t GhostArea::payload_stride() const {
    return round_up(header().inline_bytes);
}

GhostArea GhostArea::create(const std::string& job_id, Shape shape) {
    const std::size_t queue =
        sizeof(PostQueue) + round_up(sizeof(std::uint32_t) * shape.cells_per_rank);
    const auto ranks = static_cast<std::size_t>(shape.local_size);
    const std::size_t bytes =
        kHeaderBytes + sizeof(GhostBlock) * static_cast<std::size_t>(shape.ghosts) +
        queue * ranks * static_cast<std::size_t>(shape.ghosts) +
        sizeof(PostCell) * ranks * shape.cells_per_rank +
        round_up(shape.inline_bytes) * ranks * shape.payloads_per_rank +
        sizeof(SharedBlock) * kSharedBlocks * ranks +
        sizeof(CompletionRing) * static_cast<std::size_t>(shape.ghosts) * ranks;
    GhostArea area;
    area.segment_ = SharedSegment::create(SharedSegment::name_for(job_id, "ghosts"), bytes);
    // Zero-filled: every cell free, every queue empty, every wake word running.
    Header& h = area.header();
    h.magic = kMagic;
    h.version = kVersion;
    h.local_size = shape.local_size;
    h.ghosts = shape.ghosts;
    h.cells_per_rank = shape.cells_per_rank;
    h.payloads_per_rank = shape.payloads_per_rank;
    h.inline_bytes = shape.inline_bytes;
    h.matching = shape.matching;
    return area;
}

GhostArea GhostArea::open(const std::string& job_id) {
    GhostArea area;
    area.segment_ = SharedSegment::open(SharedSegment::name_for(job_id, "ghosts"));
    const Header& h = area.header();
    if (area.segment_.size() < kHeaderBytes || h.magic != kMagic || h.version != kVersion)
        fail("shared segment {} has an unknown layout (a different runtime version?)",
             area.segment_.name());
    return area;
}

GhostArea::Header& GhostArea::header() const {
    static_assert(sizeof(Header) <= kHeaderBytes);
    return *static_cast<Header*>(segment_.data());
}

GhostArea::Shape GhostArea::shape() const {
    const Header& h = header();
    return {h.local_size,        h.ghosts,       h.cells_per_rank,
            h.payloads_per_rank, h.inline_bytes, h.matching};
}

GhostBlock& GhostArea::ghost(int index) const {
    auto* base = static_cast<std::byte*>(segment_.data()) + ghosts_offset();
    return reinterpret_cast<GhostBlock*>(base)[index];
}

PostQueue& GhostArea::queue(int local_index, int ghost) const {
    const Header& h = header();
    auto* base = static_cast<std::byte*>(segment_.data()) + ghosts_offset() +
                 sizeof(GhostBlock) * static_cast<std::size_t>(h.ghosts);
    const auto index = static_cast<std::size_t>(local_index) * static_cast<std::size_t>(h.ghosts) +
                       static_cast<std::size_t>(ghost);
    return *reinterpret_cast<PostQueue*>(base + index * queue_bytes());
}

std::uint32_t* GhostArea::queue_slots(int local_index, int ghost) const {
    return reinterpret_cast<std::uint32_t*>(&queue(local_index, ghost) + 1);
}

PostCell& GhostArea::cell(int local_index, std::uint32_t index) const {
    const Header& h = header();
    auto* base = reinterpret_cast<PostCell*>(&queue(h.local_size - 1, h.ghosts - 1)) +
                 queue_bytes() / sizeof(PostCell);
    return base[static_cast<std::size_t>(local_index) * h.cells_per_rank + index];
}

std::byte* GhostArea::payload(int local_index, std::int32_t slot) const {
    const Header& h = header();
    auto* base = reinterpret_cast<std::byte*>(&cell(h.local_size - 1, h.cells_per_rank - 1) + 1);
    const std::size_t at = static_cast<std::size_t>(local_index) * h.payloads_per_rank +
                           static_cast<std::size_t>(slot);
    return base + at * payload_stride();
}

SharedBlock* GhostArea::shared_blocks(int local_index) const {
    const Header& h = header();
    auto* base = reinterpret_cast<SharedBlock*>(
        payload(h.local_size - 1, static_cast<std::int32_t>(h.payloads_per_rank)));
    return base + static_cast<std::size_t>(local_index) * kSharedBlocks;
}

CompletionRing& GhostArea::completions(int ghost, int local_index) const {
    const Header& h = header();
    auto* base = reinterpret_cast<CompletionRing*>(shared_blocks(h.local_size));
    return base[static_cast<std::size_t>(ghost) * static_cast<std::size_t>(h.local_size) +
                static_cast<std::size_t>(local_index)];
}

}  // namespace si::node
