// MPI_Request handles and the completion calls built on them.
#pragma once

#include "mpi.h"
#include "p2p/request.hpp"

namespace si::api {

MPI_Request handle_of(const p2p::Request* request);

// Completion -> MPI_Status; is_receive decides whether source and tag mean anything.
void fill_status(MPI_Status* status, const p2p::Completion& completion, bool is_receive);

// For a completed request: fills the status, returns the request to the pool,
// and reports its error (if any) through its communicator's error handler.
int finish_request(const char* function, p2p::Request* request, MPI_Status* status);

}  // namespace si::api
