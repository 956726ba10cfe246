// The MPI error classes that the layers below the API put in completions
// (p2p::Completion::error). Those layers do not include mpi.h; these are its
// values (MPICH's), which api/errors.cpp checks.
#pragma once

namespace si::error_class {

inline constexpr int kTruncate = 14;  // MPI_ERR_TRUNCATE
inline constexpr int kOther = 15;     // MPI_ERR_OTHER

}  // namespace si::error_class
