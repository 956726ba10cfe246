// Handshakes between the ranks of one host outside MPI, in shared memory. The
// instruction counter arranges what a counted MPI call finds (the peer's messages
// already there, the peer waiting outside the library) with them: a rank waiting in
// a handshake runs no progress pass of the library, so it neither takes messages
// early nor writes anything the counted rank reads. A rank waits here asleep (a futex
// on the shared counter), not polling: on a loaded host a process that slept is the
// one the scheduler runs first when it is woken, so a peer that must answer inside a
// counted call is on a CPU when it is asked to.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/shared_region.hpp"

namespace si::bench::instructions {

class Handshake {
  public:
    // Collective over `comm` (its ranks on one host).
    explicit Handshake(MPI_Comm comm);

    // Every rank has arrived (and left the previous repetition).
    void barrier();
    // Tells `to` that a step is done; `to` consumes it with one wait_for(this rank).
    void signal(int to);
    // Waits until `from` has signalled once more than this rank has consumed.
    void wait_for(int from);

  private:
    [[nodiscard]] std::uint32_t* line(std::size_t index) const;
    void publish(std::size_t index, std::uint32_t value) const;
    void wait_until_at_least(std::size_t index, std::uint32_t value) const;

    int rank_ = 0;
    int ranks_ = 1;
    SharedRegion region_;
    std::uint32_t barriers_ = 0;           // barriers this rank has entered
    std::vector<std::uint32_t> sent_;      // signals to each rank
    std::vector<std::uint32_t> consumed_;  // signals taken from each rank
};

}  // namespace si::bench::instructions
