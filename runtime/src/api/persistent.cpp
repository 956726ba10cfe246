// Persistent requests: MPI_Send_init and friends record an operation's
// arguments once; each MPI_Start begins it again as an ordinary operation of
// the engine, which the completion calls (requests.cpp) finish without
// freeing the persistent request.
#include <string>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/pt2pt.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

using Mode = PersistentRequest::Mode;

datatype::HandleTable<PersistentRequest>& table() {
    static datatype::HandleTable<PersistentRequest> instance(
        static_cast<int>(HandleKind::persistent_request), 1);
    return instance;
}

// Checks the arguments as the operation itself would, so that errors show at
// MPI_*_init rather than at each MPI_Start.
int create(const char* function, Mode mode, const void* buf, int count, MPI_Datatype datatype,
           int peer, int tag, MPI_Comm comm, MPI_Request* request) {
    Call call(function);
    if (int rc = call.not_null(request, "request")) return rc;
    Communicator* c = nullptr;
    const datatype::Type* type = nullptr;
    const int rc = mode == Mode::receive
                       ? check_receive(call, buf, count, datatype, peer, tag, comm, c, type)
                       : check_send(call, buf, count, datatype, peer, tag, comm, c, type);
    if (rc != MPI_SUCCESS) return rc;
    // The program may free a derived type before the last MPI_Start: the
    // request keeps a copy of its own.
    MPI_Datatype kept = datatype;
    if (!type->predefined)
        if (int error_class = datatype::store_copy(*type, kept, type->name))
            return call.fail(error_class, "too many derived datatypes exist");
    *request = table().add(
        PersistentRequest{mode, const_cast<void*>(buf), count, kept, peer, tag, comm},
        [](int) { return std::string(); });
    if (*request == 0) {
        if (kept != datatype) (void)datatype::free_type(kept);
        return call.fail(MPI_ERR_NO_MEM, "too many persistent requests");
    }
    return MPI_SUCCESS;
}

int start(Call& call, MPI_Request handle, const char* argument) {
    PersistentRequest* persistent = table().find(handle);
    if (persistent == nullptr)
        return call.fail(MPI_ERR_REQUEST, "{} = {:#x} is not a persistent request (it is {})",
                         argument, handle,
                         handle == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : kind_name(handle));
    if (persistent->active != nullptr)
        return call.fail(MPI_ERR_REQUEST,
                         "{} is active already: complete it (MPI_Wait, MPI_Test...) before "
                         "starting it again",
                         argument);
    const PersistentRequest& p = *persistent;
    p2p::Request* started = nullptr;
    int rc = MPI_SUCCESS;
    switch (p.mode) {
        case Mode::receive:
            rc = start_receive(call.function(), p.buffer, p.count, p.datatype, p.peer, p.tag,
                               p.comm, false, started);
            break;
        case Mode::buffered:
            rc = start_buffered_send(call.function(), p.buffer, p.count, p.datatype, p.peer,
                                     p.tag, p.comm, started);
            break;
        case Mode::synchronous:
            rc = start_send(call.function(), p.buffer, p.count, p.datatype, p.peer, p.tag, p.comm,
                            p2p::SendMode::synchronous, started);
            break;
        case Mode::standard:
        case Mode::ready:
            rc = start_send(call.function(), p.buffer, p.count, p.datatype, p.peer, p.tag, p.comm,
                            p2p::SendMode::standard, started);
            break;
    }
    if (rc == MPI_SUCCESS) persistent->active = started;
    return rc;
}

}  // namespace

PersistentRequest* persistent_in_table(MPI_Request handle) {
    return table().find(handle);
}

void free_persistent(MPI_Request handle) {
    PersistentRequest* persistent = table().find(handle);
    if (persistent->active != nullptr) Runtime::get()->engine->release(persistent->active);
    if (const datatype::Type* type = datatype::lookup(persistent->datatype);
        type != nullptr && !type->predefined)
        (void)datatype::free_type(persistent->datatype);
    table().remove(handle);
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
    return create("MPI_Send_init", Mode::standard, buf, count, datatype, dest, tag, comm,
                  request);
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    return create("MPI_Ssend_init", Mode::synchronous, buf, count, datatype, dest, tag, comm,
                  request);
}

// Ready mode promises a posted receive; a standard send is a correct way to
// honour that promise, and what MPICH does on shared memory.
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    return create("MPI_Rsend_init", Mode::ready, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    return create("MPI_Bsend_init", Mode::buffered, buf, count, datatype, dest, tag, comm,
                  request);
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request* request) {
    return create("MPI_Recv_init", Mode::receive, buf, count, datatype, source, tag, comm,
                  request);
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request* request) {
    Call call("MPI_Start");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    return start(call, *request, "request");
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request requests[]) {
    Call call("MPI_Startall");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.count(count)) return rc;
    if (count > 0)
        if (int rc = call.not_null(requests, "array_of_requests")) return rc;
    for (int i = 0; i < count; ++i)
        if (int rc = start(call, requests[i], fmt::format("array_of_requests[{}]", i).c_str()))
            return rc;
    return MPI_SUCCESS;
}

}  // extern "C"
