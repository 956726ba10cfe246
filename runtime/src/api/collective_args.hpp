// Argument checks and result handling shared by the collective entry points
// (collective.cpp: barrier, broadcast and the reductions; collective_blocks.cpp:
// gather, scatter, allgather, alltoall and their v/w forms).
#pragma once

#include <cstddef>
#include <memory>
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

// Runs the collective layer's algorithm for c: `run`, a generic lambda, gets
// the intracommunicator's context, or an intercommunicator's pair of them
// (coll/intercomm.hpp overloads the algorithms for it); the description of
// an error lands in `detail`.
template <typename Run>
int run_collective(const Communicator& c, std::string& detail, Run&& run) {
    if (c.inter()) return run(inter_collective_context(c, &detail));
    return run(collective_context(c, &detail));
}

// The rooted collectives on an intercommunicator (intercomm_collective.cpp),
// called by the entry points with the call's arguments once comm is known to
// be one; the others run their own code with run_collective.
int inter_bcast(Call& call, const Communicator& c, void* buffer, int count, MPI_Datatype datatype,
                int root);
int inter_reduce(Call& call, const Communicator& c, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root);
int inter_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root);
int inter_gatherv(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root);
int inter_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root);
int inter_scatterv(Call& call, const Communicator& c, const void* sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root);

// Turns the collective layer's result into the call's result.
int finish_collective(Call& call, int error_class, const std::string& detail);

// Allgather and Alltoall: every rank sends and receives, and only sendbuf may
// be MPI_IN_PLACE.
int exchange_arguments(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const datatype::Type*& stype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, const datatype::Type*& rtype);

// The checked and packed arguments of a gather or scatter on an
// intracommunicator (MPI_Gather, MPI_Igather, ...; collective_blocks.cpp).
struct RootedBlocks {
    std::shared_ptr<const Outgoing> message;  // a gather's send data, the root's in a scatter
    std::shared_ptr<const Incoming> room;     // where the blocks land (the root's in a gather)
    std::vector<coll::Block> blocks;          // the root's per-rank blocks
    bool in_place = false;                    // MPI_IN_PLACE at the root
    // This rank's own data for the collective layer: send (gather) or receive
    // (scatter) buffer, or MPI_IN_PLACE.
    const void* gather_send() const { return in_place ? MPI_IN_PLACE : message->data(); }
    void* scatter_receive() const { return in_place ? MPI_IN_PLACE : room->data(); }
};
int prepare_gather(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, RootedBlocks& out);
int prepare_scatter(Call& call, const Communicator& c, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, RootedBlocks& out);

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
