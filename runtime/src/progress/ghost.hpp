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
// SI_GHOST_MATCHING=dup and tag are seed 003's strategies instead, for a
// ghost that is one MPI process with one matching queue: the ghost keeps one
// domain for all its receivers and tells them apart by the communicator (an
// internal one per receiver) or by the tag (the receiver's offset in its low
// bits, which narrows MPI_TAG_UB and rules out MPI_ANY_TAG). Unlike the
// paper's ghost, ours sees the sender's true rank, so wildcard receives need
// no tag trick and report the right source in either.
//
// Across nodes, each node has its ghosts, and a message to another node's
// rank goes from a ghost of the sender's node to the receiver's ghost over
// verbs (ghost_layout.hpp says which ghost does what, ghost_network.hpp how
// they talk).
//
// This file: the ghost's side. ghost_client.hpp: the rank's side.
#pragma once

#include <vector>

#include "node/ghost_area.hpp"
#include "node/region.hpp"
#include "progress/ghost_layout.hpp"

namespace si::progress {

struct GhostAssignment {
    int index = 0;          // its GhostBlock in the host's area
    int ghost = 0;          // its number in the job (GhostLayout)
    std::vector<int> cpus;  // where to run; empty: leave it to the OS
    GhostLayout layout;
    int verbs_credits = 0;  // SI_VERBS_CREDITS, between ghosts of different nodes
};

// The ghost's main loop; returns when its block's stop flag is set.
void run_ghost(const node::GhostArea& area, const node::Region& region,
               const GhostAssignment& assignment);

// Forks a ghost process that runs run_ghost; returns its pid.
int spawn_ghost(const node::GhostArea& area, const node::Region& region,
                const GhostAssignment& assignment);

// Wakes ghost `ghost` if it sleeps, after the caller pushed a cell to it.
void ring_ghost(const node::GhostArea& area, int ghost);

}  // namespace si::progress
