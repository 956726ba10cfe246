// Memory the ranks of one host share outside MPI: the cache-line floor's lines
// (p2p/floor) and the instruction counter's handshakes (instructions/). Nothing MPI
// does touches it, so a benchmark can move data or wait there without running a
// single instruction of the library it measures.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace si::bench {

class SharedRegion {
  public:
    // Collective over `comm`, whose ranks must share a host: rank 0 creates a POSIX
    // shared-memory object of `bytes` (zeroed), broadcasts its name, every rank maps
    // it, and rank 0 unlinks the name once all have, so that no file outlives the job
    // even when it is killed. Throws std::runtime_error (on every rank) when a rank
    // cannot map it.
    SharedRegion(MPI_Comm comm, std::size_t bytes);
    ~SharedRegion();
    SharedRegion(const SharedRegion&) = delete;
    SharedRegion& operator=(const SharedRegion&) = delete;

    [[nodiscard]] void* data() const { return memory_; }
    [[nodiscard]] std::size_t size() const { return bytes_; }

  private:
    void* memory_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace si::bench
