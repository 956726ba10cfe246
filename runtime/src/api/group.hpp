// Process groups (MPI_Group): an ordered list of distinct world ranks. A
// group is immutable once made, so handles share the list.
#pragma once

#include <memory>
#include <vector>

#include "api/errors.hpp"
#include "mpi.h"

namespace si::api {

using Members = std::shared_ptr<const std::vector<int>>;  // group rank -> world rank

// The members of a group handle (MPI_GROUP_EMPTY included), or an error
// naming `argument`.
int group_members(Call& call, MPI_Group group, Members& out, const char* argument = "group");

// A new handle for a list of members; MPI_ERR_INTERN if the table is full.
int make_group(Call& call, std::vector<int> members, MPI_Group* out);

}  // namespace si::api
