// Neighbourhood collectives on a communicator with a topology: every rank
// exchanges with its in- and out-neighbours only (topology.hpp gives their
// order). A block for or from MPI_PROC_NULL (off the edge of a non-periodic
// grid) is neither sent nor touched.
#include <optional>
#include <vector>

#include "api/collective_args.hpp"
#include "api/runtime.hpp"
#include "api/topology.hpp"

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;
using Layout = BlockBuffer::Layout;

namespace {

int start(Call& call, MPI_Comm comm, Communicator*& c, Neighborhood& n) {
    if (int rc = start_intra_collective(call, comm, c)) return rc;
    const Topology* t = nullptr;
    if (int rc = topology_of(call, *c, MPI_UNDEFINED, t)) return rc;
    n = neighborhood(*t, c->rank);
    return MPI_SUCCESS;
}

int degree(const std::vector<coll::Edge>& edges) {
    return static_cast<int>(edges.size());
}

int exchange(Call& call, Communicator& c, const Neighborhood& n, coll::Blocks send,
             coll::Blocks recv) {
    std::string detail;
    const int rc = coll::neighbor_exchange(collective_context(c, &detail), n.in, recv, n.out, send);
    return finish_collective(call, rc, detail);
}

int one_message(Call& call, const void* buffer, int count, MPI_Datatype datatype, const Type*& type,
                const char* prefix) {
    const std::string b = std::string(prefix) + "buf";
    const std::string n = std::string(prefix) + "count";
    const std::string t = std::string(prefix) + "type";
    if (int rc = call.message(buffer, count, datatype, type, b.c_str(), n.c_str(), t.c_str()))
        return rc;
    return refuse_in_place(call, buffer, b.c_str(), "in no neighbourhood collective");
}

constexpr VectorNames kSendNames{"sendbuf", "sendcounts", "sdispls", "sendtype",
                                 "in no neighbourhood collective"};
constexpr VectorNames kRecvNames{"recvbuf", "recvcounts", "rdispls", "recvtype",
                                 "in no neighbourhood collective"};
constexpr VectorNames kSendNamesW{"sendbuf", "sendcounts", "sdispls", "sendtypes",
                                  "in no neighbourhood collective"};
constexpr VectorNames kRecvNamesW{"recvbuf", "recvcounts", "rdispls", "recvtypes",
                                  "in no neighbourhood collective"};

// The v and w forms once their layouts are known.
int exchange_layouts(Call& call, Communicator& c, const Neighborhood& n, const void* sendbuf,
                     const std::vector<Layout>& send, void* recvbuf,
                     const std::vector<Layout>& recv) {
    const BlockBuffer outgoing(sendbuf, send, true);
    const BlockBuffer incoming(recvbuf, recv, false);
    const int rc = exchange(call, c, n, outgoing.blocks(), incoming.blocks());
    incoming.unpack();
    return rc;
}

}  // namespace

extern "C" {

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_allgather");
    Communicator* c = nullptr;
    Neighborhood n;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c, n)) return rc;
    if (int rc = one_message(call, sendbuf, sendcount, sendtype, stype, "send")) return rc;
    if (int rc = one_message(call, recvbuf, recvcount, recvtype, rtype, "recv")) return rc;
    const Outgoing message(sendbuf, items(sendcount), *stype);
    Incoming room(recvbuf, items(recvcount) * items(degree(n.in)), *rtype);
    const std::vector<coll::Block> send(
        n.out.size(), coll::Block{const_cast<void*>(message.data()), message.bytes()});
    const int rc =
        exchange(call, *c, n, send,
                 coll::regular_blocks(room.data(), degree(n.in), rtype->bytes(items(recvcount))));
    room.unpack(room.capacity());
    return rc;
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoall");
    Communicator* c = nullptr;
    Neighborhood n;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c, n)) return rc;
    if (int rc = one_message(call, sendbuf, sendcount, sendtype, stype, "send")) return rc;
    if (int rc = one_message(call, recvbuf, recvcount, recvtype, rtype, "recv")) return rc;
    const Outgoing message(sendbuf, items(sendcount) * items(degree(n.out)), *stype);
    Incoming room(recvbuf, items(recvcount) * items(degree(n.in)), *rtype);
    const int rc = exchange(
        call, *c, n,
        coll::regular_blocks(message.data(), degree(n.out), stype->bytes(items(sendcount))),
        coll::regular_blocks(room.data(), degree(n.in), rtype->bytes(items(recvcount))));
    room.unpack(room.capacity());
    return rc;
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_allgatherv");
    Communicator* c = nullptr;
    Neighborhood n;
    const Type* stype = nullptr;
    if (int rc = start(call, comm, c, n)) return rc;
    if (int rc = one_message(call, sendbuf, sendcount, sendtype, stype, "send")) return rc;
    std::vector<Layout> recv;
    if (int rc = vector_layout(call, recvbuf, recvcounts, displs, recvtype, degree(n.in),
                               kRecvNames, recv))
        return rc;
    const std::vector<Layout> send(n.out.size(), Layout{0, items(sendcount), stype});
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoallv");
    Communicator* c = nullptr;
    Neighborhood n;
    if (int rc = start(call, comm, c, n)) return rc;
    std::vector<Layout> send, recv;
    if (int rc = vector_layout(call, sendbuf, sendcounts, sdispls, sendtype, degree(n.out),
                               kSendNames, send))
        return rc;
    if (int rc = vector_layout(call, recvbuf, recvcounts, rdispls, recvtype, degree(n.in),
                               kRecvNames, recv))
        return rc;
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoallw");
    Communicator* c = nullptr;
    Neighborhood n;
    if (int rc = start(call, comm, c, n)) return rc;
    std::vector<Layout> send, recv;
    if (int rc = w_layout(call, sendbuf, sendcounts, sdispls, sendtypes, degree(n.out), kSendNamesW,
                          send))
        return rc;
    if (int rc = w_layout(call, recvbuf, recvcounts, rdispls, recvtypes, degree(n.in), kRecvNamesW,
                          recv))
        return rc;
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv);
}

}  // extern "C"
