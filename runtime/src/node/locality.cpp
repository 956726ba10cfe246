#include "node/locality.hpp"

#include <unistd.h>

#include <map>

#include "base/error.hpp"

namespace si::node {

namespace {

std::string this_host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) fail("{}", errno_message("gethostname", errno));
    return name;
}

}  // namespace

Locality discover_locality(bootstrap::Bootstrap& bootstrap, int node_size) {
    Locality where;
    where.world_rank = bootstrap.rank();
    where.world_size = bootstrap.size();
    where.host_name = this_host_name();

    std::vector<std::string> hosts(where.world_size);
    if (where.world_size == 1) {
        hosts[0] = where.host_name;
    } else {
        bootstrap.put(fmt::format("host-{}", where.world_rank), where.host_name);
        bootstrap.fence();
        for (int r = 0; r < where.world_size; ++r) hosts[r] = bootstrap.get(fmt::format("host-{}", r));
    }

    std::map<std::string, int> host_index;
    std::map<int, int> ranks_seen_on_host;
    where.host_of.resize(where.world_size);
    where.local_index_of.resize(where.world_size);
    where.node_of.resize(where.world_size);
    for (int r = 0; r < where.world_size; ++r) {
        auto [it, inserted] = host_index.emplace(hosts[r], static_cast<int>(host_index.size()));
        where.host_of[r] = it->second;
        where.local_index_of[r] = ranks_seen_on_host[it->second]++;
        where.node_of[r] = node_size > 0 ? r / node_size : it->second;
    }
    for (int r = 0; r < where.world_size; ++r) {
        if (where.host_of[r] == where.host_of[where.world_rank]) where.host_ranks.push_back(r);
        // A node's helpers serve its ranks through shared memory, so a simulated
        // node must not straddle two hosts.
        const int first_of_node = where.node_of[r] * node_size;
        if (node_size > 0 && where.host_of[r] != where.host_of[first_of_node])
            fail("SI_NODE_SIZE={} puts ranks {} ({}) and {} ({}) in one simulated node, but they "
                 "run on different hosts; choose a size that divides the ranks per host",
                 node_size, first_of_node, hosts[first_of_node], r, hosts[r]);
    }
    return where;
}

}  // namespace si::node
