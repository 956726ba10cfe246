// Argument checks and result handling shared by the collective entry points
// (collective.cpp: barrier, broadcast and the reductions; collective_blocks.cpp:
// gather, scatter, allgather, alltoall and their v/w forms).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/packing.hpp"
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

// An error if buffer is MPI_IN_PLACE, which is allowed only `where`.
int refuse_in_place(Call& call, const void* buffer, const char* argument, const char* where);

// Turns the collective layer's result into the call's result.
int finish_collective(Call& call, int error_class, const std::string& detail);

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
