// Collective entry points: argument checks (MPI_IN_PLACE only where the
// standard allows it, root-only arguments checked at the root only), then the
// collective layer, whose errors are reported with its description.
#include <optional>

#include "api/errors.hpp"
#include "api/packing.hpp"
#include "api/runtime.hpp"
#include "datatype/op.hpp"

namespace si::api {

namespace {

bool in_place(const void* buffer) { return buffer == MPI_IN_PLACE; }

int start(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    return call.communicator(comm, c);
}

int refuse_in_place(Call& call, const void* buffer, const char* argument, const char* where) {
    if (!in_place(buffer)) return MPI_SUCCESS;
    return call.fail(MPI_ERR_BUFFER, "{} is MPI_IN_PLACE, which is allowed {}", argument, where);
}

// Turns the collective layer's result into the call's result.
int finish(Call& call, int error_class, const std::string& detail) {
    if (error_class == MPI_SUCCESS) return MPI_SUCCESS;
    return call.fail(error_class, "{}", detail.empty() ? "the collective failed" : detail);
}

std::size_t items(int count) { return static_cast<std::size_t>(count); }

// The packed send data, or MPI_IN_PLACE passed through.
const void* data_or_in_place(const Outgoing& message, const void* sendbuf) {
    return in_place(sendbuf) ? MPI_IN_PLACE : message.data();
}

int reduce_arguments(Call& call, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, const datatype::Type*& type,
                     const datatype::Op*& reduction) {
    if (int rc = call.message(in_place(sendbuf) ? recvbuf : sendbuf, count, datatype, type,
                              in_place(sendbuf) ? "recvbuf" : "sendbuf"))
        return rc;
    return call.reduction(op, *type, reduction);
}

// Allgather and Alltoall: every rank sends and receives, and only sendbuf may be
// MPI_IN_PLACE.
int exchange_arguments(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const datatype::Type*& stype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, const datatype::Type*& rtype) {
    if (!in_place(sendbuf))
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                              "recvtype"))
        return rc;
    return refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only");
}

}  // namespace

}  // namespace si::api

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;

extern "C" {

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
    Call call("MPI_Barrier");
    Communicator* c = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    std::string detail;
    return finish(call, coll::barrier(collective_context(*c, &detail)), detail);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    Call call("MPI_Bcast");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
    if (int rc = call.root(*c, root)) return rc;
    if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
    const bool is_root = c->rank == root;
    Incoming room(buffer, items(count), *type, is_root);
    std::string detail;
    const int rc =
        coll::bcast(collective_context(*c, &detail), room.data(), room.capacity(), root);
    if (!is_root) room.unpack(room.capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
    Call call("MPI_Reduce");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    if (!is_root)
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "at the root only")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    if (is_root) {
        if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    }
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(count), *type);
    std::optional<Incoming> room;
    if (is_root) room.emplace(recvbuf, items(count), *type, in_place(sendbuf));
    std::string detail;
    const int rc = coll::reduce(collective_context(*c, &detail), data_or_in_place(message, sendbuf),
                                is_root ? room->data() : nullptr, count, *type, *reduction, root);
    if (is_root) room->unpack(room->capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
    Call call("MPI_Allreduce");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(count), *type);
    Incoming room(recvbuf, items(count), *type, in_place(sendbuf));
    std::string detail;
    const int rc = coll::allreduce(collective_context(*c, &detail),
                                   data_or_in_place(message, sendbuf), room.data(), count, *type,
                                   *reduction);
    room.unpack(room.capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Gather");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    // At the root, MPI_IN_PLACE means its block is already in recvbuf and the
    // send arguments are ignored.
    const bool skip_send = is_root && in_place(sendbuf);
    if (!is_root)
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "at the root only")) return rc;
    if (!skip_send)
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    if (is_root) {
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    }
    const Outgoing message(skip_send ? nullptr : sendbuf, skip_send ? 0 : items(sendcount),
                           skip_send ? *rtype : *stype);
    std::optional<Incoming> room;
    if (is_root) room.emplace(recvbuf, items(recvcount) * items(c->size()), *rtype, skip_send);
    std::string detail;
    const int rc = coll::gather(collective_context(*c, &detail), data_or_in_place(message, sendbuf),
                                message.bytes(), is_root ? room->data() : nullptr,
                                is_root ? rtype->bytes(items(recvcount)) : 0, root);
    if (is_root) room->unpack(room->capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Scatter");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    // At the root, MPI_IN_PLACE as recvbuf means its block stays in sendbuf.
    const bool skip_receive = is_root && in_place(recvbuf);
    if (!is_root)
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "at the root only")) return rc;
    if (is_root) {
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "for recvbuf only")) return rc;
    }
    if (!skip_receive)
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
    const Outgoing message(is_root ? sendbuf : nullptr,
                           is_root ? items(sendcount) * items(c->size()) : 0,
                           is_root ? *stype : *rtype);
    std::optional<Incoming> room;
    if (!skip_receive) room.emplace(recvbuf, items(recvcount), *rtype);
    std::string detail;
    const int rc = coll::scatter(collective_context(*c, &detail), message.data(),
                                 is_root ? stype->bytes(items(sendcount)) : 0,
                                 skip_receive ? MPI_IN_PLACE : room->data(),
                                 skip_receive ? 0 : room->capacity(), root);
    if (!skip_receive) room->unpack(room->capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Allgather");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf,
                                    recvcount, recvtype, rtype))
        return rc;
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(sendcount),
                           in_place(sendbuf) ? *rtype : *stype);
    Incoming room(recvbuf, items(recvcount) * items(c->size()), *rtype, in_place(sendbuf));
    std::string detail;
    const int rc = coll::allgather(collective_context(*c, &detail),
                                   data_or_in_place(message, sendbuf), message.bytes(),
                                   room.data(), rtype->bytes(items(recvcount)));
    room.unpack(room.capacity());
    return finish(call, rc, detail);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoall");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf,
                                    recvcount, recvtype, rtype))
        return rc;
    // Every rank's block, packed one after the other.
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(sendcount) * items(c->size()),
                           in_place(sendbuf) ? *rtype : *stype);
    Incoming room(recvbuf, items(recvcount) * items(c->size()), *rtype, in_place(sendbuf));
    std::string detail;
    const int rc = coll::alltoall(collective_context(*c, &detail),
                                  data_or_in_place(message, sendbuf),
                                  in_place(sendbuf) ? 0 : stype->bytes(items(sendcount)),
                                  room.data(), rtype->bytes(items(recvcount)));
    room.unpack(room.capacity());
    return finish(call, rc, detail);
}

}  // extern "C"
