#include "local_node.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <numeric>

#include "p2p/wire.hpp"

namespace si::bench {

std::string unique_job_id() {
    static std::atomic<int> next{0};
    return fmt::format("bench-{}-{}", ::getpid(), next.fetch_add(1));
}

LocalNode::LocalNode(int ranks, int cells, std::size_t eager_limit) : world_of_(ranks) {
    std::iota(world_of_.begin(), world_of_.end(), 0);
    // As api/runtime.cpp lays it out: bodies hold an eager message or a control header.
    const transport::shm::Layout layout{ranks, cells,
                                        std::max(eager_limit, sizeof(p2p::RtsHeader))};
    const std::string job = unique_job_id();
    region_ = node::Region::create(job, ranks, layout.icb_slots());
    region_.unlink();
    SharedSegment created = transport::shm::ShmTransport::create_segment(job, layout);
    std::vector<SharedSegment> segments;
    for (int rank = 0; rank < ranks; ++rank) {
        node::RankBlock& block = region_.rank_block(rank);
        block.pid = ::getpid();
        block.world_rank = rank;
        transport::shm::ShmTransport::publish_probe(block);
        // Each rank maps the segment itself, as separate processes would.
        segments.push_back(rank == 0 ? SharedSegment{}
                                     : transport::shm::ShmTransport::open_segment(job));
    }
    created.unlink();
    segments[0] = std::move(created);
    for (int rank = 0; rank < ranks; ++rank) {
        auto r = std::make_unique<Rank>();
        r->locality.world_rank = rank;
        r->locality.world_size = ranks;
        r->locality.host_of.assign(ranks, 0);
        r->locality.local_index_of = world_of_;
        r->locality.host_ranks = world_of_;
        r->locality.node_of.assign(ranks, 0);
        r->locality.host_name = "benchmark";
        r->transport = std::make_unique<transport::shm::ShmTransport>(std::move(segments[rank]),
                                                                      region_, r->locality, layout);
        r->lock = std::make_unique<p2p::ProgressLock>(region_.rank_block(rank).progress_lock);
        std::vector<transport::Transport*> transport_of(ranks, r->transport.get());
        p2p::Engine::Options options;
        options.eager_limit = eager_limit;
        r->engine = std::make_unique<p2p::Engine>(rank, std::move(transport_of), *r->lock, options);
        ranks_.push_back(std::move(r));
    }
}

LocalNode::~LocalNode() {
    // Engines first: they hold their transports and locks.
    for (auto& rank : ranks_) rank->engine.reset();
}

p2p::CommRef LocalNode::world(int rank) const {
    return p2p::CommRef{0, rank, world_of_};
}

}  // namespace si::bench
