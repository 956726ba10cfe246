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
// `handle`, if given, is the MPI_Request that named it: it becomes
// MPI_REQUEST_NULL, or, for a persistent request, inactive.
int finish_request(const char* function, p2p::Request* request, MPI_Status* status,
                   MPI_Request* handle = nullptr);

// MPI_Start and friends (persistent.cpp).
struct PersistentRequest {
    enum class Mode : unsigned char { standard, synchronous, ready, buffered, receive };
    Mode mode = Mode::standard;
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    int peer = 0;  // dest or source
    int tag = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    // The operation the last MPI_Start began, until a completion call finishes it.
    p2p::Request* active = nullptr;
    int handle = 0;              // set by the table (datatype::HandleTable)
    const char* name = nullptr;  // unused
};

// nullptr unless `handle` names a persistent request.
PersistentRequest* find_persistent(MPI_Request handle);
// MPI_Request_free: an active operation completes on its own.
void free_persistent(MPI_Request handle);

}  // namespace si::api
