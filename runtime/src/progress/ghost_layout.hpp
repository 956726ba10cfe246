// SI_PROGRESS=ghost: which ghost serves which rank, for the whole job.
//
// A ghost domain is the set of ranks one set of ghosts serves. It is a node
// (real, or simulated with SI_NODE_SIZE) when nodes talk verbs: each node's
// ghosts then reach only its ranks through shared memory, and the ghosts of
// different nodes through RDMA (ghost_network.hpp). Without verbs in the
// job, every rank is on one host and the host is one domain: its simulated
// nodes share its ghosts, which reach all of them by shared memory.
//
// Within a domain, a receiver is served by ghost (its index in the domain
// modulo the domain's ghost count), which matches all its messages and
// receives. A message to a receiver of another domain goes first to a ghost
// of the sender's domain, the same one for every message of the pair, which
// forwards it in order to the receiver's ghost: MPI's non-overtaking rule
// holds along the path.
#pragma once

#include <vector>

namespace si::progress {

class GhostLayout {
  public:
    GhostLayout() = default;
    // domain_of: world rank -> domain (0 .. domains - 1); host_of: world
    // rank -> host; ghosts: SI_GHOSTS, at most per domain.
    GhostLayout(std::vector<int> domain_of, const std::vector<int>& host_of, int ghosts);

    int domains() const { return static_cast<int>(domain_size_.size()); }
    int ghosts() const { return first_ghost_.empty() ? 0 : first_ghost_.back(); }
    int domain_of(int rank) const { return domain_of_[static_cast<std::size_t>(rank)]; }
    // Its place among its domain's ranks (ascending world ranks); the first
    // starts the domain's ghosts.
    int index_in_domain(int rank) const { return index_in_domain_[static_cast<std::size_t>(rank)]; }
    int ghosts_in(int domain) const;
    // The job-wide numbers of domain `domain`'s ghosts: [first, first + ghosts_in).
    int first_ghost(int domain) const { return first_ghost_[static_cast<std::size_t>(domain)]; }
    int domain_of_ghost(int ghost) const;
    // Where ghost `ghost` has its block in its host's ghost area, and how
    // many blocks the area of `host` holds.
    int block_of(int ghost) const { return block_of_[static_cast<std::size_t>(ghost)]; }
    int blocks_on(int host) const;

    // The ghost that matches for `rank` as a receiver.
    int serving_ghost(int rank) const;
    // The ghost of `from`'s domain that carries its messages to `to`:
    // serving_ghost(to) if they share a domain.
    int carrying_ghost(int from, int to) const;
    // The receiver's place among the ranks its ghost serves (seed 003's
    // offset), and the bits the busiest ghost of the job needs for it
    // (SI_GHOST_MATCHING=dup and tag).
    int offset(int rank) const;
    int offset_bits() const;

  private:
    std::vector<int> domain_of_;
    std::vector<int> index_in_domain_;
    std::vector<int> domain_size_;
    std::vector<int> first_ghost_;  // per domain, then the total
    std::vector<int> block_of_;     // per ghost
    std::vector<int> blocks_on_;    // per host
};

}  // namespace si::progress
