// What every nonblocking collective shares (nonblocking.hpp; their entry
// points are in collective.cpp, reduction.cpp, collective_blocks.cpp and
// intercomm_collective.cpp, beside the blocking forms): the blocking calls'
// argument checks, then the collective layer's schedule for the algorithm,
// started on the progress engine (coll/schedule.hpp). Each gets a tag range
// of its own (coll::nonblocking_tag_base), so that several may be in flight
// on one communicator, beside its blocking collectives; on an
// intercommunicator two, since the groups' own steps and the traffic between
// them arrive on one context (coll/intercomm.hpp). Every process of a
// communicator starts its collectives in the same order (MPI requires it), so
// all count the same ranges. Data of a non-contiguous datatype travels packed
// (Outgoing, Incoming) in buffers the schedule keeps, and its last step
// unpacks what arrived.
#include <memory>
#include <vector>

#include "api/nonblocking.hpp"

#include "api/collective_args.hpp"
#include "api/packing.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"

namespace si::api {

int start_nonblocking(Call& call, MPI_Comm comm, MPI_Request* request, Communicator*& c) {
    if (int rc = call.not_null(request, "request")) return rc;
    return start_collective(call, comm, c);
}

coll::Context next_nonblocking_context(Communicator& c) {
    coll::Context ctx = collective_context(c);
    ctx.tag_base = coll::nonblocking_tag_base(c.nonblocking_collectives++);
    return ctx;
}

coll::InterContext next_nonblocking_inter_context(Communicator& c) {
    coll::InterContext ctx = inter_collective_context(c);
    ctx.remote.tag_base = coll::nonblocking_tag_base(c.nonblocking_collectives++);
    ctx.local.tag_base = coll::nonblocking_tag_base(c.nonblocking_collectives++);
    return ctx;
}

std::unique_ptr<coll::Schedule> new_schedule(Communicator& c, coll::Tag tag) {
    if (c.inter()) return std::make_unique<coll::Schedule>(next_nonblocking_inter_context(c), tag);
    return std::make_unique<coll::Schedule>(next_nonblocking_context(c), tag);
}

void finish_with_unpack(coll::Schedule& schedule, std::shared_ptr<const Incoming> room,
                        std::shared_ptr<const Outgoing> message) {
    if (room) {
        schedule.next_round();
        schedule.local([room] { room->unpack(room->capacity()); });
        schedule.keep(std::move(room));
    }
    if (message) schedule.keep(std::move(message));
}

void keep_until_done(coll::Schedule& schedule, BlockArguments&& arguments) {
    const bool unpacks = arguments.room || arguments.arriving;
    auto kept = std::make_shared<const BlockArguments>(std::move(arguments));
    if (unpacks) {
        schedule.next_round();
        schedule.local([kept] { kept->unpack(); });
    }
    schedule.keep(std::move(kept));
}

int hand_over(std::unique_ptr<coll::Schedule> schedule, const Communicator& c,
              MPI_Request* request) {
    p2p::Request* started = coll::Schedule::start(std::move(schedule));
    started->owner = c.handle;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

}  // namespace si::api

