// Inside the datatype layer: the table derived types live in, shared by the
// lookups (datatype.cpp) and the constructors (constructors.cpp).
#pragma once

#include <string>

#include "datatype/datatype.hpp"
#include "datatype/handle_table.hpp"

namespace si::datatype {

HandleTable<Type>& derived_types();

// A derived type's name, cut to MPI_MAX_OBJECT_NAME so deep nesting stays readable.
std::string short_name(std::string name);

}  // namespace si::datatype
