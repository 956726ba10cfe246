// The rooted collectives on an intercommunicator, blocking and nonblocking:
// broadcast, reduce, gather and scatter with their v forms. The root passes
// MPI_ROOT, the rest of its group MPI_PROC_NULL (they take no part, and
// nothing else they pass is looked at), and the other group the root's rank
// in the root's group. The root's buffer holds one block per rank of the
// other group. MPI_IN_PLACE is refused wherever a buffer is significant, with
// MPI_ERR_BUFFER as MPICH does. Arguments are packed into BlockArguments, as
// for the intracommunicator gathers (block_arguments.cpp), and the schedules
// of coll/intercomm.hpp run or start from them (run_or_start). A process that
// takes no part still makes its (empty) schedule: a nonblocking one must
// count the communicator's tag ranges as the others do, and get a request.
// The collectives without a root run on intercommunicators from their own
// entry points.
#include <vector>

#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
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

// A gather in the other group: one message to the root.
int member_send(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                BlockArguments& a) {
    const Type* stype = nullptr;
    if (int rc = buffer_arguments(call, sendbuf, sendcount, sendtype, stype, true)) return rc;
    a.message.emplace(sendbuf, items(sendcount), *stype);
    return MPI_SUCCESS;
}

// A scatter in the other group: one block from the root.
int member_receive(Call& call, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   BlockArguments& a) {
    const Type* rtype = nullptr;
    if (int rc = buffer_arguments(call, recvbuf, recvcount, recvtype, rtype, false)) return rc;
    a.room.emplace(recvbuf, items(recvcount), *rtype);
    return MPI_SUCCESS;
}

// The one message this process sends, and the one buffer it receives into,
// if any (the rest of the root's group has neither).
const void* sent(const BlockArguments& a) {
    return a.message ? a.message->data() : nullptr;
}
std::size_t sent_bytes(const BlockArguments& a) {
    return a.message ? a.message->bytes() : 0;
}
void* room(const BlockArguments& a) {
    return a.room ? a.room->data() : nullptr;
}
std::size_t room_bytes(const BlockArguments& a) {
    return a.room ? a.room->capacity() : 0;
}

int gather(Call& call, Communicator& c, BlockArguments& a, int root, MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::gather, a, request, [&](coll::Schedule& s) {
        coll::add_inter_gather(s, sent(a), sent_bytes(a), a.recv_blocks, root);
    });
}

int scatter(Call& call, Communicator& c, BlockArguments& a, int root, MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::scatter, a, request, [&](coll::Schedule& s) {
        coll::add_inter_scatter(s, a.send_blocks, room(a), room_bytes(a), root);
    });
}

}  // namespace

int inter_bcast(Call& call, Communicator& c, void* buffer, int count, MPI_Datatype datatype,
                int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    BlockArguments a;
    if (role != Role::idle) {
        const Type* type = nullptr;
        if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
        if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
        // The root only sends: its data travels packed and nothing comes back.
        if (role == Role::root)
            a.message.emplace(buffer, items(count), *type);
        else
            a.room.emplace(buffer, items(count), *type);
    }
    return run_or_start(call, c, coll::Tag::bcast, a, request, [&](coll::Schedule& s) {
        void* data = role == Role::root ? const_cast<void*>(sent(a)) : room(a);
        coll::add_inter_bcast(s, data, role == Role::root ? sent_bytes(a) : room_bytes(a), root);
    });
}

int inter_reduce(Call& call, Communicator& c, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    const Type* type = nullptr;
    const datatype::Op* reduction = nullptr;
    BlockArguments a;
    if (role == Role::root) {
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", kNowhereOnInter)) return rc;
        if (int rc = call.message(recvbuf, count, datatype, type, "recvbuf")) return rc;
        if (int rc = call.reduction(op, *type, reduction)) return rc;
        a.room.emplace(recvbuf, items(count), *type);
    } else if (role == Role::member) {
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", kNowhereOnInter)) return rc;
        if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
            return rc;
        a.message.emplace(sendbuf, items(count), *type);
    }
    return run_or_start(call, c, coll::Tag::reduce, a, request, [&](coll::Schedule& s) {
        if (role != Role::idle)
            coll::add_inter_reduce(s, sent(a), room(a), items(count), *type, *reduction, root);
    });
}

int inter_gather(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    BlockArguments a;
    if (role == Role::member) {
        if (int rc = member_send(call, sendbuf, sendcount, sendtype, a)) return rc;
    } else if (role == Role::root) {
        const Type* rtype = nullptr;
        if (int rc = buffer_arguments(call, recvbuf, recvcount, recvtype, rtype, false)) return rc;
        a.room.emplace(recvbuf, items(recvcount) * items(c.peers()), *rtype);
        a.recv_blocks =
            coll::regular_blocks(a.room->data(), c.peers(), rtype->bytes(items(recvcount)));
    }
    return gather(call, c, a, root, request);
}

int inter_gatherv(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    BlockArguments a;
    if (role == Role::member) {
        if (int rc = member_send(call, sendbuf, sendcount, sendtype, a)) return rc;
    } else if (role == Role::root) {
        std::vector<Layout> layout;
        if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c.peers(),
                                   kRecvNames, layout))
            return rc;
        a.arriving.emplace(recvbuf, layout, false);
        const coll::Blocks blocks = a.arriving->blocks();
        a.recv_blocks.assign(blocks.begin(), blocks.end());
    }
    return gather(call, c, a, root, request);
}

int inter_scatter(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    BlockArguments a;
    if (role == Role::member) {
        if (int rc = member_receive(call, recvbuf, recvcount, recvtype, a)) return rc;
    } else if (role == Role::root) {
        const Type* stype = nullptr;
        if (int rc = buffer_arguments(call, sendbuf, sendcount, sendtype, stype, true)) return rc;
        a.message.emplace(sendbuf, items(sendcount) * items(c.peers()), *stype);
        a.send_blocks =
            coll::regular_blocks(a.message->data(), c.peers(), stype->bytes(items(sendcount)));
    }
    return scatter(call, c, a, root, request);
}

int inter_scatterv(Call& call, Communicator& c, const void* sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Request* request) {
    Role role{};
    if (int rc = role_of(call, c, root, role)) return rc;
    BlockArguments a;
    if (role == Role::member) {
        if (int rc = member_receive(call, recvbuf, recvcount, recvtype, a)) return rc;
    } else if (role == Role::root) {
        std::vector<Layout> layout;
        if (int rc = vector_layout(call, sendbuf, sendcounts, displs, sendtype, c.peers(),
                                   kSendNames, layout))
            return rc;
        a.leaving.emplace(sendbuf, layout, true);
        const coll::Blocks blocks = a.leaving->blocks();
        a.send_blocks.assign(blocks.begin(), blocks.end());
    }
    return scatter(call, c, a, root, request);
}

}  // namespace si::api
