// Probes. MPI_Probe/Iprobe only look; the matched forms (MPI_Mprobe/Improbe)
// take the message out of the matching queue and name it with an
// MPI_Message handle, which only MPI_Mrecv/Imrecv can receive: another
// thread's receive can no longer take it in between.
#include <string>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/packing.hpp"
#include "api/pt2pt.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

using Message = p2p::Engine::Unexpected;

// Messages taken by matched probes (handle index 1 is MPI_MESSAGE_NO_PROC).
struct TakenMessage {
    Message* message = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;
    int handle = 0;              // set by the table
    const char* name = nullptr;  // unused
};

datatype::HandleTable<TakenMessage>& taken_messages() {
    static datatype::HandleTable<TakenMessage> instance(static_cast<int>(HandleKind::message), 2);
    return instance;
}

// 0 if the table is full.
MPI_Message add_message(Message* message, MPI_Comm comm) {
    if (message == p2p::Engine::kNoProcMessage) return MPI_MESSAGE_NO_PROC;
    return taken_messages().add(TakenMessage{message, comm}, [](int) { return std::string(); });
}

// Takes the message out; false if the handle names none.
bool take(MPI_Message handle, Message*& message, MPI_Comm& comm) {
    if (handle == MPI_MESSAGE_NO_PROC) {
        message = p2p::Engine::kNoProcMessage;
        comm = MPI_COMM_SELF;
        return true;
    }
    const TakenMessage* taken = taken_messages().find(handle);
    if (taken == nullptr) return false;
    message = taken->message;
    comm = taken->comm;
    return taken_messages().remove(handle);
}

int check_probe(Call& call, int source, int tag, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.source(*c, source)) return rc;
    return call.receive_tag(tag);
}

// A ghost matches the application's messages (SI_PROGRESS=ghost); it answers
// probes, but does not yet hand a matched message over to the rank.
int matched_probe_unsupported(Call& call, int source) {
    if (!Runtime::get()->ghost || source == MPI_PROC_NULL) return MPI_SUCCESS;
    return call.fail(MPI_ERR_OTHER,
                     "SI_PROGRESS=ghost does not serve matched probes yet (its ghost processes "
                     "match every message); run this program with another SI_PROGRESS");
}

// MPI_Iprobe's search, by the engine or by the ghost that matches for us.
std::optional<p2p::Completion> find_message(int source, int tag, const Communicator& c) {
    Runtime& runtime = *Runtime::get();
    if (runtime.ghost && source != MPI_PROC_NULL)
        return runtime.ghost->iprobe(source, tag, c.ref(), c.p2p_context());
    return runtime.engine->iprobe(source, tag, c.ref(), c.p2p_context());
}

// Checks a matched receive's arguments and takes its message.
int take_message(Call& call, void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                 const datatype::Type*& type, Message*& taken, MPI_Comm& comm) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.message(buf, count, datatype, type)) return rc;
    if (int rc = call.not_null(message, "message")) return rc;
    if (!take(*message, taken, comm))
        return call.fail(MPI_ERR_REQUEST,
                         "message = {:#x} names no message of a matched probe ({})", *message,
                         *message == MPI_MESSAGE_NULL ? "it is MPI_MESSAGE_NULL"
                                                      : "received already, or not a message");
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

p2p::Request* receive_message(Message* message, void* buf, int count,
                              const datatype::Type& type, MPI_Comm comm) {
    const Streaming streaming = Runtime::get()->engine->streams_with(p2p::kAnySource)
                                    ? Streaming::allowed
                                    : Streaming::no;
    Incoming room(buf, count, type, false, streaming);
    p2p::Request* request = Runtime::get()->engine->imrecv(message, room.data(), room.capacity(),
                                                           room.unpack_when_received());
    request->owner = comm;
    return request;
}

}  // namespace

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    Call call("MPI_Iprobe");
    Communicator* c = nullptr;
    if (int rc = check_probe(call, source, tag, comm, c)) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    auto found = find_message(source, tag, *c);
    *flag = found.has_value();
    if (found) fill_status(status, *found, true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    Call call("MPI_Probe");
    Communicator* c = nullptr;
    if (int rc = check_probe(call, source, tag, comm, c)) return rc;
    if (Runtime::get()->ghost && source != MPI_PROC_NULL) {
        std::optional<si::p2p::Completion> found;
        while (!(found = find_message(source, tag, *c))) {
        }
        fill_status(status, *found, true);
        return MPI_SUCCESS;
    }
    fill_status(status, Runtime::get()->engine->probe(source, tag, c->ref(), c->p2p_context()),
                true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
    Call call("MPI_Improbe");
    Communicator* c = nullptr;
    if (int rc = check_probe(call, source, tag, comm, c)) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    if (int rc = call.not_null(message, "message")) return rc;
    if (int rc = matched_probe_unsupported(call, source)) return rc;
    auto found = Runtime::get()->engine->improbe(source, tag, c->ref(), c->p2p_context());
    *flag = found.has_value();
    if (!found) return MPI_SUCCESS;
    *message = add_message(found->first, comm);
    fill_status(status, found->second, true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    Call call("MPI_Mprobe");
    Communicator* c = nullptr;
    if (int rc = check_probe(call, source, tag, comm, c)) return rc;
    if (int rc = call.not_null(message, "message")) return rc;
    if (int rc = matched_probe_unsupported(call, source)) return rc;
    const auto [found, completion] =
        Runtime::get()->engine->mprobe(source, tag, c->ref(), c->p2p_context());
    *message = add_message(found, comm);
    fill_status(status, completion, true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
    Call call("MPI_Mrecv");
    const si::datatype::Type* type = nullptr;
    Message* taken = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;
    if (int rc = take_message(call, buf, count, datatype, message, type, taken, comm)) return rc;
    return blocking("MPI_Mrecv", receive_message(taken, buf, count, *type, comm), status);
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
    Call call("MPI_Imrecv");
    if (int rc = call.not_null(request, "request")) return rc;
    const si::datatype::Type* type = nullptr;
    Message* taken = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;
    if (int rc = take_message(call, buf, count, datatype, message, type, taken, comm)) return rc;
    *request = handle_of(receive_message(taken, buf, count, *type, comm));
    return MPI_SUCCESS;
}

}  // extern "C"
