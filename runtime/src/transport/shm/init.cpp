#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>

#include "base/error.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {

namespace {

constexpr std::size_t kAlign = 64;
constexpr std::size_t round_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

struct SegmentHeader {
    std::uint64_t magic;
    std::int32_t local_size;
    std::int32_t cells;
    std::uint64_t max_body;
    std::uint64_t ring_capacity;
    std::uint64_t staging_bytes;
};
constexpr std::uint64_t kMagic = 0x5349'5348'4d52'4934ULL;  // "SISHMRI4"
constexpr std::size_t kSegmentHeaderBytes = round_up(sizeof(SegmentHeader));

// A rank maps its rings (to and from every local rank) at start-up while
// they take at most this much: up to 15 local ranks with the default rings,
// 29 MiB of shared memory for the node. Beyond, committing n^2 rings up
// front would cost more than the faults it saves, and rings fault in on use.
constexpr std::size_t kPrefaultBytes = std::size_t{4} << 20;

// Staging areas start on a page of their own and are whole pages.
constexpr std::size_t kPageBytes = 4096;

}  // namespace

std::size_t Layout::ring_capacity() const {
    return std::bit_ceil(std::max(ring_bytes, min_ring_bytes(max_body)));
}

std::size_t Layout::ring_stride() const {
    return sizeof(RingControl) + ring_capacity();
}

std::size_t Layout::rings_bytes() const {
    return ring_stride() * static_cast<std::size_t>(local_size) * local_size;
}

std::size_t Layout::staging_offset() const {
    const std::size_t end = kSegmentHeaderBytes + rings_bytes() +
                            (sizeof(ReadOffer) + sizeof(OwnerLine)) * static_cast<std::size_t>(local_size);
    return (end + kPageBytes - 1) / kPageBytes * kPageBytes;
}

// A page more than asked for: a sender puts a line of its own before the data
// (api/packing.cpp), and a message of the full size still fits.
std::size_t Layout::staging_area_bytes() const {
    return staging_bytes < kPageBytes ? 0 : staging_bytes / kPageBytes * kPageBytes + kPageBytes;
}

std::size_t Layout::segment_bytes() const {
    return staging_offset() + staging_area_bytes() * static_cast<std::size_t>(local_size);
}

SharedSegment ShmTransport::create_segment(const std::string& job_id, const Layout& layout) {
    SharedSegment segment;
    try {
        segment = SharedSegment::create(SharedSegment::name_for(job_id, "shm"), layout.segment_bytes());
    } catch (const Error& e) {
        fail("{}; of them {} for the rings between {} local ranks (SI_SHM_RING_BYTES) and {} for "
             "their staging areas (SI_SHM_STAGING_BYTES)",
             e.what(), layout.rings_bytes(), layout.local_size,
             layout.staging_area_bytes() * static_cast<std::size_t>(layout.local_size));
    }
    auto* header = static_cast<SegmentHeader*>(segment.data());
    *header = SegmentHeader{kMagic,           layout.local_size,      layout.cells,
                            layout.max_body,  layout.ring_capacity(), layout.staging_area_bytes()};
    return segment;
}

SharedSegment ShmTransport::open_segment(const std::string& job_id) {
    return SharedSegment::open(SharedSegment::name_for(job_id, "shm"));
}

void ShmTransport::publish_probe(node::RankBlock& block) {
    // Yama's ptrace_scope=1 allows cross-memory attach only from ancestors
    // unless the target names a tracer; let any process of ours read us.
    ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    static std::uint64_t probe = 0;
    probe = probe_value(::getpid());
    block.probe_word = reinterpret_cast<std::uint64_t>(&probe);
}

ShmTransport::ShmTransport(SharedSegment segment, const node::Region& region,
                           const node::Locality& locality, const Layout& layout)
    : layout_(layout), segment_(std::move(segment)),
      base_(static_cast<std::byte*>(segment_.data())), region_(region),
      locality_(locality), me_(locality.local_index()),
      staging_(base_ + layout.staging_offset() +
                   layout.staging_area_bytes() * static_cast<std::size_t>(me_),
               layout.staging_area_bytes()),
      // Doorbells are futex words of the region whatever SI_WAKE says: ranks
      // wake each other, which needs no kernel module.
      doorbell_backend_(wake::make_backend(config::WakeBackend::futex)) {
    const auto* header = static_cast<const SegmentHeader*>(segment_.data());
    if (header->magic != kMagic || header->local_size != layout.local_size ||
        header->cells != layout.cells || header->max_body != layout.max_body ||
        header->ring_capacity != layout.ring_capacity() ||
        header->staging_bytes != layout.staging_area_bytes())
        fail(
            "shared-memory segment {} was made with other settings: every rank of a job "
            "must see the same SI_EAGER_LIMIT, SI_SHM_CELLS, SI_SHM_RING_BYTES and "
            "SI_SHM_STAGING_BYTES",
            segment_.name());
    capabilities_ = Capabilities{.name = "shm",
                                 .max_body_bytes = layout.max_body,
                                 .rdma_read = true,
                                 .rdma_write = true,
                                 .shared_clock = true,
                                 .direct_write = true,
                                 .signal_safe = true,
                                 .vectored = true,
                                 .copies_on_caller = true};
    auto* offers = reinterpret_cast<ReadOffer*>(base_ + kSegmentHeaderBytes + layout.rings_bytes());
    offers_ = std::span(offers, static_cast<std::size_t>(layout.local_size));
    owners_ = std::span(reinterpret_cast<OwnerLine*>(offers + layout.local_size),
                        static_cast<std::size_t>(layout.local_size));
    const bool prefaulting =
        2 * layout.ring_stride() * static_cast<std::size_t>(layout.local_size) <= kPrefaultBytes;
    for (int peer = 0; peer < layout.local_size; ++peer) {
        if (prefaulting) {
            prefault(ring(peer, me_));
            prefault(ring(me_, peer));
        }
        node::RankBlock& block = region.rank_block(peer);
        outbound_.push_back(Receiver{RingProducer(ring(peer, me_)), region.icb(peer),
                                     &block.doorbell, &block.interrupt_word});
        inbound_.emplace_back(ring(me_, peer));
        pid_of_.push_back(block.pid);
    }
    my_icb_ = region.icb(me_);
    check_cross_memory_attach();
}

// Maps a ring's pages in this process now. Otherwise the first pass of the
// ring's records faults on every page it reaches, in the sender and in the
// receiver: a short benchmark run or a program's first thousand messages
// pay a fault per 4 KiB (128 8-byte messages). The first rank to map a page
// also allocates it in the segment, which the ring would do on its first
// pass anyway. Kernels before 5.14 do not know MADV_POPULATE_WRITE: then
// the faults come as before.
void ShmTransport::prefault(const RingView& ring) {
#ifdef MADV_POPULATE_WRITE
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(ring.control) & ~(page - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(ring.records) + ring.capacity;
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
    (void)ring;
#endif
}

RingView ShmTransport::ring(int receiver, int sender) const {
    std::byte* at =
        base_ + kSegmentHeaderBytes +
        layout_.ring_stride() * (static_cast<std::size_t>(receiver) * layout_.local_size + sender);
    return RingView{reinterpret_cast<RingControl*>(at), at + sizeof(RingControl),
                    layout_.ring_capacity()};
}

}  // namespace si::transport::shm
