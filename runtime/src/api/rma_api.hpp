// What the one-sided entry points share (rma.cpp, rma_sync.cpp).
#pragma once

#include <memory>

#include "api/win.hpp"
#include "mpi.h"
#include "p2p/activity.hpp"
#include "p2p/engine.hpp"

namespace si::api {

// A request for `activity` (a completed one if null), whose errors go to
// `owner`'s (the window's) error handler.
p2p::Request* start_rma_request(p2p::Engine& engine, MPI_Comm owner,
                                std::unique_ptr<p2p::Activity> activity);

}  // namespace si::api
