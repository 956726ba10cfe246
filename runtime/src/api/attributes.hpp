// Attribute caching (MPI-3.1 section 6.7): user keys with copy and delete
// callbacks, and the values programs attach to communicators and datatypes
// under them. The object calls tell this module when an object is
// duplicated or freed.
#pragma once

#include "api/errors.hpp"

namespace si::api {

enum class AttributeHost { communicator, datatype };

// After MPI_Comm_dup / MPI_Type_dup made `copy`: runs the copy callback of
// each of the original's attributes and attaches what they return. A
// callback's failure is reported through `call` and returned.
int copy_attributes(Call& call, AttributeHost host, int original, int copy);

// Before MPI_Comm_free / MPI_Type_free (and MPI_Finalize, for MPI_COMM_SELF):
// runs every delete callback and drops the attributes. A callback's failure
// is reported through `call` and returned; the others still run.
int delete_attributes(Call& call, AttributeHost host, int object);

}  // namespace si::api
