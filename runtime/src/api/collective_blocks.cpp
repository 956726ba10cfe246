// The collectives that move one block per rank: gather, scatter, allgather
// and alltoall, with equal blocks (packed once as one message of size * count
// items) and with the per-rank counts, displacements and, for MPI_Alltoallw,
// datatypes of the v and w forms (each block packed on its own, see
// BlockBuffer). On an intercommunicator the blocks are the remote group's
// (Communicator::peers), and gather and scatter go to intercomm_collective.cpp.
#include <optional>
#include <vector>

#include "api/collective_args.hpp"
#include "api/runtime.hpp"

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;
using Layout = BlockBuffer::Layout;

namespace {

constexpr VectorNames kSendNames{"sendbuf", "sendcounts", "displs", "sendtype", "for recvbuf only"};
constexpr VectorNames kRecvNames{"recvbuf", "recvcounts", "displs", "recvtype", "for sendbuf only"};
constexpr VectorNames kSendNamesAll{"sendbuf", "sendcounts", "sdispls", "sendtype", ""};
constexpr VectorNames kRecvNamesAll{"recvbuf", "recvcounts", "rdispls", "recvtype",
                                    "for sendbuf only"};
constexpr VectorNames kSendNamesW{"sendbuf", "sendcounts", "sdispls", "sendtypes", ""};
constexpr VectorNames kRecvNamesW{"recvbuf", "recvcounts", "rdispls", "recvtypes",
                                  "for sendbuf only"};

// The single message of a rank that is not the root of a gather or a scatter.
int root_only_in_place(Call& call, bool is_root, const void* buffer, const char* argument) {
    if (is_root) return MPI_SUCCESS;
    return refuse_in_place(call, buffer, argument, "at the root only");
}

// MPI_Alltoallv and MPI_Alltoallw once their layouts are known: an empty send
// layout means MPI_IN_PLACE.
int alltoall_blocks(Call& call, Communicator& c, const void* sendbuf,
                    const std::vector<Layout>& send, void* recvbuf,
                    const std::vector<Layout>& recv) {
    const bool in_place_send = send.empty();
    std::optional<BlockBuffer> outgoing;
    if (!in_place_send) outgoing.emplace(sendbuf, send, true);
    const BlockBuffer incoming(recvbuf, recv, in_place_send);
    std::string detail;
    const int rc = run_collective(c, detail, [&](const auto& ctx) {
        return coll::alltoall(ctx, in_place_send ? coll::Blocks{} : outgoing->blocks(),
                              incoming.blocks());
    });
    incoming.unpack();
    return finish_collective(call, rc, detail);
}

}  // namespace

namespace si::api {

int prepare_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, RootedBlocks& out) {
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    // At the root, MPI_IN_PLACE means its block is already in recvbuf and the
    // send arguments are ignored.
    out.in_place = is_root && in_place(sendbuf);
    if (int rc = root_only_in_place(call, is_root, sendbuf, "sendbuf")) return rc;
    if (!out.in_place)
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    if (is_root) {
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    }
    out.message = std::make_shared<const Outgoing>(out.in_place ? nullptr : sendbuf,
                                                   out.in_place ? 0 : items(sendcount),
                                                   out.in_place ? *rtype : *stype);
    if (is_root) {
        out.room = std::make_shared<const Incoming>(recvbuf, items(recvcount) * items(c.size()),
                                                    *rtype, out.in_place);
        out.blocks =
            coll::regular_blocks(out.room->data(), c.size(), rtype->bytes(items(recvcount)));
    }
    return MPI_SUCCESS;
}

int prepare_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, RootedBlocks& out) {
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    // At the root, MPI_IN_PLACE as recvbuf means its block stays in sendbuf.
    out.in_place = is_root && in_place(recvbuf);
    if (int rc = root_only_in_place(call, is_root, recvbuf, "recvbuf")) return rc;
    if (is_root) {
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "for recvbuf only")) return rc;
    }
    if (!out.in_place)
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
    out.message = std::make_shared<const Outgoing>(
        is_root ? sendbuf : nullptr, is_root ? items(sendcount) * items(c.size()) : 0,
        is_root ? *stype : *rtype);
    if (is_root)
        out.blocks = coll::regular_blocks(out.message->data(), c.size(),
                                          stype->bytes(items(sendcount)));
    if (!out.in_place)
        out.room = std::make_shared<const Incoming>(recvbuf, items(recvcount), *rtype);
    return MPI_SUCCESS;
}

}  // namespace si::api

extern "C" {

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Gather");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            root);
    RootedBlocks g;
    if (int rc = prepare_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, root, g))
        return rc;
    std::string detail;
    const int rc = coll::gather(collective_context(*c, &detail), g.gather_send(), g.message->bytes(),
                                g.blocks, root);
    if (g.room) g.room->unpack(g.room->capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
    Call call("MPI_Gatherv");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, root);
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    const bool skip_send = is_root && in_place(sendbuf);
    if (int rc = root_only_in_place(call, is_root, sendbuf, "sendbuf")) return rc;
    if (!skip_send)
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    std::vector<Layout> layout;
    if (is_root)
        if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c->size(),
                                   kRecvNames, layout))
            return rc;
    const Outgoing message(skip_send ? nullptr : sendbuf, skip_send ? 0 : items(sendcount),
                           skip_send ? *layout[0].type : *stype);
    const BlockBuffer room(recvbuf, layout, skip_send);
    std::string detail;
    const int rc =
        coll::gather(collective_context(*c, &detail), skip_send ? MPI_IN_PLACE : message.data(),
                     message.bytes(), room.blocks(), root);
    room.unpack();
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Scatter");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root);
    RootedBlocks g;
    if (int rc = prepare_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, g))
        return rc;
    std::string detail;
    const int rc = coll::scatter(collective_context(*c, &detail), g.blocks, g.scatter_receive(),
                                 g.room ? g.room->capacity() : 0, root);
    if (g.room) g.room->unpack(g.room->capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
    Call call("MPI_Scatterv");
    Communicator* c = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_scatterv(call, *c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                              recvtype, root);
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    const bool skip_receive = is_root && in_place(recvbuf);
    if (int rc = root_only_in_place(call, is_root, recvbuf, "recvbuf")) return rc;
    std::vector<Layout> layout;
    if (is_root)
        if (int rc = vector_layout(call, sendbuf, sendcounts, displs, sendtype, c->size(),
                                   kSendNames, layout))
            return rc;
    if (!skip_receive)
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
    const BlockBuffer message(sendbuf, layout, true);
    std::optional<Incoming> room;
    if (!skip_receive) room.emplace(recvbuf, items(recvcount), *rtype);
    std::string detail;
    const int rc = coll::scatter(collective_context(*c, &detail), message.blocks(),
                                 skip_receive ? MPI_IN_PLACE : room->data(),
                                 skip_receive ? 0 : room->capacity(), root);
    if (!skip_receive) room->unpack(room->capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Allgather");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    const bool skip_send = in_place(sendbuf);
    const Outgoing message(skip_send ? nullptr : sendbuf, skip_send ? 0 : items(sendcount),
                           skip_send ? *rtype : *stype);
    // One block from every rank, or on an intercommunicator every remote rank.
    Incoming room(recvbuf, items(recvcount) * items(c->peers()), *rtype, skip_send);
    const std::vector<coll::Block> blocks =
        coll::regular_blocks(room.data(), c->peers(), rtype->bytes(items(recvcount)));
    std::string detail;
    const int rc = run_collective(*c, detail, [&](const auto& ctx) {
        return coll::allgather(ctx, skip_send ? MPI_IN_PLACE : message.data(), message.bytes(),
                               blocks);
    });
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
    Call call("MPI_Allgatherv");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    const bool skip_send = in_place(sendbuf);
    if (!skip_send)
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    std::vector<Layout> layout;
    if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c->peers(), kRecvNames,
                               layout))
        return rc;
    const Outgoing message(skip_send ? nullptr : sendbuf, skip_send ? 0 : items(sendcount),
                           skip_send ? *layout[0].type : *stype);
    const BlockBuffer room(recvbuf, layout, skip_send);
    std::string detail;
    const int rc = run_collective(*c, detail, [&](const auto& ctx) {
        return coll::allgather(ctx, skip_send ? MPI_IN_PLACE : message.data(), message.bytes(),
                               room.blocks());
    });
    room.unpack();
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoall");
    Communicator* c = nullptr;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    const bool skip_send = in_place(sendbuf);
    // Every (remote) rank's block, packed one after the other.
    const int n = c->peers();
    const Outgoing message(skip_send ? nullptr : sendbuf,
                           skip_send ? 0 : items(sendcount) * items(n),
                           skip_send ? *rtype : *stype);
    Incoming room(recvbuf, items(recvcount) * items(n), *rtype, skip_send);
    std::vector<coll::Block> send_blocks;
    if (!skip_send)
        send_blocks = coll::regular_blocks(message.data(), n, stype->bytes(items(sendcount)));
    const std::vector<coll::Block> recv_blocks =
        coll::regular_blocks(room.data(), n, rtype->bytes(items(recvcount)));
    std::string detail;
    const int rc = run_collective(
        *c, detail, [&](const auto& ctx) { return coll::alltoall(ctx, send_blocks, recv_blocks); });
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoallv");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    std::vector<Layout> send;
    std::vector<Layout> recv;
    if (!in_place(sendbuf))
        if (int rc = vector_layout(call, sendbuf, sendcounts, sdispls, sendtype, c->peers(),
                                   kSendNamesAll, send))
            return rc;
    if (int rc = vector_layout(call, recvbuf, recvcounts, rdispls, recvtype, c->peers(),
                               kRecvNamesAll, recv))
        return rc;
    return alltoall_blocks(call, *c, sendbuf, send, recvbuf, recv);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    Call call("MPI_Alltoallw");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    std::vector<Layout> send;
    std::vector<Layout> recv;
    if (!in_place(sendbuf))
        if (int rc = w_layout(call, sendbuf, sendcounts, sdispls, sendtypes, c->peers(),
                              kSendNamesW, send))
            return rc;
    if (int rc =
            w_layout(call, recvbuf, recvcounts, rdispls, recvtypes, c->peers(), kRecvNamesW, recv))
        return rc;
    return alltoall_blocks(call, *c, sendbuf, send, recvbuf, recv);
}

}  // extern "C"
