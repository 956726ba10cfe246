// The entry points of the collectives that move one block per rank, blocking
// and nonblocking side by side: gather, scatter, allgather, alltoall and their
// v and w forms. Both check and pack their arguments alike
// (block_arguments.cpp), then run the collective layer's schedule or start it
// (nonblocking.hpp: run_or_start). On an intercommunicator, gather and
// scatter go to intercomm_collective.cpp (their root means something else
// there) and allgather and alltoall run the layer's intercommunicator
// algorithms.
#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"

using namespace si::api;
namespace coll = si::coll;

namespace {

int gather(Call& call, Communicator& c, BlockArguments& a, int root, MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::gather, a, request, [&](coll::Schedule& s) {
        coll::add_gather(s, a.own_send(), a.own_send_bytes(), a.recv_blocks, root, a.equal);
    });
}

int scatter(Call& call, Communicator& c, BlockArguments& a, int root,
            MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::scatter, a, request, [&](coll::Schedule& s) {
        coll::add_scatter(s, a.send_blocks, a.own_receive(), a.own_receive_bytes(), root,
                          a.equal);
    });
}

int allgather(Call& call, Communicator& c, BlockArguments& a, MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::allgather, a, request, [&](coll::Schedule& s) {
        if (c.inter())
            coll::add_inter_allgather(s, a.own_send(), a.own_send_bytes(), a.recv_blocks);
        else
            coll::add_allgather(s, a.own_send(), a.own_send_bytes(), a.recv_blocks);
    });
}

int alltoall(Call& call, Communicator& c, BlockArguments& a, MPI_Request* request) {
    return run_or_start(call, c, coll::Tag::alltoall, a, request, [&](coll::Schedule& s) {
        if (c.inter())
            coll::add_inter_alltoall(s, a.send_blocks, a.recv_blocks);
        else
            coll::add_alltoall(s, a.send_blocks, a.recv_blocks, a.equal);
    });
}

}  // namespace

extern "C" {

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Gather");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            root, nullptr);
    BlockArguments a;
    if (int rc = prepare_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, root, a))
        return rc;
    return gather(call, *c, a, root, nullptr);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
    Call call("MPI_Igather");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter())
        return inter_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            root, request);
    BlockArguments a;
    if (int rc = prepare_gather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                recvtype, root, a))
        return rc;
    return gather(call, *c, a, root, request);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
    Call call("MPI_Gatherv");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, root, nullptr);
    BlockArguments a;
    if (int rc = prepare_gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                 displs, recvtype, root, a))
        return rc;
    return gather(call, *c, a, root, nullptr);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Igatherv");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter())
        return inter_gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, root, request);
    BlockArguments a;
    if (int rc = prepare_gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                 displs, recvtype, root, a))
        return rc;
    return gather(call, *c, a, root, request);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Scatter");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root, nullptr);
    BlockArguments a;
    if (int rc = prepare_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, a))
        return rc;
    return scatter(call, *c, a, root, nullptr);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
    Call call("MPI_Iscatter");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter())
        return inter_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root, request);
    BlockArguments a;
    if (int rc = prepare_scatter(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, a))
        return rc;
    return scatter(call, *c, a, root, request);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
    Call call("MPI_Scatterv");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_scatterv(call, *c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                              recvtype, root, nullptr);
    BlockArguments a;
    if (int rc = prepare_scatterv(call, *c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                  recvcount, recvtype, root, a))
        return rc;
    return scatter(call, *c, a, root, nullptr);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Iscatterv");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter())
        return inter_scatterv(call, *c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                              recvtype, root, request);
    BlockArguments a;
    if (int rc = prepare_scatterv(call, *c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                  recvcount, recvtype, root, a))
        return rc;
    return scatter(call, *c, a, root, request);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Allgather");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_allgather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, a))
        return rc;
    return allgather(call, *c, a, nullptr);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Iallgather");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_allgather(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, a))
        return rc;
    return allgather(call, *c, a, request);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
    Call call("MPI_Allgatherv");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_allgatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                    displs, recvtype, a))
        return rc;
    return allgather(call, *c, a, nullptr);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Iallgatherv");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_allgatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                    displs, recvtype, a))
        return rc;
    return allgather(call, *c, a, request);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoall");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoall(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, a))
        return rc;
    return alltoall(call, *c, a, nullptr);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ialltoall");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoall(call, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, a))
        return rc;
    return alltoall(call, *c, a, request);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoallv");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoallv(call, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                   recvcounts, rdispls, recvtype, a))
        return rc;
    return alltoall(call, *c, a, nullptr);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
    Call call("MPI_Ialltoallv");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoallv(call, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                   recvcounts, rdispls, recvtype, a))
        return rc;
    return alltoall(call, *c, a, request);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    Call call("MPI_Alltoallw");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoallw(call, *c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                   recvcounts, rdispls, recvtypes, a))
        return rc;
    return alltoall(call, *c, a, nullptr);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request* request) {
    Call call("MPI_Ialltoallw");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    BlockArguments a;
    if (int rc = prepare_alltoallw(call, *c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                   recvcounts, rdispls, recvtypes, a))
        return rc;
    return alltoall(call, *c, a, request);
}

}  // extern "C"
