#include "base/cross_memory.hpp"

#include <algorithm>
#include <cerrno>

namespace si::cross_memory {

namespace {

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

template <typename Call>
int transfer(Call call, pid_t pid, std::span<iovec> local, std::span<iovec> remote) {
    drop_moved(local, 0);
    drop_moved(remote, 0);
    while (!local.empty() && !remote.empty()) {
        const ssize_t moved =
            call(pid, local.data(), local.size(), remote.data(), remote.size(), 0);
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

ssize_t write_call(pid_t pid, const iovec* local, unsigned long local_count, const iovec* remote,
                   unsigned long remote_count, unsigned long flags) {
    return ::process_vm_writev(pid, local, local_count, remote, remote_count, flags);
}

}  // namespace

int read(pid_t pid, std::span<iovec> local, std::span<iovec> remote) {
    return transfer(::process_vm_readv, pid, local, remote);
}

int write(pid_t pid, std::span<iovec> local, std::span<iovec> remote) {
    return transfer(write_call, pid, local, remote);
}

int read(pid_t pid, std::byte* local, std::size_t bytes, std::uint64_t remote) {
    return transfer(::process_vm_readv, pid, local, bytes, remote);
}

int write(pid_t pid, const std::byte* local, std::size_t bytes, std::uint64_t remote) {
    // process_vm_writev only reads the local side.
    return transfer(write_call, pid, const_cast<std::byte*>(local), bytes, remote);
}

std::string refused_hint(int err) {
    if (err != EPERM) return {};
    return " The kernel forbids cross-memory attach between the ranks (Yama ptrace "
           "protection). Allow it with `sysctl kernel.yama.ptrace_scope=0` (or 1), or run the "
           "ranks inside one container/user namespace where ptrace is permitted.";
}

}  // namespace si::cross_memory
