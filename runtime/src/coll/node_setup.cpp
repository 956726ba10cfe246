// When and how a communicator's shared area (node_collectives.hpp) is made:
// the lifetime of its segment.
#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/log.hpp"
#include "coll/node_collectives.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

namespace si::coll {

namespace {

// Room for a segment's name in the broadcast that hands it round (as the
// fatal-signal handler keeps names, base/shm_segment.cpp).
constexpr std::size_t kNameBytes = 128;

}  // namespace

bool NodeCollectives::prepare(const Context& ctx) {
    if (state_ == State::ready) return true;
    if (state_ == State::unavailable || ++calls_ < kCallsBeforeSetup) return false;
    set_up(ctx);
    return state_ == State::ready;
}

// A collective over the communicator's point-to-point algorithms. Names
// are unique on the host: the job's, the world rank of the creator, and
// how many it made.
void NodeCollectives::set_up(const Context& ctx) {
    static std::atomic<unsigned> made{0};
    Context p2p = ctx;
    p2p.node = nullptr;
    p2p.detail = nullptr;
    state_ = State::unavailable;
    char name[kNameBytes] = {};
    if (rank_ == 0) {
        try {
            const std::string chosen = SharedSegment::name_for(
                job_id_, fmt::format("coll{}-{}", ctx.comm.world_of[0], made++));
            if (chosen.size() < kNameBytes) {
                segment_ = SharedSegment::create(chosen, NodeArea::bytes_for(size_));
                NodeArea::format(segment_.data(), size_);
                std::memcpy(name, chosen.c_str(), chosen.size() + 1);
            }
        } catch (const Error& e) {
            log::warn("shared-memory collectives unavailable on a communicator of {} ranks: {}",
                      size_, e.what());
        }
    }
    int rc = bcast(p2p, name, sizeof name, 0);
    int mapped = 0;
    if (rc == MPI_SUCCESS && name[0] != '\0') {
        try {
            if (rank_ != 0) segment_ = SharedSegment::open(name);
            mapped = area_.attach(segment_.data(), segment_.size(), rank_, size_) ? 1 : 0;
        } catch (const Error& e) {
            log::warn("shared-memory collectives unavailable: {}", e.what());
        }
    }
    // Every rank mapped it (or said it could not) before the name goes.
    int everywhere = 0;
    rc = allreduce(p2p, &mapped, &everywhere, 1, *datatype::lookup(MPI_INT),
                   *datatype::lookup_op(MPI_MIN));
    segment_.unlink();
    if (rc != MPI_SUCCESS || everywhere != 1) {
        segment_ = SharedSegment{};
        return;
    }
    state_ = State::ready;
}

}  // namespace si::coll
