// Probes. MPI_Probe/Iprobe only look; the matched forms (MPI_Mprobe/Improbe)
// take the message out of the matching queue and name it with an
// MPI_Message handle, which only MPI_Mrecv/Imrecv can receive: another
// thread's receive can no longer take it in between.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

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

// Messages taken by matched probes (MPI_MESSAGE_NO_PROC, a predefined request
// handle in MPICH's ABI, is never in the table).
struct TakenMessage {
    Message* message = nullptr;
    std::int32_t ghost_message = 0;  // not 0: a ghost took it, under this number
    MPI_Comm comm = MPI_COMM_NULL;
    int handle = 0;              // set by the table
    const char* name = nullptr;  // unused
};

datatype::HandleTable<TakenMessage>& taken_messages() {
    static datatype::HandleTable<TakenMessage> instance(static_cast<int>(HandleKind::message), 1);
    return instance;
}

// 0 if the table is full.
MPI_Message add_message(const TakenMessage& taken) {
    if (taken.ghost_message == 0 && taken.message == p2p::Engine::kNoProcMessage)
        return MPI_MESSAGE_NO_PROC;
    return taken_messages().add(taken, [](int) { return std::string(); });
}

// Takes the message out; false if the handle names none.
bool take(MPI_Message handle, TakenMessage& out) {
    if (handle == MPI_MESSAGE_NO_PROC) {
        out = TakenMessage{p2p::Engine::kNoProcMessage, 0, MPI_COMM_SELF};
        return true;
    }
    const TakenMessage* taken = taken_messages().find(handle);
    if (taken == nullptr) return false;
    out = *taken;
    return taken_messages().remove(handle);
}

int check_probe(Call& call, int source, int tag, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.source(*c, source)) return rc;
    return call.receive_tag(tag);
}

// Whether a ghost matches this probe's messages (SI_PROGRESS=ghost).
bool ghost_matches(int source) { return Runtime::get()->ghost && source != MPI_PROC_NULL; }

// MPI_Improbe's search, by the engine or by the ghost.
std::optional<std::pair<TakenMessage, p2p::Completion>> take_if_there(int source, int tag,
                                                                      const Communicator& c,
                                                                      MPI_Comm comm) {
    Runtime& runtime = *Runtime::get();
    if (ghost_matches(source)) {
        auto found = runtime.ghost->improbe(source, tag, c.ref(), c.p2p_context());
        if (!found) return std::nullopt;
        return std::pair{TakenMessage{nullptr, found->first, comm}, found->second};
    }
    auto found = runtime.engine->improbe(source, tag, c.ref(), c.p2p_context());
    if (!found) return std::nullopt;
    return std::pair{TakenMessage{found->first, 0, comm}, found->second};
}

// MPI_Iprobe's search, by the engine or by the ghost that matches for us.
std::optional<p2p::Completion> find_message(int source, int tag, const Communicator& c) {
    Runtime& runtime = *Runtime::get();
    if (ghost_matches(source)) return runtime.ghost->iprobe(source, tag, c.ref(), c.p2p_context());
    return runtime.engine->iprobe(source, tag, c.ref(), c.p2p_context());
}

// Checks a matched receive's arguments and takes its message.
int take_message(Call& call, void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                 const datatype::Type*& type, TakenMessage& taken) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.message(buf, count, datatype, type)) return rc;
    if (int rc = call.not_null(message, "message")) return rc;
    if (!take(*message, taken))
        return call.fail(MPI_ERR_REQUEST,
                         "message = {:#x} names no message of a matched probe ({})", *message,
                         *message == MPI_MESSAGE_NULL ? "it is MPI_MESSAGE_NULL"
                                                      : "received already, or not a message");
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

p2p::Request* receive_message(const TakenMessage& taken, void* buf, int count,
                              const datatype::Type& type) {
    Runtime& runtime = *Runtime::get();
    const bool ghost = taken.ghost_message != 0;
    const Streaming streaming = !ghost && runtime.engine->streams_with(p2p::kAnySource)
                                    ? Streaming::allowed
                                    : Streaming::no;
    Incoming room(buf, count, type, false, streaming);
    p2p::Request* request =
        ghost ? runtime.ghost->imrecv(taken.ghost_message, room.data(), room.capacity(),
                                      room.unpack_when_received())
              : runtime.engine->imrecv(taken.message, room.data(), room.capacity(),
                                       room.unpack_when_received());
    request->owner = taken.comm;
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
    auto found = take_if_there(source, tag, *c, comm);
    *flag = found.has_value();
    if (!found) return MPI_SUCCESS;
    *message = add_message(found->first);
    fill_status(status, found->second, true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    Call call("MPI_Mprobe");
    Communicator* c = nullptr;
    if (int rc = check_probe(call, source, tag, comm, c)) return rc;
    if (int rc = call.not_null(message, "message")) return rc;
    if (ghost_matches(source)) {
        std::optional<std::pair<TakenMessage, si::p2p::Completion>> found;
        while (!(found = take_if_there(source, tag, *c, comm))) {
        }
        *message = add_message(found->first);
        fill_status(status, found->second, true);
        return MPI_SUCCESS;
    }
    const auto [found, completion] =
        Runtime::get()->engine->mprobe(source, tag, c->ref(), c->p2p_context());
    *message = add_message(TakenMessage{found, 0, comm});
    fill_status(status, completion, true);
    return MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
    Call call("MPI_Mrecv");
    const si::datatype::Type* type = nullptr;
    TakenMessage taken;
    if (int rc = take_message(call, buf, count, datatype, message, type, taken)) return rc;
    return blocking("MPI_Mrecv", receive_message(taken, buf, count, *type), status);
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
    Call call("MPI_Imrecv");
    if (int rc = call.not_null(request, "request")) return rc;
    const si::datatype::Type* type = nullptr;
    TakenMessage taken;
    if (int rc = take_message(call, buf, count, datatype, message, type, taken)) return rc;
    *request = handle_of(receive_message(taken, buf, count, *type));
    return MPI_SUCCESS;
}

}  // extern "C"
