// The checks and packing of the collectives that move one block per rank
// (collective_args.hpp: BlockArguments), shared by their blocking and
// nonblocking entry points (collective_blocks.cpp). Equal blocks are packed as
// one message of n * count items; the v and w forms pack each block on its own
// (BlockBuffer). Gather and scatter reach here on intracommunicators only;
// allgather and alltoall on both kinds (their blocks are then the remote
// group's, Communicator::peers).
#include <vector>

#include "api/collective_args.hpp"

namespace si::api {

namespace {

using datatype::Type;
using Layout = BlockBuffer::Layout;

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

coll::BlockList copy_of(coll::Blocks blocks) {
    coll::BlockList list;
    list.assign(blocks.begin(), blocks.end());
    return list;
}

// The one message a gather's or allgather's rank sends: nothing with
// MPI_IN_PLACE, whose block is already where it belongs.
void pack_message(const void* sendbuf, int sendcount, const Type& type, BlockArguments& out) {
    out.message.emplace(out.in_place ? nullptr : sendbuf,
                                                   out.in_place ? 0 : items(sendcount), type);
}

// The send arguments of a gather or allgather unless MPI_IN_PLACE.
int check_send(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               const Type*& stype, bool skip) {
    if (skip) return MPI_SUCCESS;
    return call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount", "sendtype");
}

// The receive arguments of a scatter unless MPI_IN_PLACE.
int check_receive(Call& call, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  const Type*& rtype, bool skip) {
    if (skip) return MPI_SUCCESS;
    return call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount", "recvtype");
}

}  // namespace

void BlockArguments::unpack() const {
    if (room) room->unpack(room->capacity());
    if (arriving) arriving->unpack();
}

int prepare_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, BlockArguments& out) {
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    // At the root, MPI_IN_PLACE means its block is already in recvbuf and the
    // send arguments are ignored.
    out.in_place = is_root && in_place(sendbuf);
    if (int rc = root_only_in_place(call, is_root, sendbuf, "sendbuf")) return rc;
    if (int rc = check_send(call, sendbuf, sendcount, sendtype, stype, out.in_place)) return rc;
    if (is_root) {
        if (int rc = call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount",
                                  "recvtype"))
            return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
        out.room.emplace(recvbuf, items(recvcount) * items(c.size()),
                                                    *rtype, out.in_place);
        out.recv_blocks =
            coll::regular_blocks(out.room->data(), c.size(), rtype->bytes(items(recvcount)));
    }
    pack_message(sendbuf, sendcount, out.in_place ? *rtype : *stype, out);
    out.equal = true;
    return MPI_SUCCESS;
}

int prepare_gatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, int root, BlockArguments& out) {
    const Type* stype = nullptr;
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    out.in_place = is_root && in_place(sendbuf);
    if (int rc = root_only_in_place(call, is_root, sendbuf, "sendbuf")) return rc;
    if (int rc = check_send(call, sendbuf, sendcount, sendtype, stype, out.in_place)) return rc;
    if (is_root) {
        std::vector<Layout> layout;
        if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c.size(),
                                   kRecvNames, layout))
            return rc;
        out.arriving.emplace(recvbuf, layout, out.in_place);
        out.recv_blocks = copy_of(out.arriving->blocks());
        if (out.in_place) stype = layout[0].type;
    }
    pack_message(sendbuf, sendcount, *stype, out);
    return MPI_SUCCESS;
}

int prepare_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, BlockArguments& out) {
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
        out.message.emplace(sendbuf, items(sendcount) * items(c.size()), *stype);
        out.send_blocks = coll::regular_blocks(out.message->data(), c.size(),
                                               stype->bytes(items(sendcount)));
    }
    if (int rc = check_receive(call, recvbuf, recvcount, recvtype, rtype, out.in_place)) return rc;
    if (!out.in_place)
        out.room.emplace(recvbuf, items(recvcount), *rtype);
    out.equal = true;
    return MPI_SUCCESS;
}

int prepare_scatterv(Call& call, const Communicator& c, const void* sendbuf,
                     const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     BlockArguments& out) {
    const Type* rtype = nullptr;
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    out.in_place = is_root && in_place(recvbuf);
    if (int rc = root_only_in_place(call, is_root, recvbuf, "recvbuf")) return rc;
    if (is_root) {
        std::vector<Layout> layout;
        if (int rc = vector_layout(call, sendbuf, sendcounts, displs, sendtype, c.size(),
                                   kSendNames, layout))
            return rc;
        out.leaving.emplace(sendbuf, layout, true);
        out.send_blocks = copy_of(out.leaving->blocks());
    }
    if (int rc = check_receive(call, recvbuf, recvcount, recvtype, rtype, out.in_place)) return rc;
    if (!out.in_place)
        out.room.emplace(recvbuf, items(recvcount), *rtype);
    return MPI_SUCCESS;
}

int prepare_allgather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      BlockArguments& out) {
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    out.in_place = in_place(sendbuf);
    pack_message(sendbuf, sendcount, out.in_place ? *rtype : *stype, out);
    // One block from every rank, or on an intercommunicator every remote rank.
    out.room.emplace(recvbuf, items(recvcount) * items(c.peers()),
                                                *rtype, out.in_place);
    out.recv_blocks =
        coll::regular_blocks(out.room->data(), c.peers(), rtype->bytes(items(recvcount)));
    out.equal = true;
    return MPI_SUCCESS;
}

int prepare_allgatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, BlockArguments& out) {
    const Type* stype = nullptr;
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    out.in_place = in_place(sendbuf);
    if (int rc = check_send(call, sendbuf, sendcount, sendtype, stype, out.in_place)) return rc;
    std::vector<Layout> layout;
    if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, c.peers(), kRecvNames,
                               layout))
        return rc;
    out.arriving.emplace(recvbuf, layout, out.in_place);
    out.recv_blocks = copy_of(out.arriving->blocks());
    pack_message(sendbuf, sendcount, out.in_place ? *layout[0].type : *stype, out);
    return MPI_SUCCESS;
}

int prepare_alltoall(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     BlockArguments& out) {
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    out.in_place = in_place(sendbuf);
    // Every (remote) rank's block, packed one after the other.
    const int n = c.peers();
    if (!out.in_place) {
        out.message.emplace(sendbuf, items(sendcount) * items(n), *stype);
        out.send_blocks =
            coll::regular_blocks(out.message->data(), n, stype->bytes(items(sendcount)));
    }
    out.room.emplace(recvbuf, items(recvcount) * items(n), *rtype,
                                                out.in_place);
    out.recv_blocks = coll::regular_blocks(out.room->data(), n, rtype->bytes(items(recvcount)));
    out.equal = true;
    return MPI_SUCCESS;
}

namespace {

// MPI_Alltoallv and MPI_Alltoallw once their layouts are known: an empty send
// layout means MPI_IN_PLACE.
void alltoall_blocks(const void* sendbuf, const std::vector<Layout>& send, void* recvbuf,
                     const std::vector<Layout>& recv, BlockArguments& out) {
    out.in_place = in_place(sendbuf);
    if (!out.in_place) {
        out.leaving.emplace(sendbuf, send, true);
        out.send_blocks = copy_of(out.leaving->blocks());
    }
    out.arriving.emplace(recvbuf, recv, out.in_place);
    out.recv_blocks = copy_of(out.arriving->blocks());
}

}  // namespace

int prepare_alltoallv(Call& call, const Communicator& c, const void* sendbuf,
                      const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                      void* recvbuf, const int recvcounts[], const int rdispls[],
                      MPI_Datatype recvtype, BlockArguments& out) {
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    std::vector<Layout> send;
    std::vector<Layout> recv;
    if (!in_place(sendbuf))
        if (int rc = vector_layout(call, sendbuf, sendcounts, sdispls, sendtype, c.peers(),
                                   kSendNamesAll, send))
            return rc;
    if (int rc = vector_layout(call, recvbuf, recvcounts, rdispls, recvtype, c.peers(),
                               kRecvNamesAll, recv))
        return rc;
    alltoall_blocks(sendbuf, send, recvbuf, recv, out);
    return MPI_SUCCESS;
}

int prepare_alltoallw(Call& call, const Communicator& c, const void* sendbuf,
                      const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                      void* recvbuf, const int recvcounts[], const int rdispls[],
                      const MPI_Datatype recvtypes[], BlockArguments& out) {
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    std::vector<Layout> send;
    std::vector<Layout> recv;
    if (!in_place(sendbuf))
        if (int rc = w_layout(call, sendbuf, sendcounts, sdispls, sendtypes, c.peers(),
                              kSendNamesW, send))
            return rc;
    if (int rc =
            w_layout(call, recvbuf, recvcounts, rdispls, recvtypes, c.peers(), kRecvNamesW, recv))
        return rc;
    alltoall_blocks(sendbuf, send, recvbuf, recv, out);
    return MPI_SUCCESS;
}

}  // namespace si::api
