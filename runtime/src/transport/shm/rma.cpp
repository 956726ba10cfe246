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

Registration ShmTransport::register_memory(const void* address, std::size_t bytes) {
    // Cross-memory attach needs no pinning; the peer reads by pid and address.
    return Registration{const_cast<void*>(address), bytes, 0, nullptr};
}

void ShmTransport::deregister_memory(Registration& registration) { registration = {}; }

Result ShmTransport::rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                               std::uint64_t) {
    const int owner = locality_.local_index_of[peer];
    const pid_t pid = pid_of_[owner];
    const int err =
        bytes >= kSplitReadFrom && owner != me_
            ? split_read(owner, static_cast<std::byte*>(local), bytes, remote.address)
            : cross_memory::read(pid, static_cast<std::byte*>(local), bytes, remote.address);
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

Result ShmTransport::rdma_readv(int peer, std::span<const Segment> local, std::uint64_t remote) {
    const pid_t pid = pid_of_[locality_.local_index_of[peer]];
    std::array<iovec, kMaxSegmentsPerCall> local_iov;
    if (local.size() > local_iov.size()) return Result::failed;
    std::ranges::transform(local, local_iov.begin(), [](const Segment& s) {
        return iovec{reinterpret_cast<void*>(s.address), static_cast<std::size_t>(s.bytes)};
    });
    const std::uint64_t bytes = total_bytes(local);
    iovec remote_iov{reinterpret_cast<void*>(remote), static_cast<std::size_t>(bytes)};
    const int err = cross_memory::read(pid, std::span(local_iov.data(), local.size()),
                                         std::span(&remote_iov, 1));
    if (err == 0) return Result::done;
    log::error("RDMA Read of {} bytes into {} pieces from rank {} (pid {}) failed: {}.{}", bytes,
               local.size(), peer, pid, std::strerror(err), cross_memory::refused_hint(err));
    return Result::failed;
}

int ShmTransport::split_read(int owner, std::byte* local, std::size_t bytes, std::uint64_t remote) {
    ReadOffer& offer = offers_[static_cast<std::size_t>(me_)];
    const std::uint64_t chunk = chunk_bytes_for(bytes);
    const std::uint64_t chunks = (bytes + chunk - 1) / chunk;
    offer.reader_address.store(reinterpret_cast<std::uint64_t>(local), std::memory_order_relaxed);
    offer.owner_address.store(remote, std::memory_order_relaxed);
    offer.bytes.store(bytes, std::memory_order_relaxed);
    offer.chunk_bytes.store(chunk, std::memory_order_relaxed);
    offer.owner.store(owner, std::memory_order_relaxed);
    offer.done.store(0, std::memory_order_relaxed);
    offer.failed.store(0, std::memory_order_relaxed);
    offer.claim.store(++read_generation_ << 32, std::memory_order_release);
    // Counted, then rung: an owner about to sleep sees the count or wakes
    // (wake/wake_word.hpp).
    OwnerLine& line = owners_[static_cast<std::size_t>(owner)];
    line.pending.fetch_add(1);
    wake::wake_if_sleeping(*doorbell_backend_, *outbound_[static_cast<std::size_t>(owner)].doorbell);
    ++split_reads_;

    const pid_t pid = pid_of_[static_cast<std::size_t>(owner)];
    std::uint64_t mine = 0;
    std::uint64_t my_bytes = 0;
    int err = 0;
    for (;;) {
        const std::uint64_t k = chunk_of(offer.claim.fetch_add(1, std::memory_order_acq_rel));
        if (k >= chunks) break;
        const std::uint64_t at = k * chunk;
        const std::uint64_t n = std::min<std::uint64_t>(chunk, bytes - at);
        ++mine;
        my_bytes += n;
        if (err == 0) err = cross_memory::read(pid, local + at, n, remote + at);
    }
    // Every chunk is claimed now: wait for the owner's, which it copies
    // inside MPI (it may have lost its core to an oversubscribed host, so
    // yield now and then; and it may have died, which the job's end follows).
    const std::uint64_t theirs = chunks - mine;
    for (std::uint64_t spins = 1; offer.done.load(std::memory_order_acquire) != theirs; ++spins) {
        cpu_relax();
        if (spins % 4096 == 0) ::sched_yield();
        if (spins % (1u << 22) == 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
            line.pending.fetch_sub(1);
            return ESRCH;
        }
    }
    line.pending.fetch_sub(1);
    if (theirs != 0) {
        ++split_reads_helped_;
        split_bytes_by_owner_ += bytes - my_bytes;
    }
    // A chunk the owner could not write is read again, with the rest.
    if (err == 0 && offer.failed.load(std::memory_order_relaxed) != 0)
        err = cross_memory::read(pid, local, bytes, remote);
    return err;
}

void ShmTransport::help_split_reads() {
    for (int reader = 0; reader < layout_.local_size; ++reader) {
        if (reader == me_) continue;
        ReadOffer& offer = offers_[static_cast<std::size_t>(reader)];
        std::uint64_t claim = offer.claim.load(std::memory_order_acquire);
        for (;;) {
            // Read before the claim: a successful compare-and-swap from
            // `claim` proves they belong to the offer it claims on.
            const int owner = offer.owner.load(std::memory_order_relaxed);
            const std::uint64_t bytes = offer.bytes.load(std::memory_order_relaxed);
            const std::uint64_t chunk = offer.chunk_bytes.load(std::memory_order_relaxed);
            const std::uint64_t to = offer.reader_address.load(std::memory_order_relaxed);
            const std::uint64_t from = offer.owner_address.load(std::memory_order_relaxed);
            if (owner != me_ || chunk == 0 || chunk_of(claim) * chunk >= bytes) break;
            if (!offer.claim.compare_exchange_weak(claim, claim + 1, std::memory_order_acq_rel,
                                                   std::memory_order_acquire))
                continue;
            const std::uint64_t at = chunk_of(claim) * chunk;
            const std::uint64_t n = std::min<std::uint64_t>(chunk, bytes - at);
            const int err = cross_memory::write(pid_of_[static_cast<std::size_t>(reader)],
                                                reinterpret_cast<const std::byte*>(from + at), n,
                                                to + at);
            if (err != 0) offer.failed.store(1, std::memory_order_relaxed);
            split_bytes_for_peers_ += n;
            offer.done.fetch_add(1, std::memory_order_release);
            claim = offer.claim.load(std::memory_order_acquire);
        }
    }
}

std::vector<Counter> ShmTransport::counters() const {
    return {{"shm_split_reads", split_reads_},
            {"shm_split_reads_helped", split_reads_helped_},
            {"shm_split_bytes_by_owner", split_bytes_by_owner_},
            {"shm_split_bytes_for_peers", split_bytes_for_peers_}};
}

void ShmTransport::check_cross_memory_attach() const {
    if (layout_.local_size < 2) return;
    const int peer = (me_ + 1) % layout_.local_size;
    const node::RankBlock& block = region_.rank_block(peer);
    std::uint64_t seen = 0;
    const int err = cross_memory::read(block.pid, reinterpret_cast<std::byte*>(&seen), sizeof seen,
                                         block.probe_word);
    const std::uint64_t expected = probe_value(block.pid);
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
