// Progression mode `ghost`: seed 003's ghost processes, the process-based
// alternative to SmartInterrupts. A few processes per node take over the
// ranks' point-to-point sends and receives at posting time, through post
// cells and lock-free queues in shared memory (node/ghost_area.hpp), and do
// the matching and the copying while the ranks compute.
//
// One matching domain per receiver: every message, whatever its size, goes
// to the ghost that serves its receiver, which also gets all of that
// receiver's receives, in the order they were posted. Each sender's queue
// to a ghost is FIFO, so MPI's non-overtaking rule and wildcard receives hold
// as they do in the engine; the size threshold (SI_GHOST_THRESHOLD) decides
// only whether the data travels inside the cell (copied by the sender, whose
// send then completes at once) or stays in the sender's memory until the
// ghost copies it, with cross-memory attach, into the receiver's.
//
// This file: the ghost's side. ghost_client.hpp: the rank's side.
#pragma once

#include <vector>

#include "node/ghost_area.hpp"
#include "node/region.hpp"

namespace si::progress {

struct GhostAssignment {
    int index = 0;           // its GhostBlock
    std::vector<int> ranks;  // local indices of the receivers it serves
    std::vector<int> cpus;   // where to run; empty: leave it to the OS
};

// The ghost that serves local rank `local_index` as a receiver.
inline int ghost_of(int local_index, int ghosts) {
    return local_index % ghosts;
}

// The ghost's main loop; returns when its block's stop flag is set.
void run_ghost(const node::GhostArea& area, const node::Region& region,
               const GhostAssignment& assignment);

// Forks a ghost process that runs run_ghost; returns its pid.
int spawn_ghost(const node::GhostArea& area, const node::Region& region,
                const GhostAssignment& assignment);

// Wakes ghost `ghost` if it sleeps, after the caller pushed a cell to it.
void ring_ghost(const node::GhostArea& area, int ghost);

}  // namespace si::progress
