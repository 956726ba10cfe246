#include <sched.h>
#include <signal.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "base/cpu.hpp"
#include "base/cross_memory.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {

namespace {

std::uint64_t total_bytes(std::span<const Segment> segments) {
    std::uint64_t bytes = 0;
    for (const Segment& s : segments) bytes += s.bytes;
    return bytes;
}

}  // namespace

namespace {

// The key of a staged registration: where its owner maps the segment (a
// user-space address, below 2^47) with the top bit set, which no other
// registration's key has (0 here; a verbs rkey has 32 bits), so that a key
// another transport made, handed to this one (a rank's own window over
// verbs, read locally), is never taken for one.
constexpr std::uint64_t kStagedKey = std::uint64_t{1} << 63;

bool is_staged(RemoteKey remote) { return (remote.key & kStagedKey) != 0; }

}  // namespace

Registration ShmTransport::register_memory(const void* address, std::size_t bytes) {
    // Cross-memory attach needs no pinning; the peer reads by pid and address.
    // A range of the staging area is read as memory instead: its key says
    // where this process maps the segment, from which the peer finds the
    // offset.
    const std::uint64_t key = staging_.contains(address, bytes)
                                  ? kStagedKey | reinterpret_cast<std::uint64_t>(base_)
                                  : 0;
    return Registration{const_cast<void*>(address), bytes, key, nullptr};
}

const std::byte* ShmTransport::staged(int owner, RemoteKey remote, std::size_t bytes) const {
    const std::uint64_t begin = layout_.staging_offset() +
                                layout_.staging_area_bytes() * static_cast<std::size_t>(owner);
    const std::uint64_t owner_base = remote.key & ~kStagedKey;
    const std::uint64_t offset = remote.address - owner_base;
    if (remote.address < owner_base || offset < begin ||
        offset + bytes > begin + layout_.staging_area_bytes())
        return nullptr;
    return base_ + offset;
}

void ShmTransport::deregister_memory(Registration& registration) { registration = {}; }

const std::byte* ShmTransport::view(int peer, RemoteKey remote, std::size_t bytes) {
    if (!is_staged(remote)) return nullptr;
    const std::byte* data = staged(locality_.local_index_of[peer], remote, bytes);
    if (data != nullptr) {
        ++staged_reads_;
        staged_bytes_ += bytes;
    }
    return data;
}

Result ShmTransport::rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                               std::uint64_t) {
    const int owner = locality_.local_index_of[peer];
    if (is_staged(remote)) {
        const std::byte* from = staged(owner, remote, bytes);
        if (from == nullptr) return staging_refused(peer, remote, bytes);
        // A count the owner publishes (a streamed send's bytes packed) is
        // read with acquire order, which orders the data read after it.
        if (bytes == sizeof(std::uint64_t) &&
            reinterpret_cast<std::uintptr_t>(from) % alignof(std::uint64_t) == 0) {
            const std::uint64_t value =
                std::atomic_ref(*reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(from)))
                    .load(std::memory_order_acquire);
            std::memcpy(local, &value, sizeof value);
        } else {
            std::memcpy(local, from, bytes);
        }
        return Result::done;
    }
    const pid_t pid = pid_of_[owner];
    const bool large = split_reads_from_ != 0 && bytes >= split_reads_from_ && owner != me_;
    std::atomic<std::uint32_t>& reading = owners_[static_cast<std::size_t>(me_)].reading;
    if (large) reading.store(1, std::memory_order_relaxed);
    const int err =
        large && owners_[static_cast<std::size_t>(owner)].reading.load(std::memory_order_relaxed) ==
                     0
            ? split_read(owner, static_cast<std::byte*>(local), bytes, remote.address)
            : cross_memory::read(pid, static_cast<std::byte*>(local), bytes, remote.address);
    if (large) reading.store(0, std::memory_order_relaxed);
    if (err == 0) return Result::done;
    log::error("RDMA Read of {} bytes from rank {} (pid {}) failed: {}.{}", bytes, peer, pid,
               std::strerror(err), cross_memory::refused_hint(err));
    return Result::failed;
}

Result ShmTransport::rdma_write(int peer, const void* local, std::size_t bytes, RemoteKey remote,
                                std::uint64_t) {
    const pid_t pid = pid_of_[locality_.local_index_of[peer]];
    const int err = cross_memory::write(pid, static_cast<const std::byte*>(local), bytes, remote.address);
    if (err == 0) return Result::done;
    log::error("RDMA Write of {} bytes to rank {} (pid {}) failed: {}.{}", bytes, peer, pid,
               std::strerror(err), cross_memory::refused_hint(err));
    return Result::failed;
}

Result ShmTransport::rdma_readv(int peer, std::span<const Segment> local, RemoteKey remote) {
    const std::uint64_t bytes = total_bytes(local);
    if (is_staged(remote)) {
        const std::byte* from = view(peer, remote, static_cast<std::size_t>(bytes));
        if (from == nullptr) return staging_refused(peer, remote, static_cast<std::size_t>(bytes));
        for (const Segment& piece : local) {
            std::memcpy(reinterpret_cast<void*>(piece.address), from, piece.bytes);
            from += piece.bytes;
        }
        return Result::done;
    }
    const pid_t pid = pid_of_[locality_.local_index_of[peer]];
    std::array<iovec, kMaxSegmentsPerCall> local_iov;
    if (local.size() > local_iov.size()) return Result::failed;
    std::ranges::transform(local, local_iov.begin(), [](const Segment& s) {
        return iovec{reinterpret_cast<void*>(s.address), static_cast<std::size_t>(s.bytes)};
    });
    iovec remote_iov{reinterpret_cast<void*>(remote.address), static_cast<std::size_t>(bytes)};
    const int err = cross_memory::read(pid, std::span(local_iov.data(), local.size()),
                                         std::span(&remote_iov, 1));
    if (err == 0) return Result::done;
    log::error("RDMA Read of {} bytes into {} pieces from rank {} (pid {}) failed: {}.{}", bytes,
               local.size(), peer, pid, std::strerror(err), cross_memory::refused_hint(err));
    return Result::failed;
}

int ShmTransport::split_read(int owner, std::byte* local, std::size_t bytes, std::uint64_t remote) {
    ReadOffer& offer = offers_[static_cast<std::size_t>(me_)];
    publish_offer(offer, ++read_generation_, reinterpret_cast<std::uint64_t>(local), remote, bytes,
                  owner);
    // Counted, then rung: an owner about to sleep sees the count or wakes
    // (wake/wake_word.hpp).
    OwnerLine& line = owners_[static_cast<std::size_t>(owner)];
    line.pending.fetch_add(1);
    wake::wake_if_sleeping(*doorbell_backend_,
                           *outbound_[static_cast<std::size_t>(owner)].doorbell);
    ++split_reads_;

    const pid_t pid = pid_of_[static_cast<std::size_t>(owner)];
    const ReaderShare mine = take_chunks(offer, [&](std::uint64_t at, std::uint64_t n) {
        return cross_memory::read(pid, local + at, n, remote + at);
    });
    // The owner copies its chunks inside MPI; it may have lost its core to
    // an oversubscribed host (so yield now and then), or died (which the
    // job's end follows).
    for (std::uint64_t spins = 1; !owner_finished(offer, mine); ++spins) {
        cpu_relax();
        if (spins % 4096 == 0) ::sched_yield();
        if (spins % (1u << 22) == 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
            line.pending.fetch_sub(1);
            return ESRCH;
        }
    }
    line.pending.fetch_sub(1);
    if (mine.bytes != bytes) {
        ++split_reads_helped_;
        split_bytes_by_owner_ += bytes - mine.bytes;
    }
    // A chunk the owner could not write is read again, with the rest.
    if (mine.error == 0 && offer.failed.load(std::memory_order_relaxed) != 0)
        return cross_memory::read(pid, local, bytes, remote);
    return mine.error;
}

void ShmTransport::help_split_reads() {
    for (int reader = 0; reader < layout_.local_size; ++reader) {
        if (reader == me_) continue;
        const pid_t pid = pid_of_[static_cast<std::size_t>(reader)];
        split_bytes_for_peers_ += help_offer(
            offers_[static_cast<std::size_t>(reader)], me_,
            [pid](std::uint64_t to, std::uint64_t from, std::uint64_t n) {
                return cross_memory::write(pid, reinterpret_cast<const std::byte*>(from), n, to);
            });
    }
}

Result ShmTransport::staging_refused(int peer, RemoteKey remote, std::size_t bytes) const {
    log::error("internal: rank {} named {} bytes at {:#x} of its staging area (key {:#x}), which "
               "are not inside it",
               peer, bytes, remote.address, remote.key);
    return Result::failed;
}

std::vector<Counter> ShmTransport::counters() const {
    return {{"shm_split_reads", split_reads_},
            {"shm_split_reads_helped", split_reads_helped_},
            {"shm_split_bytes_by_owner", split_bytes_by_owner_},
            {"shm_split_bytes_for_peers", split_bytes_for_peers_},
            {"shm_staged_reads", staged_reads_},
            {"shm_staged_bytes", staged_bytes_}};
}

void ShmTransport::check_cross_memory_attach() const {
    if (layout_.local_size < 2) return;
    const int peer = (me_ + 1) % layout_.local_size;
    const node::RankBlock& block = region_.rank_block(peer);
    std::uint64_t seen = 0;
    const int err = cross_memory::read(block.pid, reinterpret_cast<std::byte*>(&seen), sizeof seen,
                                         block.probe_word);
    const std::uint64_t expected = probe_value(block.pid);
    // The peer is gone: it left MPI_Init already (this check follows the last
    // fence) and died, which its launcher reports; it says nothing about
    // whether this process may attach.
    if (err == ESRCH) return;
    if (err != 0)
        fail("cross-memory attach to local rank {} (pid {}) failed: {}.{} The shared-memory "
             "transport needs it for messages above SI_EAGER_LIMIT.",
             locality_.host_ranks[peer], block.pid, std::strerror(err), cross_memory::refused_hint(err));
    if (seen != expected)
        fail("cross-memory attach to local rank {} (pid {}) read {:#x} instead of {:#x}: the "
             "ranks do not see each other's process ids (different PID namespaces?)",
             locality_.host_ranks[peer], block.pid, seen, expected);
}

}  // namespace si::transport::shm
