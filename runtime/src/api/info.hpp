// Info objects (info.cpp), for the calls that take or return one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "api/errors.hpp"
#include "mpi.h"

namespace si::api {

// A hints argument: MPI_INFO_NULL or an existing info object (MPI_INFO_ENV
// included), or an error naming `argument`.
int check_info(Call& call, MPI_Info info, const char* argument = "info");

// A new info object with no keys (MPI_Comm_get_info: this runtime uses no hints).
int new_empty_info(Call& call, MPI_Info* out);

using InfoPairs = std::vector<std::pair<std::string, std::string>>;
// A hints argument's (key, value) pairs, none for MPI_INFO_NULL, or an error
// naming `argument`.
int read_hints(Call& call, MPI_Info info, InfoPairs& out, const char* argument = "info");
// A new info object holding `pairs` (the hints a *_get_info call reports).
int new_info(Call& call, InfoPairs pairs, MPI_Info* out);

}  // namespace si::api
