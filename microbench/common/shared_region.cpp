#include "common/shared_region.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace si::bench {

namespace {

constexpr std::size_t kNameBytes = 64;

// Unique per job: the creator's pid and a random word (two jobs of one user may
// start at once on a host).
std::string fresh_name() {
    std::random_device entropy;
    return fmt::format("/si-bench-{}-{:08x}", ::getpid(), entropy());
}

// Maps the object; returns nullptr (errno set) on failure.
void* map_object(const char* name, std::size_t bytes, bool create) {
    const int fd =
        create ? ::shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600) : ::shm_open(name, O_RDWR, 0600);
    if (fd < 0) return nullptr;
    if (create && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
        return nullptr;
    }
    void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return memory == MAP_FAILED ? nullptr : memory;
}

}  // namespace

SharedRegion::SharedRegion(MPI_Comm comm, std::size_t bytes) : bytes_(bytes) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::array<char, kNameBytes> name{};
    int failed = 0;
    std::string why;
    if (rank == 0) {
        const std::string fresh = fresh_name();
        std::memcpy(name.data(), fresh.c_str(), fresh.size() + 1);
        memory_ = map_object(name.data(), bytes, true);
        if (memory_ == nullptr) {
            failed = 1;
            why = std::strerror(errno);
        }
    }
    MPI_Bcast(name.data(), kNameBytes, MPI_CHAR, 0, comm);
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    if (rank != 0 && failed == 0) {
        memory_ = map_object(name.data(), bytes, false);
        if (memory_ == nullptr) why = std::strerror(errno);
    }
    int mine = memory_ == nullptr ? 1 : 0;
    int any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rank == 0 && failed == 0) ::shm_unlink(name.data());
    if (any != 0) {
        if (memory_ != nullptr) ::munmap(memory_, bytes_);
        memory_ = nullptr;
        throw std::runtime_error(
            fmt::format("shared memory {} of {} B: {} (do all ranks run on one host?)", name.data(),
                        bytes, why.empty() ? "another rank could not map it" : why));
    }
}

SharedRegion::~SharedRegion() {
    if (memory_ != nullptr) ::munmap(memory_, bytes_);
}

}  // namespace si::bench
