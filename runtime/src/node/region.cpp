#include "node/region.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "base/error.hpp"

namespace si::node {

struct Region::Header {
    std::uint64_t magic;
    std::uint32_t version;
    std::int32_t local_size;
    std::uint64_t icb_slots_per_rank;
    std::uint64_t irb_entries;
    std::uint64_t wake_token;
    // Written only when a rank's threads contend, away from what never changes.
    alignas(64) std::atomic<std::int32_t> lock_waiters;
};

namespace {

constexpr std::uint64_t kMagic = 0x5349'5245'4749'4f4eULL;  // "SIREGION"
constexpr std::uint32_t kVersion = 6;
constexpr std::size_t kHeaderBytes = 128;

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "ICB slots are shared between processes and must be lock-free");

std::size_t blocks_offset() { return kHeaderBytes; }
std::size_t helpers_offset(int local_size) {
    return blocks_offset() + sizeof(RankBlock) * static_cast<std::size_t>(local_size);
}
std::size_t icb_offset(int local_size) {
    return helpers_offset(local_size) + sizeof(HelperBlock) * static_cast<std::size_t>(local_size);
}
std::size_t irb_offset(int local_size, std::size_t icb_slots_per_rank) {
    return icb_offset(local_size) +
           sizeof(std::uint64_t) * icb_slots_per_rank * static_cast<std::size_t>(local_size);
}

}  // namespace

Region Region::create(const std::string& job_id, int local_size, std::size_t icb_slots_per_rank,
                      std::size_t irb_entries) {
    const std::size_t bytes = irb_offset(local_size, icb_slots_per_rank) +
                              sizeof(InterruptRequest) * irb_entries * local_size;
    Region region;
    region.segment_ = SharedSegment::create(SharedSegment::name_for(job_id, "region"), bytes);
    // The segment is zero-filled: every lock is free, every ICB slot and IRB
    // entry empty, every wake word `running`.
    Header& h = region.header();
    h.magic = kMagic;
    h.version = kVersion;
    h.local_size = local_size;
    h.icb_slots_per_rank = icb_slots_per_rank;
    h.irb_entries = irb_entries;
    // Random, never 0 (the token of files that join no job).
    while (h.wake_token == 0)
        if (::getrandom(&h.wake_token, sizeof h.wake_token, 0) != sizeof h.wake_token)
            fail("cannot draw the job's wake token (getrandom: {})", std::strerror(errno));
    for (int rank = 0; rank < local_size; ++rank) region.rank_block(rank).helper_block.store(-1);
    return region;
}

Region Region::open(const std::string& job_id) {
    Region region;
    region.segment_ = SharedSegment::open(SharedSegment::name_for(job_id, "region"));
    const Header& h = region.header();
    if (region.segment_.size() < kHeaderBytes || h.magic != kMagic || h.version != kVersion)
        fail("shared region {} has an unknown layout (a different runtime version?)",
             region.segment_.name());
    return region;
}

Region::Header& Region::header() const {
    static_assert(sizeof(Header) <= kHeaderBytes);
    return *static_cast<Header*>(segment_.data());
}

std::atomic<std::int32_t>& Region::lock_waiters() const { return header().lock_waiters; }

int Region::local_size() const { return header().local_size; }

std::size_t Region::icb_slots_per_rank() const { return header().icb_slots_per_rank; }

std::size_t Region::irb_entries() const { return header().irb_entries; }
std::uint64_t Region::wake_token() const { return header().wake_token; }

RankBlock& Region::rank_block(int local_index) const {
    auto* base = static_cast<std::byte*>(segment_.data()) + blocks_offset();
    return reinterpret_cast<RankBlock*>(base)[local_index];
}

HelperBlock& Region::helper_block(int index) const {
    auto* base = static_cast<std::byte*>(segment_.data()) + helpers_offset(local_size());
    return reinterpret_cast<HelperBlock*>(base)[index];
}

InterruptRequest* Region::irb(int local_index) const {
    auto* base = static_cast<std::byte*>(segment_.data()) +
                 irb_offset(local_size(), icb_slots_per_rank());
    return reinterpret_cast<InterruptRequest*>(base) + irb_entries() * static_cast<std::size_t>(local_index);
}

std::atomic<std::uint64_t>* Region::icb(int local_index) const {
    auto* base = static_cast<std::byte*>(segment_.data()) + icb_offset(local_size());
    return reinterpret_cast<std::atomic<std::uint64_t>*>(base) +
           icb_slots_per_rank() * static_cast<std::size_t>(local_index);
}

}  // namespace si::node
