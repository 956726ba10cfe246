// Reduction operators: the predefined ones of mpi.h and user functions from
// MPI_Op_create, and the element-wise kernels that apply them.
//
// Which (operator, datatype) pairs are valid follows MPI-3.1 section 5.9.2:
//   MPI_MAX, MPI_MIN          C integer, floating point, multi-language (MPI_AINT...)
//   MPI_SUM, MPI_PROD         C integer, floating point, complex, multi-language
//   MPI_LAND, MPI_LOR, MPI_LXOR   C integer, logical (MPI_C_BOOL)
//   MPI_BAND, MPI_BOR, MPI_BXOR   C integer, MPI_BYTE, multi-language
//   MPI_MAXLOC, MPI_MINLOC    the value-index pair types
// MPI_CHAR and MPI_WCHAR hold characters and take no predefined operator.
// MPI_REPLACE and MPI_NO_OP exist for one-sided accumulates only. A derived
// type is valid where its base element type is. User operators take any type.
#pragma once

#include <cstddef>
#include <string>

#include "datatype/datatype.hpp"
#include "mpi.h"

namespace si::datatype {

struct Op {
    MPI_Op handle = MPI_OP_NULL;
    MPI_User_function* function = nullptr;  // user operators only
    bool predefined = false;
    bool commutative = true;
    const char* name = "";  // "MPI_SUM", "user operator 0x0c000040"
};

// The operator a handle names, or nullptr for MPI_OP_NULL, a freed or never
// created handle, or a handle of another kind. Lock-free for predefined ones.
const Op* lookup_op(MPI_Op handle);

// MPI_Op_create. MPI_ERR_ARG for a null function, MPI_ERR_INTERN when the
// table is full; `out` is set only on success.
[[nodiscard]] int create_op(MPI_User_function* function, bool commutative, MPI_Op& out);

// MPI_Op_free: MPI_ERR_OP for an invalid handle or a predefined operator.
[[nodiscard]] int free_op(MPI_Op handle);

// True if op may reduce values of type (the table above).
bool reduction_valid(const Op& op, const Type& type);

// Why op may not reduce type, naming both; empty if it may, e.g.
// "MPI_SUM is not defined for MPI_BYTE; it applies to integer, floating-point
// and complex types".
std::string reduction_error(const Op& op, const Type& type);

// inout[i] = in[i] op inout[i] for `count` items of type. The pair must be
// valid; in and inout must not overlap. A user function is called with the
// datatype's own handle and len = count (in pieces if count exceeds INT_MAX).
void apply(const Op& op, const Type& type, const void* in, void* inout, std::size_t count);

// User operators currently alive (for leak reports at finalize and tests).
std::size_t user_op_count();

}  // namespace si::datatype
