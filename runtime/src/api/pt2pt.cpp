// Point-to-point entry points: argument checks, then the p2p engine.
#include "api/pt2pt.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "api/errors.hpp"
#include "api/packing.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "api/status.hpp"

namespace si::api {

// Ranks and tags reach the engine as the program gave them.
static_assert(MPI_PROC_NULL == p2p::kProcNull && MPI_ANY_SOURCE == p2p::kAnySource &&
              MPI_ANY_TAG == p2p::kAnyTag);

// The checks every send shares; fills comm and type on success.
int check_send(Call& call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, Communicator*& c, const datatype::Type*& type) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.message(buf, count, datatype, type)) return rc;
    if (int rc = call.destination(*c, dest)) return rc;
    return call.send_tag(tag);
}

int check_receive(Call& call, const void* buf, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, Communicator*& c, const datatype::Type*& type) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.message(buf, count, datatype, type)) return rc;
    if (int rc = call.source(*c, source)) return rc;
    return call.receive_tag(tag);
}

namespace {

// The routing of post_send and post_receive, inlined into start_send and
// start_receive: a call per message is measurable at 8 B.
// `share_if_sent`: p2p::Engine::isend's.
[[gnu::always_inline]] inline p2p::Request* route_send(const Communicator& c, const void* data,
                                                       std::size_t bytes, int dest, int tag,
                                                       p2p::SendMode mode,
                                                       std::unique_ptr<p2p::CompletionHook>&& hook,
                                                       bool share_if_sent = false) {
    Runtime& runtime = *Runtime::get();
    if (runtime.ghost && dest != MPI_PROC_NULL) [[unlikely]]
        return runtime.ghost->isend(data, bytes, dest, tag, c.ref(), c.send_context(), mode,
                                    std::move(hook));
    return runtime.engine->isend(data, bytes, dest, tag, c.ref(), c.send_context(), mode,
                                 std::move(hook), share_if_sent);
}

[[gnu::always_inline]] inline p2p::Request* route_receive(
    const Communicator& c, void* buffer, std::size_t capacity, int source, int tag, bool blocking,
    std::unique_ptr<p2p::CompletionHook>&& hook) {
    Runtime& runtime = *Runtime::get();
    if (runtime.ghost && source != MPI_PROC_NULL) [[unlikely]]
        return runtime.ghost->irecv(buffer, capacity, source, tag, c.ref(), c.p2p_context(),
                                    std::move(hook));
    return runtime.engine->irecv(buffer, capacity, source, tag, c.ref(), c.p2p_context(), blocking,
                                 std::move(hook));
}

// The common case of a point-to-point call, whose arguments need no check
// beyond these: a runtime without ghosts, an intracommunicator, a contiguous
// predefined datatype, a count and buffer that go together. Anything else,
// errors included, takes the general path (start_send, start_receive), which
// checks every argument and reports.
struct PlainMessage {
    p2p::Engine* engine;
    const Communicator* comm;
    void* data;
    std::size_t bytes;
};

[[gnu::always_inline]] inline bool plain_message(const void* buf, int count, MPI_Datatype datatype,
                                                 MPI_Comm comm, PlainMessage& out) {
    const Runtime* runtime = Runtime::get();
    if (runtime == nullptr || runtime->ghost) [[unlikely]]
        return false;
    const datatype::Type* type = datatype::find_predefined(datatype);
    const Communicator* c = runtime->communicators.find(comm);
    if (type == nullptr || c == nullptr || !type->contiguous || c->inter() || count < 0 ||
        (buf == nullptr && count != 0))
        return false;
    out = PlainMessage{runtime->engine.get(), c, const_cast<void*>(message_data(buf, count, *type)),
                       type->bytes(static_cast<std::size_t>(count))};
    return true;
}

[[gnu::always_inline]] inline bool plain_send(const void* buf, int count, MPI_Datatype datatype,
                                              int dest, int tag, MPI_Comm comm, PlainMessage& out) {
    return plain_message(buf, count, datatype, comm, out) && dest >= 0 && dest < out.comm->size() &&
           tag >= 0 && tag <= tag_rules().upper_bound;
}

[[gnu::always_inline]] inline bool plain_receive(void* buf, int count, MPI_Datatype datatype,
                                                 int source, int tag, MPI_Comm comm,
                                                 PlainMessage& out) {
    if (!plain_message(buf, count, datatype, comm, out)) return false;
    const TagRules& rules = tag_rules();
    return ((source >= 0 && source < out.comm->size()) || source == MPI_ANY_SOURCE) &&
           ((tag >= 0 && tag <= rules.upper_bound) || (tag == MPI_ANY_TAG && rules.any_tag));
}

[[gnu::always_inline]] inline p2p::Request* isend_plain(const PlainMessage& m, int dest, int tag,
                                                        MPI_Comm comm) {
    p2p::Request* request = m.engine->isend(m.data, m.bytes, dest, tag, m.comm->ref(),
                                            m.comm->send_context(), p2p::SendMode::standard);
    request->owner = comm;
    return request;
}

// A standard send of a plain message: nullptr if it left at once, as most
// eager ones do (p2p::Engine::send_at_once).
[[gnu::always_inline]] inline p2p::Request* send_plain(const PlainMessage& m, int dest, int tag,
                                                       MPI_Comm comm) {
    const p2p::Tuple tuple{p2p::MessageKind::eager, m.comm->send_context(), m.comm->rank, tag};
    const int peer = m.comm->world_of[dest];
    if (m.engine->eager_to(peer, m.bytes) && m.engine->send_at_once(m.data, m.bytes, peer, tuple))
        return nullptr;
    return isend_plain(m, dest, tag, comm);
}

}  // namespace

p2p::Request* post_send(const Communicator& c, const void* data, std::size_t bytes, int dest,
                        int tag, p2p::SendMode mode, std::unique_ptr<p2p::CompletionHook>&& hook) {
    return route_send(c, data, bytes, dest, tag, mode, std::move(hook));
}

p2p::Request* post_receive(const Communicator& c, void* buffer, std::size_t capacity, int source,
                           int tag, bool blocking, std::unique_ptr<p2p::CompletionHook>&& hook) {
    return route_receive(c, buffer, capacity, source, tag, blocking, std::move(hook));
}

// A ghost copies a message whole, after it was posted: nothing streams.
transport::Transport* streaming_to(const Communicator& c, int dest, const datatype::Type& type,
                                   int count, bool blocking) {
    if ((type.contiguous && !blocking) || dest == MPI_PROC_NULL || Runtime::get()->ghost)
        return nullptr;
    p2p::Engine& engine = *Runtime::get()->engine;
    const int peer = c.ref().world_of[dest];
    if (type.bytes(static_cast<std::size_t>(count)) <= engine.eager_limit(peer)) return nullptr;
    return engine.streams_with(peer) ? &engine.transport_to(peer) : nullptr;
}

Streaming streaming_from(const Communicator& c, int source, const datatype::Type& type) {
    if (type.contiguous || source == MPI_PROC_NULL || Runtime::get()->ghost) return Streaming::no;
    const p2p::Engine& engine = *Runtime::get()->engine;
    const int world = source == MPI_ANY_SOURCE ? p2p::kAnySource : c.ref().world_of[source];
    return engine.streams_with(world) ? Streaming::allowed : Streaming::no;
}

int start_send(const char* function, const void* buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, p2p::SendMode mode, p2p::Request*& out, bool blocking) {
    Call call(function);
    Communicator* c = nullptr;
    const datatype::Type* type = nullptr;
    if (int rc = check_send(call, buf, count, datatype, dest, tag, comm, c, type)) return rc;
    transport::Transport* const through = streaming_to(*c, dest, *type, count, blocking);
    if (type->contiguous && through != nullptr) {
        Outgoing message(message_data(buf, count, *type), type->bytes(count), *through);
        out = post_send(*c, message.data(), message.bytes(), dest, tag, mode,
                        message.keep_until_sent());
        message.pack_while_sent();
    } else if (type->contiguous) {
        // The common case costs no Outgoing: the data is the user's memory,
        // and a message that leaves at once no request of its own.
        out = route_send(*c, message_data(buf, count, *type), type->bytes(count), dest, tag, mode,
                         nullptr, true);
        if (out == Runtime::get()->engine->sent_at_once()) return MPI_SUCCESS;
    } else {
        Outgoing message(buf, count, *type, through);
        out = post_send(*c, message.data(), message.bytes(), dest, tag, mode,
                        message.keep_until_sent());
        message.pack_while_sent();
    }
    out->owner = comm;
    return MPI_SUCCESS;
}

int start_receive(const char* function, void* buf, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, bool blocking, p2p::Request*& out) {
    Call call(function);
    Communicator* c = nullptr;
    const datatype::Type* type = nullptr;
    if (int rc = check_receive(call, buf, count, datatype, source, tag, comm, c, type)) return rc;
    if (type->contiguous) {
        // The common case costs no Incoming: the data lands in the user's memory.
        out = route_receive(*c, message_data(buf, count, *type), type->bytes(count), source, tag,
                            blocking, nullptr);
    } else {
        Incoming room(buf, count, *type, false, streaming_from(*c, source, *type));
        out = post_receive(*c, room.data(), room.capacity(), source, tag, blocking,
                           room.unpack_when_received());
    }
    out->owner = comm;
    return MPI_SUCCESS;
}

// The checks MPI_Get_count and MPI_Get_elements(_x) share.
static int check_status_query(Call& call, const MPI_Status* status, const void* count,
                              MPI_Datatype datatype, const datatype::Type*& type) {
    if (int rc = call.not_null(status, "status")) return rc;
    if (int rc = call.not_null(count, "count")) return rc;
    return call.datatype(datatype, type);
}

// MPI_Status_set_elements(_x): the bytes `count` basic elements take.
static int set_elements(Call& call, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    if (int rc = call.not_null(status, "status")) return rc;
    const datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    if (count < 0) return call.fail(MPI_ERR_COUNT, "count is {}; it must be 0 or more", count);
    set_status_count(*status, datatype::bytes_for_elements(*type, static_cast<std::size_t>(count)));
    return MPI_SUCCESS;
}

int blocking(const char* function, p2p::Request* request, MPI_Status* status) {
    Runtime::get()->engine->wait(request);
    return finish_request(function, request, status);
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    // A rendezvous goes the long way, which may copy it through staging memory.
    if (PlainMessage m; plain_send(buf, count, datatype, dest, tag, comm, m)) [[likely]] {
        const int peer = m.comm->world_of[dest];
        if (m.engine->eager_to(peer, m.bytes)) [[likely]] {
            const si::p2p::Tuple tuple{si::p2p::MessageKind::eager, m.comm->send_context(),
                                       m.comm->rank, tag};
            if (m.engine->send_at_once(m.data, m.bytes, peer, tuple)) return MPI_SUCCESS;
            return blocking("MPI_Send", isend_plain(m, dest, tag, comm), MPI_STATUS_IGNORE);
        }
    }
    si::p2p::Request* request = nullptr;
    if (int rc = start_send("MPI_Send", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::standard, request, true))
        return rc;
    return blocking("MPI_Send", request, MPI_STATUS_IGNORE);
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
    si::p2p::Request* request = nullptr;
    if (int rc = start_send("MPI_Ssend", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::synchronous, request, true))
        return rc;
    return blocking("MPI_Ssend", request, MPI_STATUS_IGNORE);
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    if (PlainMessage m; request != nullptr && plain_send(buf, count, datatype, dest, tag, comm, m))
        [[likely]] {
        const si::p2p::Request* started = send_plain(m, dest, tag, comm);
        *request = handle_of(started == nullptr ? m.engine->sent_at_once() : started);
        return MPI_SUCCESS;
    }
    Call call("MPI_Isend");
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* started = nullptr;
    if (int rc = start_send("MPI_Isend", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::standard, started))
        return rc;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    Call call("MPI_Issend");
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* started = nullptr;
    if (int rc = start_send("MPI_Issend", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::synchronous, started))
        return rc;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
    if (PlainMessage m; plain_receive(buf, count, datatype, source, tag, comm, m)) [[likely]] {
        const si::p2p::Completion result =
            m.engine->receive(m.data, m.bytes, source, tag, m.comm->ref(), m.comm->p2p_context());
        fill_status(status, result, true);
        return result.error == MPI_SUCCESS ? MPI_SUCCESS
                                           : report_failed("MPI_Recv", comm, result.error);
    }
    si::p2p::Request* request = nullptr;
    if (int rc = start_receive("MPI_Recv", buf, count, datatype, source, tag, comm, true, request))
        return rc;
    return blocking("MPI_Recv", request, status);
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
    if (PlainMessage m; request != nullptr &&
                        plain_receive(buf, count, datatype, source, tag, comm, m)) [[likely]] {
        si::p2p::Request* started =
            m.engine->irecv(m.data, m.bytes, source, tag, m.comm->ref(), m.comm->p2p_context());
        started->owner = comm;
        *request = handle_of(started);
        return MPI_SUCCESS;
    }
    Call call("MPI_Irecv");
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* started = nullptr;
    if (int rc = start_receive("MPI_Irecv", buf, count, datatype, source, tag, comm, false, started))
        return rc;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
    // Check everything before starting anything, so an error leaves nothing posted.
    Call call("MPI_Sendrecv");
    Communicator* c = nullptr;
    const si::datatype::Type* stype = nullptr;
    const si::datatype::Type* rtype = nullptr;
    if (int rc = check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, c, stype))
        return rc;
    if (int rc = check_receive(call, recvbuf, recvcount, recvtype, source, recvtag, comm, c, rtype))
        return rc;
    si::p2p::Engine& engine = *Runtime::get()->engine;
    // Receive first: a peer doing the same then finds its message expected.
    Incoming room(recvbuf, recvcount, *rtype, false, streaming_from(*c, source, *rtype));
    si::p2p::Request* receive = post_receive(*c, room.data(), room.capacity(), source, recvtag,
                                             true, room.unpack_when_received());
    si::transport::Transport* const through = streaming_to(*c, dest, *stype, sendcount, true);
    Outgoing message = stype->contiguous && through != nullptr
                           ? Outgoing(message_data(sendbuf, sendcount, *stype),
                                      stype->bytes(sendcount), *through)
                           : Outgoing(sendbuf, sendcount, *stype, through);
    si::p2p::Request* send = post_send(*c, message.data(), message.bytes(), dest, sendtag,
                                       si::p2p::SendMode::standard, message.keep_until_sent());
    receive->owner = send->owner = comm;
    message.pack_while_sent();
    engine.wait(send);
    engine.wait(receive);
    const int send_rc = finish_request("MPI_Sendrecv", send, MPI_STATUS_IGNORE);
    const int receive_rc = finish_request("MPI_Sendrecv", receive, status);
    return send_rc != MPI_SUCCESS ? send_rc : receive_rc;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
    Call call("MPI_Sendrecv_replace");
    Communicator* c = nullptr;
    const si::datatype::Type* type = nullptr;
    if (int rc = check_send(call, buf, count, datatype, dest, sendtag, comm, c, type)) return rc;
    if (int rc = check_receive(call, buf, count, datatype, source, recvtag, comm, c, type))
        return rc;
    // The message arrives in a packed copy while the original is being sent
    // (from a packed copy too, for a non-contiguous type).
    Outgoing message(buf, count, *type);
    const std::size_t bytes = type->bytes(static_cast<std::size_t>(count));
    auto incoming = std::make_unique_for_overwrite<std::byte[]>(bytes);
    si::p2p::Engine& engine = *Runtime::get()->engine;
    si::p2p::Request* receive = post_receive(*c, incoming.get(), bytes, source, recvtag, true);
    si::p2p::Request* send = post_send(*c, message.data(), bytes, dest, sendtag,
                                       si::p2p::SendMode::standard, message.keep_until_sent());
    receive->owner = send->owner = comm;
    engine.wait(send);
    engine.wait(receive);
    const std::size_t received = receive->result.bytes;
    const int send_rc = finish_request("MPI_Sendrecv_replace", send, MPI_STATUS_IGNORE);
    const int receive_rc = finish_request("MPI_Sendrecv_replace", receive, status);
    si::datatype::unpack(*type, incoming.get(), std::min(received, bytes), buf);
    return send_rc != MPI_SUCCESS ? send_rc : receive_rc;
}

// Ready mode promises that the receive is posted; a standard send honours
// that promise as well (MPICH does the same on shared memory).
#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
    si::p2p::Request* request = nullptr;
    if (int rc = start_send("MPI_Rsend", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::standard, request, true))
        return rc;
    return blocking("MPI_Rsend", request, MPI_STATUS_IGNORE);
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Irsend");
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* started = nullptr;
    if (int rc = start_send("MPI_Irsend", buf, count, datatype, dest, tag, comm,
                            si::p2p::SendMode::standard, started))
        return rc;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    Call call("MPI_Get_count");
    const si::datatype::Type* type = nullptr;
    if (int rc = check_status_query(call, status, count, datatype, type)) return rc;
    // Whole items of the packed size, or MPI_UNDEFINED.
    const auto bytes = static_cast<std::size_t>(si::api::status_count(*status));
    if (type->packed == 0) {
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    const std::size_t items = bytes / type->packed;
    *count = bytes % type->packed == 0 && items <= INT32_MAX ? static_cast<int>(items)
                                                           : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    Call call("MPI_Get_elements");
    const si::datatype::Type* type = nullptr;
    if (int rc = check_status_query(call, status, count, datatype, type)) return rc;
    const std::size_t elements =
        si::datatype::elements_in(*type, static_cast<std::size_t>(si::api::status_count(*status)));
    *count = elements <= INT32_MAX ? static_cast<int>(elements) : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    Call call("MPI_Get_elements_x");
    const si::datatype::Type* type = nullptr;
    if (int rc = check_status_query(call, status, count, datatype, type)) return rc;
    *count = static_cast<MPI_Count>(
        si::datatype::elements_in(*type, static_cast<std::size_t>(si::api::status_count(*status))));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    Call call("MPI_Status_set_elements_x");
    return set_elements(call, status, datatype, count);
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
    Call call("MPI_Status_set_elements");
    return set_elements(call, status, datatype, count);
}

}  // extern "C"
