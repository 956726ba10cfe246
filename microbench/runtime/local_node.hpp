// A host's ranks inside one benchmark process: a real node region and a real
// shared-memory segment, and per rank the transport, progress lock and engine
// the runtime builds at MPI_Init (api/runtime.cpp), without a launcher. Every
// rank has this process's pid, so cross-memory attach reads our own memory.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "node/locality.hpp"
#include "node/region.hpp"
#include "p2p/engine.hpp"
#include "p2p/progress_lock.hpp"
#include "transport/shm/shm_transport.hpp"

namespace si::bench {

class LocalNode {
  public:
    // The runtime's defaults: SI_SHM_CELLS=64, SI_EAGER_LIMIT=16384.
    explicit LocalNode(int ranks = 2, int cells = 64, std::size_t eager_limit = 16384);
    ~LocalNode();
    LocalNode(const LocalNode&) = delete;
    LocalNode& operator=(const LocalNode&) = delete;

    int size() const { return static_cast<int>(ranks_.size()); }
    const node::Region& region() const { return region_; }
    const node::Locality& locality(int rank) const { return ranks_[rank]->locality; }
    transport::shm::ShmTransport& transport(int rank) { return *ranks_[rank]->transport; }
    p2p::Engine& engine(int rank) { return *ranks_[rank]->engine; }
    // MPI_COMM_WORLD as rank `rank` sees it, point-to-point context 0.
    p2p::CommRef world(int rank) const;

  private:
    struct Rank {
        node::Locality locality;
        std::unique_ptr<transport::shm::ShmTransport> transport;
        std::unique_ptr<p2p::ProgressLock> lock;
        std::unique_ptr<p2p::Engine> engine;
    };

    node::Region region_;
    std::vector<int> world_of_;
    // Stable addresses: transports keep references to their locality.
    std::vector<std::unique_ptr<Rank>> ranks_;
};

// A job id no other benchmark process uses ("bench-<pid>-<n>").
std::string unique_job_id();

}  // namespace si::bench
