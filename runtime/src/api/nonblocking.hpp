// What the schedule-based collective entry points share (collective.cpp,
// reduction.cpp, collective_blocks.cpp, intercomm_collective.cpp): the
// communicator check of a nonblocking call, a schedule for either kind of
// communicator (with a tag range of its own when nonblocking), the packed
// buffers it keeps, and the request the application gets.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "api/collective_args.hpp"
#include "api/packing.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"
#include "mpi.h"

namespace si::api {

// The communicator of a nonblocking collective, or an error (a null request,
// an invalid communicator). Intercommunicators are accepted; the prefix
// reductions refuse them themselves.
int start_nonblocking(Call& call, MPI_Comm comm, MPI_Request* request, Communicator*& c);

// A schedule for the next nonblocking collective on c, with its tag range
// (coll::nonblocking_tag_base); on an intercommunicator, one for both groups
// with two ranges, one for the traffic between the groups and one for each
// group's own steps (coll/intercomm.hpp).
std::unique_ptr<coll::Schedule> new_schedule(Communicator& c, coll::Tag tag);
// The contexts new_schedule gives its schedule, for an operation that makes
// several schedules over one tag range (MPI_Comm_idup). Each call takes the
// next range(s) of c.
coll::Context next_nonblocking_context(Communicator& c);
coll::InterContext next_nonblocking_inter_context(Communicator& c);

// The schedule keeps the packed data until it is over, and its last step
// unpacks what arrived into the user's buffer (nothing if it is contiguous).
// Either may be null: a rank that only sends, or only receives.
void finish_with_unpack(coll::Schedule& schedule, std::shared_ptr<const Incoming> room,
                        std::shared_ptr<const Outgoing> message = nullptr);

// The same for the buffers of a collective that moves blocks, moved into the
// schedule.
void keep_until_done(coll::Schedule& schedule, BlockArguments&& arguments);

// Starts the schedule and gives the application its request.
int hand_over(std::unique_ptr<coll::Schedule> schedule, const Communicator& c,
              MPI_Request* request);

// A blocking collective on c: runs the schedule `add` builds on either kind
// of communicator; the description of an error lands in `detail`.
template <typename Add>
int run_schedule(const Communicator& c, coll::Tag tag, std::string& detail, Add&& add) {
    return run_collective(c, detail, [&](const auto& ctx) {
        coll::Schedule schedule(ctx, tag);
        add(schedule);
        return schedule.run();
    });
}

// A collective whose arguments are BlockArguments: with a null request (a
// blocking call, which reports the layer's description of an error) runs the
// schedule `add` builds and unpacks what arrived; otherwise starts it for the
// request, keeping the arguments until it ends.
template <typename Add>
int run_or_start(Call& call, Communicator& c, coll::Tag tag, BlockArguments& a,
                 MPI_Request* request, Add&& add) {
    if (request != nullptr) {
        auto schedule = new_schedule(c, tag);
        add(*schedule);
        keep_until_done(*schedule, std::move(a));
        return hand_over(std::move(schedule), c, request);
    }
    std::string detail;
    const int rc = run_schedule(c, tag, detail, add);
    a.unpack();
    return finish_collective(call, rc, detail);
}

}  // namespace si::api
