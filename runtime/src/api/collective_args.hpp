// Argument checks and result handling shared by the collective entry points
// (collective.cpp: barrier and broadcast; reduction.cpp; collective_blocks.cpp:
// gather, scatter, allgather, alltoall and their v/w forms).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/packing.hpp"
#include "api/runtime.hpp"
#include "mpi.h"

namespace si::api {

inline bool in_place(const void* buffer) {
    return buffer == MPI_IN_PLACE;
}

inline std::size_t items(int count) {
    return static_cast<std::size_t>(count);
}

// MPI is initialized and comm is a valid communicator.
int start_collective(Call& call, MPI_Comm comm, Communicator*& c);
// The same, refusing an intercommunicator (the prefix reductions, which MPI
// does not define there, and the neighbourhood collectives).
int start_intra_collective(Call& call, MPI_Comm comm, Communicator*& c);

// An error if buffer is MPI_IN_PLACE, which is allowed only `where`.
int refuse_in_place(Call& call, const void* buffer, const char* argument, const char* where);
// An error if c is an intercommunicator and buffer is MPI_IN_PLACE.
int refuse_in_place_inter(Call& call, const Communicator& c, const void* buffer,
                          const char* argument);
inline constexpr const char* kNowhereOnInter = "nowhere on an intercommunicator";

// Runs the collective layer's algorithm for a blocking collective the
// program calls on c: `run`, a generic lambda, gets the intracommunicator's
// context (blocking_collective_context), or an intercommunicator's pair of
// them (coll/intercomm.hpp overloads the algorithms for it); the
// description of an error lands in `detail`.
template <typename Run>
int run_collective(const Communicator& c, std::string& detail, Run&& run) {
    if (c.inter()) return run(inter_collective_context(c, &detail));
    return run(blocking_collective_context(c, &detail));
}

// The rooted collectives on an intercommunicator (intercomm_collective.cpp),
// called by the entry points with the call's arguments once comm is known to
// be one; the others run their own code with run_collective or
// run_or_start. A null request makes the blocking call, any other the
// nonblocking one.
int inter_bcast(Call& call, Communicator& c, void* buffer, int count, MPI_Datatype datatype,
                int root, MPI_Request* request);
int inter_reduce(Call& call, Communicator& c, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Request* request);
int inter_gather(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Request* request);
int inter_gatherv(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Request* request);
int inter_scatter(Call& call, Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Request* request);
int inter_scatterv(Call& call, Communicator& c, const void* sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Request* request);

// Turns the collective layer's result into the call's result.
int finish_collective(Call& call, int error_class, const std::string& detail);

// Allgather and Alltoall: every rank sends and receives, and only sendbuf may
// be MPI_IN_PLACE.
int exchange_arguments(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const datatype::Type*& stype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, const datatype::Type*& rtype);

// One rank's checked and packed arguments for a collective that moves one
// block per rank (MPI_Gather, MPI_Ialltoallw, ...; block_arguments.cpp), in
// the form the collective layer takes them. A blocking call keeps them on its
// stack; a nonblocking one moves them into its schedule (keep_until_done):
// the blocks point into the buffers' heap memory or the user's, which a move
// does not change.
struct BlockArguments {
    // Equal blocks, packed as one message: what this rank sends (a gather's
    // or allgather's input, a scatter's or alltoall's whole buffer) and
    // where what it receives lands.
    std::optional<Outgoing> message;
    std::optional<Incoming> room;
    // The v and w forms: per-rank blocks, each packed on its own.
    std::optional<BlockBuffer> leaving;
    std::optional<BlockBuffer> arriving;
    // The blocks the collective layer sends and receives, one per rank (a
    // gather's or scatter's at the root only); no send blocks with
    // MPI_IN_PLACE in an alltoall.
    coll::BlockList send_blocks;
    coll::BlockList recv_blocks;
    bool in_place = false;  // sendbuf (recvbuf at a scatter's root) is MPI_IN_PLACE
    bool equal = false;     // a plain form: every rank's block has the same size

    // This rank's own data: a gather's or allgather's input, a scatter's
    // receive buffer, or MPI_IN_PLACE.
    const void* own_send() const { return in_place ? MPI_IN_PLACE : message->data(); }
    std::size_t own_send_bytes() const { return message ? message->bytes() : 0; }
    void* own_receive() const { return in_place ? MPI_IN_PLACE : room->data(); }
    std::size_t own_receive_bytes() const { return room && !in_place ? room->capacity() : 0; }
    // Copies what arrived packed into the user's buffers.
    void unpack() const;
};
int prepare_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, BlockArguments& out);
int prepare_gatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, int root, BlockArguments& out);
int prepare_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, BlockArguments& out);
int prepare_scatterv(Call& call, const Communicator& c, const void* sendbuf,
                     const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     BlockArguments& out);
int prepare_allgather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      BlockArguments& out);
int prepare_allgatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, BlockArguments& out);
int prepare_alltoall(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     BlockArguments& out);
int prepare_alltoallv(Call& call, const Communicator& c, const void* sendbuf,
                      const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                      void* recvbuf, const int recvcounts[], const int rdispls[],
                      MPI_Datatype recvtype, BlockArguments& out);
int prepare_alltoallw(Call& call, const Communicator& c, const void* sendbuf,
                      const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                      void* recvbuf, const int recvcounts[], const int rdispls[],
                      const MPI_Datatype recvtypes[], BlockArguments& out);

// sendbuf (or recvbuf if sendbuf is MPI_IN_PLACE), count, datatype and op of
// a reduction.
int reduce_arguments(Call& call, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, const datatype::Type*& type,
                     const datatype::Op*& reduction);

// The arrays of a vector collective's buffer, one entry per rank of a
// communicator of `ranks`: counts[i] items of `datatype` at displs[i] extents.
// Checks the arrays, the counts and the type; `names` are the call's argument
// names (buffer, counts, displs, datatype) and where the standard allows
// MPI_IN_PLACE instead of the buffer, for the error message (the callers
// handle an MPI_IN_PLACE that is allowed before asking for a layout).
struct VectorNames {
    const char* buffer;
    const char* counts;
    const char* displs;
    const char* datatype;
    const char* in_place_allowed;
};
int vector_layout(Call& call, const void* buffer, const int* counts, const int* displs,
                  MPI_Datatype datatype, int ranks, const VectorNames& names,
                  std::vector<BlockBuffer::Layout>& out);

// The same for MPI_Alltoallw and MPI_Neighbor_alltoallw: a datatype per rank
// and displacements in bytes (int or MPI_Aint).
template <typename Displacement>
int w_layout(Call& call, const void* buffer, const int* counts, const Displacement* displs,
             const MPI_Datatype* datatypes, int ranks, const VectorNames& names,
             std::vector<BlockBuffer::Layout>& out);

}  // namespace si::api
