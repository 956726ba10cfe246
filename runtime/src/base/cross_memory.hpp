// Moving bytes between this process and another of the host with
// cross-memory attach (process_vm_readv/writev). A call may move less than
// asked (it stops at the first piece it cannot reach): these ask again for
// the rest. Each returns 0 or an errno value.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace si::cross_memory {

int read(pid_t pid, std::span<iovec> local, std::span<iovec> remote);
int write(pid_t pid, std::span<iovec> local, std::span<iovec> remote);
int read(pid_t pid, std::byte* local, std::size_t bytes, std::uint64_t remote);
int write(pid_t pid, const std::byte* local, std::size_t bytes, std::uint64_t remote);

// For an error message: what to do when the kernel refuses (EPERM); empty otherwise.
std::string refused_hint(int err);

}  // namespace si::cross_memory
