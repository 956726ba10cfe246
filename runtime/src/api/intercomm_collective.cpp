// The rooted collectives on an intercommunicator: broadcast, reduce, gather
// and scatter with their v forms. The root passes MPI_ROOT, the rest of its
// group MPI_PROC_NULL (they take no part, and nothing else they pass is
// looked at), and the other group the root's rank in the root's group. The
// root's buffer holds one block per rank of the other group. MPI_IN_PLACE is
// refused wherever a buffer is significant, with MPI_ERR_BUFFER as MPICH
// does. The algorithms are in coll/intercomm.cpp; the collectives without a
// root run on intercommunicators from their own entry points
// (run_collective).
#include <optional>
#include <vector>

#include "api/collective_args.hpp"
#include "api/runtime.hpp"

namespace si::api {

namespace {

using datatype::Type;
using Layout = BlockBuffer::Layout;

// Where this process stands in a rooted collective.
enum class Role {
    root,
    idle,    // the rest of the root's group
    member,  // of the other group
};

int role_of(Call& call, const Communicator& c, int root, Role& role) {
    if (root == MPI_ROOT) {
        role = Role::root;
    } else if (root == MPI_PROC_NULL) {
        role = Role::idle;
    } else if (root >= 0 && root < c.peers()) {
        role = Role::member;
    } else {
        return call.fail(MPI_ERR_ROOT,
                         "invalid root {} on an intercommunicator: MPI_ROOT at the root, "
                         "MPI_PROC_NULL in the rest of its group, the root's rank (0..{}) in the "
                         "other group",
                         root, c.peers() - 1);
    }
    return MPI_SUCCESS;
}

constexpr VectorNames kRecvNames{"recvbuf", "recvcounts", "displs", "recvtype", kNowhereOnInter};
constexpr VectorNames kSendNames{"sendbuf", "sendcounts", "displs", "sendtype", kNowhereOnInter};

// The one buffer of a gather or scatter a process passes: the root's
// receive or send buffer of the plain forms, any other process's block.
int buffer_arguments(Call& call, const void* buffer, int count, MPI_Datatype datatype,
                     const Type*& type, bool send) {
    const char* b = send ? "sendbuf" : "recvbuf";
    if (int rc = refuse_in_place(call, buffer, b, kNowhereOnInter)) return rc;
    return call.message(buffer, count, datatype, type, b, send ? "sendcount" : "recvcount",
                        send ? "sendtype" : "recvtype");
}

// A gather at the root: the blocks of `blocks` from the other group's ranks.
int gather_at_root(Call& call, const Communicator& c, coll::Blocks blocks) {
    std::string detail;
    const int rc = coll::gather(inter_collective_context(c, &detail), nullptr, 0, blocks, MPI_ROOT);
    return finish_collective(call, rc, detail);
}

// A gather in the other group: one message to the root.
int gather_from_member(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                       MPI_Datatype sendtype, int root) {
    const Type* stype = nullptr;
    if (int rc = buffer_arguments(call, sendbuf, sendcount, sendtype, stype, true)) return rc;
    const Outgoing message(sendbuf, items(sendcount), *stype);
    std::string detail;
    const int rc = coll::gather(inter_collective_context(c, &detail), message.data(),
                                message.bytes(), coll::Blocks{}, root);
    return finish_collective(call, rc, detail);
}

// A scatter at the root: the blocks of `blocks` to the other group's ranks.
int scatter_from_root(Call& call, const Communicator& c, coll::Blocks blocks) {
    std::string detail;
    const int rc =
        coll::scatter(inter_collective_context(c, &detail), blocks, nullptr, 0, MPI_ROOT);
    return finish_collective(call, rc, detail);
}

// A scatter in the other group: one block from the root.
int scatter_to_member(Call& call, const Communicator& c, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root) {
    const Type* rtype = nullptr;
    if (int rc = buffer_arguments(call, recvbuf, recvcount, recvtype, rtype, false)) return rc;
    Incoming room(recvbuf, items(recvcount), *rtype);
    std::string detail;
    const int rc = coll::scatter(inter_collective_context(c, &detail), coll::Blocks{}, room.data(),
                                 room.capacity(), root);
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

}  // namespace

int inter_bcast(Call& call, const Communicator& c, void* buffer, int count, MPI_Datatype datatype,
                int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    const Type* type = nullptr;
    if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
    if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
    const bool is_root = role == Role::root;
    Incoming room(buffer, items(count), *type, is_root);
    std::string detail;
    const int rc =
        coll::bcast(inter_collective_context(c, &detail), room.data(), room.capacity(), root);
    if (!is_root) room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

int inter_reduce(Call& call, const Communicator& c, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    const Type* type = nullptr;
    const datatype::Op* reduction = nullptr;
    std::string detail;
    if (role == Role::root) {
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", kNowhereOnInter)) return rc;
        if (int rc = call.message(recvbuf, count, datatype, type, "recvbuf")) return rc;
        if (int rc = call.reduction(op, *type, reduction)) return rc;
        Incoming room(recvbuf, items(count), *type);
        const int rc = coll::reduce(inter_collective_context(c, &detail), nullptr, room.data(),
                                    count, *type, *reduction, MPI_ROOT);
        room.unpack(room.capacity());
        return finish_collective(call, rc, detail);
    }
    if (int rc = refuse_in_place(call, sendbuf, "sendbuf", kNowhereOnInter)) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    const Outgoing message(sendbuf, items(count), *type);
    const int rc = coll::reduce(inter_collective_context(c, &detail), message.data(), nullptr,
                                count, *type, *reduction, root);
    return finish_collective(call, rc, detail);
}

int inter_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    if (role == Role::member)
        return gather_from_member(call, c, sendbuf, sendcount, sendtype, root);
    const Type* rtype = nullptr;
    if (int rc = buffer_arguments(call, recvbuf, recvcount, recvtype, rtype, false)) return rc;
    Incoming room(recvbuf, items(recvcount) * items(c.peers()), *rtype);
    const int rc = gather_at_root(
        call, c, coll::regular_blocks(room.data(), c.peers(), rtype->bytes(items(recvcount))));
    room.unpack(room.capacity());
    return rc;
}

int inter_gatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    if (role == Role::member)
        return gather_from_member(call, c, sendbuf, sendcount, sendtype, root);
    std::vector<Layout> layout;
    if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c.peers(), kRecvNames,
                               layout))
        return rc;
    const BlockBuffer room(recvbuf, layout, false);
    const int rc = gather_at_root(call, c, room.blocks());
    room.unpack();
    return rc;
}

int inter_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    if (role == Role::member) return scatter_to_member(call, c, recvbuf, recvcount, recvtype, root);
    const Type* stype = nullptr;
    if (int rc = buffer_arguments(call, sendbuf, sendcount, sendtype, stype, true)) return rc;
    const Outgoing message(sendbuf, items(sendcount) * items(c.peers()), *stype);
    return scatter_from_root(
        call, c, coll::regular_blocks(message.data(), c.peers(), stype->bytes(items(sendcount))));
}

int inter_scatterv(Call& call, const Communicator& c, const void* sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    if (role == Role::idle) return MPI_SUCCESS;
    if (role == Role::member) return scatter_to_member(call, c, recvbuf, recvcount, recvtype, root);
    std::vector<Layout> layout;
    if (int rc = vector_layout(call, sendbuf, sendcounts, displs, sendtype, c.peers(), kSendNames,
                               layout))
        return rc;
    const BlockBuffer message(sendbuf, layout, true);
    return scatter_from_root(call, c, message.blocks());
}

}  // namespace si::api
