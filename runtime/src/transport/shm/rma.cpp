#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "base/error.hpp"
#include "base/log.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::transport::shm {

namespace {

std::string cma_refused_hint(int err) {
    if (err != EPERM) return {};
    return " The kernel forbids cross-memory attach between the ranks (Yama ptrace "
           "protection). Allow it with `sysctl kernel.yama.ptrace_scope=0` (or 1), or run the "
           "ranks inside one container/user namespace where ptrace is permitted.";
}

// Drops `bytes` moved from the front of an iovec list, and the empty
// entries that follow.
void drop_moved(std::span<iovec>& list, std::size_t bytes) {
    while (!list.empty() && (bytes > 0 || list.front().iov_len == 0)) {
        const std::size_t n = std::min(bytes, list.front().iov_len);
        list.front().iov_base = static_cast<std::byte*>(list.front().iov_base) + n;
        list.front().iov_len -= n;
        bytes -= n;
        if (list.front().iov_len == 0) list = list.subspan(1);
    }
}

// Moves bytes between this process and a peer with process_vm_readv/writev,
// which may move less than asked (it stops at the first piece it cannot
// reach): the rest is asked again. Returns 0 or an errno value.
template <typename Call>
int transfer(Call call, pid_t pid, std::span<iovec> local, std::span<iovec> remote) {
    drop_moved(local, 0);
    drop_moved(remote, 0);
    while (!local.empty() && !remote.empty()) {
        const ssize_t moved = call(pid, local.data(), local.size(), remote.data(), remote.size(), 0);
        if (moved < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (moved == 0) return EFAULT;
        drop_moved(local, static_cast<std::size_t>(moved));
        drop_moved(remote, static_cast<std::size_t>(moved));
    }
    return 0;
}

template <typename Call>
int transfer(Call call, pid_t pid, std::byte* local, std::size_t bytes, std::uint64_t remote) {
    iovec local_iov{local, bytes};
    iovec remote_iov{reinterpret_cast<void*>(remote), bytes};
    return transfer(call, pid, std::span(&local_iov, 1), std::span(&remote_iov, 1));
}

std::uint64_t total_bytes(std::span<const Segment> segments) {
    std::uint64_t bytes = 0;
    for (const Segment& s : segments) bytes += s.bytes;
    return bytes;
}

ssize_t write_call(pid_t pid, const iovec* local, unsigned long local_count, const iovec* remote,
                   unsigned long remote_count, unsigned long flags) {
    return ::process_vm_writev(pid, local, local_count, remote, remote_count, flags);
}

}  // namespace

Registration ShmTransport::register_memory(const void* address, std::size_t bytes) {
    // Cross-memory attach needs no pinning; the peer reads by pid and address.
    return Registration{const_cast<void*>(address), bytes, 0, nullptr};
}

void ShmTransport::deregister_memory(Registration& registration) { registration = {}; }

Result ShmTransport::rdma_read(int peer, void* local, std::size_t bytes, RemoteKey remote,
                               std::uint64_t) {
    const pid_t pid = pid_of_[locality_.local_index_of[peer]];
    const int err = transfer(::process_vm_readv, pid, static_cast<std::byte*>(local), bytes,
                             remote.address);
    if (err == 0) return Result::done;
    log::error("RDMA Read of {} bytes from rank {} (pid {}) failed: {}.{}", bytes, peer, pid,
               std::strerror(err), cma_refused_hint(err));
    return Result::failed;
}

Result ShmTransport::rdma_write(int peer, const void* local, std::size_t bytes, RemoteKey remote,
                                std::uint64_t) {
    const pid_t pid = pid_of_[locality_.local_index_of[peer]];
    const int err = transfer(write_call, pid, static_cast<std::byte*>(const_cast<void*>(local)), bytes,
                             remote.address);
    if (err == 0) return Result::done;
    log::error("RDMA Write of {} bytes to rank {} (pid {}) failed: {}.{}", bytes, peer, pid,
               std::strerror(err), cma_refused_hint(err));
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
    const int err = transfer(::process_vm_readv, pid, std::span(local_iov.data(), local.size()),
                             std::span(&remote_iov, 1));
    if (err == 0) return Result::done;
    log::error("RDMA Read of {} bytes into {} pieces from rank {} (pid {}) failed: {}.{}", bytes,
               local.size(), peer, pid, std::strerror(err), cma_refused_hint(err));
    return Result::failed;
}

void ShmTransport::check_cross_memory_attach() const {
    if (layout_.local_size < 2) return;
    const int peer = (me_ + 1) % layout_.local_size;
    const node::RankBlock& block = region_.rank_block(peer);
    std::uint64_t seen = 0;
    const int err = transfer(::process_vm_readv, block.pid, reinterpret_cast<std::byte*>(&seen),
                             sizeof seen, block.probe_word);
    const std::uint64_t expected = probe_value(block.pid);
    if (err != 0)
        fail("cross-memory attach to local rank {} (pid {}) failed: {}.{} The shared-memory "
             "transport needs it for messages above SI_EAGER_LIMIT.",
             locality_.host_ranks[peer], block.pid, std::strerror(err), cma_refused_hint(err));
    if (seen != expected)
        fail("cross-memory attach to local rank {} (pid {}) read {:#x} instead of {:#x}: the "
             "ranks do not see each other's process ids (different PID namespaces?)",
             locality_.host_ranks[peer], block.pid, seen, expected);
}

}  // namespace si::transport::shm
