// MPI_Request handles and the completion calls built on them.
#pragma once

#include "api/handles.hpp"
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
// The error of an operation on `comm` that completed with MPI error class
// `error`, reported through its error handler as finish_request does.
int report_failed(const char* function, MPI_Comm comm, int error);

// Generalized requests (generalized.cpp). is_generalized is cheap when the
// program has none. finish_generalized runs query_fn (into `status`, or a
// scratch one) and then free_fn, forgets the request, and returns the first
// callback error. query_generalized runs query_fn only (MPI_Request_get_status).
// cancel_generalized / free_generalized_handle run MPI_Cancel / MPI_Request_free's
// part (cancel_fn; free_fn) and return false for other requests; `error` is
// the callback's result.
bool is_generalized(const p2p::Request* request);
int finish_generalized(const p2p::Request* request, MPI_Status* status);
int query_generalized(const p2p::Request* request, MPI_Status* status);
bool cancel_generalized(const p2p::Request* request, int& error);
bool free_generalized_handle(const p2p::Request* request, int& error);

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

// The persistent request `handle` names, or nullptr (also for a handle of
// another kind).
PersistentRequest* persistent_in_table(MPI_Request handle);
// nullptr unless `handle` names a persistent request; inline, as every
// completion asks it of every handle.
inline PersistentRequest* find_persistent(MPI_Request handle) {
    return is_kind(handle, HandleKind::persistent_request) ? persistent_in_table(handle) : nullptr;
}
// MPI_Request_free: an active operation completes on its own.
void free_persistent(MPI_Request handle);

}  // namespace si::api
