// What the nonblocking collectives share (used by collective.cpp,
// reduction.cpp, collective_blocks.cpp): the communicator check, a schedule
// with a tag range of its own, the packed buffers it keeps, and the request
// the application gets.
#pragma once

#include <memory>

#include "api/collective_args.hpp"
#include "api/packing.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"
#include "mpi.h"

namespace si::api {

// The communicator of a nonblocking collective, or an error (a null request,
// an intercommunicator, which they refuse for now).
int start_nonblocking(Call& call, MPI_Comm comm, MPI_Request* request, Communicator*& c);

// A schedule for the next nonblocking collective on c, with its tag range
// (coll::nonblocking_tag_base).
std::unique_ptr<coll::Schedule> new_schedule(Communicator& c, coll::Tag tag);

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

}  // namespace si::api
