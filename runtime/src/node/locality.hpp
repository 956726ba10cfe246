// Where every rank of the job runs: which host (shared memory reaches it) and
// which node (simulated with SI_NODE_SIZE, otherwise the host). Computed once
// at start-up from host names exchanged through the bootstrap.
#pragma once

#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace si::node {

struct Locality {
    int world_rank = 0;
    int world_size = 1;
    std::vector<int> host_of;          // world rank -> host index
    std::vector<int> local_index_of;   // world rank -> index among ranks of its host
    std::vector<int> host_ranks;       // world ranks on my host, ascending
    std::vector<int> node_of;          // world rank -> node index (simulated or host)
    std::string host_name;

    int local_index() const { return local_index_of[world_rank]; }
    int local_size() const { return static_cast<int>(host_ranks.size()); }
    bool same_host(int other) const { return host_of[other] == host_of[world_rank]; }
    bool several_nodes() const {
        for (int node : node_of)
            if (node != node_of[0]) return true;
        return false;
    }
};

// node_size: ranks per simulated node, 0 for one node per host.
Locality discover_locality(bootstrap::Bootstrap& bootstrap, int node_size);

}  // namespace si::node
