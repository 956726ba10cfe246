#include <sys/uio.h>

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

// Moves bytes between this process and a peer with process_vm_readv/writev,
// which may transfer less than asked; returns 0 or an errno value.
template <typename Call>
int transfer(Call call, pid_t pid, std::byte* local, std::size_t bytes, std::uint64_t remote) {
    while (bytes > 0) {
        iovec local_iov{local, bytes};
        iovec remote_iov{reinterpret_cast<void*>(remote), bytes};
        const ssize_t moved = call(pid, &local_iov, 1, &remote_iov, 1, 0);
        if (moved < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (moved == 0) return EFAULT;
        local += moved;
        remote += static_cast<std::uint64_t>(moved);
        bytes -= static_cast<std::size_t>(moved);
    }
    return 0;
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
    auto writev = [](pid_t p, const iovec* l, unsigned long ln, const iovec* r, unsigned long rn,
                     unsigned long flags) { return ::process_vm_writev(p, l, ln, r, rn, flags); };
    const int err = transfer(writev, pid, static_cast<std::byte*>(const_cast<void*>(local)), bytes,
                             remote.address);
    if (err == 0) return Result::done;
    log::error("RDMA Write of {} bytes to rank {} (pid {}) failed: {}.{}", bytes, peer, pid,
               std::strerror(err), cma_refused_hint(err));
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
