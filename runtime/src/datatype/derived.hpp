// Inside the datatype layer: the table derived types live in, shared by the
// lookups (datatype.cpp), the constructors (constructors.cpp) and the types
// of Fortran kinds (fortran_kinds.cpp).
#pragma once

#include <string>

#include "datatype/datatype.hpp"
#include "datatype/handle_table.hpp"

namespace si::datatype {

HandleTable<Type>& derived_types();

// A derived type's name, cut to MPI_MAX_OBJECT_NAME so deep nesting stays readable.
std::string short_name(std::string name);

// The types f90_type made (fortran_kinds.cpp): in the table, but predefined.
std::size_t f90_type_count();

}  // namespace si::datatype
