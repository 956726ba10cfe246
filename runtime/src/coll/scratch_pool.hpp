// Temporary buffers of the collectives' schedules, kept between calls.
// A fresh large allocation comes from mmap, and the first touch of each of
// its pages faults: about 0.3 ms per MiB on this project's test machine,
// which made a 1 MiB allreduce (two such buffers per call) three times
// slower than MPICH's. Buffers go back to the pool when their schedule ends
// and serve the next call of a similar size. Small ones (below kPooledBytes)
// are kept by the thread that returns them, a few per size, and serve its
// next calls: a blocking collective whose temporaries do not fit in its
// schedule (a 1 KiB allreduce's) then allocates nothing once its thread has
// made one such call, and takes no lock.
#pragma once

#include <cstddef>
#include <memory>

namespace si::coll {

class ScratchPool {
  public:
    static constexpr std::size_t kAlign = 64;  // typed kernels may work on them
    static constexpr std::size_t kPooledBytes = std::size_t{64} * 1024;

    struct Return {
        std::size_t capacity;
        void operator()(std::byte* buffer) const;
    };
    using Buffer = std::unique_ptr<std::byte[], Return>;

    // At least `bytes`, 64-byte aligned; contents undefined. Thread-safe.
    static Buffer take(std::size_t bytes);
};

}  // namespace si::coll
