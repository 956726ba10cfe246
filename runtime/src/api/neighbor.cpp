// Neighbourhood collectives on a communicator with a topology: every rank
// exchanges with its in- and out-neighbours only (topology.hpp gives their
// order). A block for or from MPI_PROC_NULL (off the edge of a non-periodic
// grid) is neither sent nor touched. The blocking and the nonblocking form of
// each run the same one-round schedule (coll::add_neighbor_exchange).
#include <optional>
#include <vector>

#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
#include "api/runtime.hpp"
#include "api/topology.hpp"

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;
using Layout = BlockBuffer::Layout;

namespace {

int start(Call& call, MPI_Comm comm, Communicator*& c, Neighborhood& n) {
    if (int rc = call.initialized()) return rc;
    if (int rc = start_intra_collective(call, comm, c)) return rc;
    const Topology* t = nullptr;
    if (int rc = topology_of(call, *c, MPI_UNDEFINED, t)) return rc;
    n = neighborhood(*t, c->rank);
    return MPI_SUCCESS;
}

int degree(const std::vector<coll::Edge>& edges) {
    return static_cast<int>(edges.size());
}

// Runs (request null) or starts the exchange of a's blocks, which stay alive
// and are unpacked at the end.
int exchange(Call& call, Communicator& c, const Neighborhood& n, BlockArguments& a,
             MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::neighbor, a, request, [&](coll::Schedule& s) {
        coll::add_neighbor_exchange(s, n.in, a.recv_blocks, n.out, a.send_blocks);
    });
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
                     const std::vector<Layout>& recv, MPI_Request* request) {
    BlockArguments a;
    a.leaving.emplace(sendbuf, send, true);
    a.arriving.emplace(recvbuf, recv, false);
    const coll::Blocks out = a.leaving->blocks(), in = a.arriving->blocks();
    a.send_blocks.assign(out.begin(), out.end());
    a.recv_blocks.assign(in.begin(), in.end());
    return exchange(call, c, n, a, request);
}

int allgather(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request* request) {
    Call call(function);
    Communicator* c = nullptr;
    Neighborhood n;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c, n)) return rc;
    if (int rc = one_message(call, sendbuf, sendcount, sendtype, stype, "send")) return rc;
    if (int rc = one_message(call, recvbuf, recvcount, recvtype, rtype, "recv")) return rc;
    BlockArguments a;
    a.message.emplace(sendbuf, items(sendcount), *stype);
    a.room.emplace(recvbuf, items(recvcount) * items(degree(n.in)), *rtype);
    a.send_blocks.assign(n.out.size(), coll::Block{const_cast<void*>(a.message->data()),
                                                   a.message->bytes()});
    a.recv_blocks =
        coll::regular_blocks(a.room->data(), degree(n.in), rtype->bytes(items(recvcount)));
    return exchange(call, *c, n, a, request);
}

int alltoall(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request) {
    Call call(function);
    Communicator* c = nullptr;
    Neighborhood n;
    const Type* stype = nullptr;
    const Type* rtype = nullptr;
    if (int rc = start(call, comm, c, n)) return rc;
    if (int rc = one_message(call, sendbuf, sendcount, sendtype, stype, "send")) return rc;
    if (int rc = one_message(call, recvbuf, recvcount, recvtype, rtype, "recv")) return rc;
    BlockArguments a;
    a.message.emplace(sendbuf, items(sendcount) * items(degree(n.out)), *stype);
    a.room.emplace(recvbuf, items(recvcount) * items(degree(n.in)), *rtype);
    a.send_blocks =
        coll::regular_blocks(a.message->data(), degree(n.out), stype->bytes(items(sendcount)));
    a.recv_blocks =
        coll::regular_blocks(a.room->data(), degree(n.in), rtype->bytes(items(recvcount)));
    return exchange(call, *c, n, a, request);
}

int allgatherv(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm, MPI_Request* request) {
    Call call(function);
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
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv, request);
}

int alltoallv(const char* function, const void* sendbuf, const int sendcounts[],
              const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    Call call(function);
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
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv, request);
}

int alltoallw(const char* function, const void* sendbuf, const int sendcounts[],
              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
              const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
              MPI_Comm comm, MPI_Request* request) {
    Call call(function);
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
    return exchange_layouts(call, *c, n, sendbuf, send, recvbuf, recv, request);
}

}  // namespace

extern "C" {

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, nullptr);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
    if (request == nullptr) return Call("MPI_Ineighbor_allgather").not_null(request, "request");
    return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, nullptr);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
    if (request == nullptr) return Call("MPI_Ineighbor_alltoall").not_null(request, "request");
    return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, request);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, nullptr);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    if (request == nullptr) return Call("MPI_Ineighbor_allgatherv").not_null(request, "request");
    return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, nullptr);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
    if (request == nullptr) return Call("MPI_Ineighbor_alltoallv").not_null(request, "request");
    return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm) {
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, nullptr);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf,
                             const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request* request) {
    if (request == nullptr) return Call("MPI_Ineighbor_alltoallw").not_null(request, "request");
    return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, request);
}

}  // extern "C"
