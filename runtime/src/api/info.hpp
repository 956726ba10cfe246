// Info objects (info.cpp), for the calls that take or return one.
#pragma once

#include "api/errors.hpp"
#include "mpi.h"

namespace si::api {

// A hints argument: MPI_INFO_NULL or an existing info object (MPI_INFO_ENV
// included), or an error naming `argument`.
int check_info(Call& call, MPI_Info info, const char* argument = "info");

// A new info object with no keys (MPI_Comm_get_info: this runtime uses no hints).
int new_empty_info(Call& call, MPI_Info* out);

}  // namespace si::api
