// Datatypes: the predefined types of mpi.h and the contiguous derived types
// built from them, addressed by MPI_Datatype handle.
//
// Wire representation = memory representation. A message of `count` items of
// a type is the count * extent bytes starting at the buffer, copied as they
// are: no packing, no conversion (every rank runs on the same architecture).
// The pair types used by MPI_MAXLOC / MPI_MINLOC therefore travel with their
// padding (MPI_DOUBLE_INT: 12 bytes of data, 16 on the wire), and
// MPI_Get_count must divide received bytes by the extent, not the size.
//
// Every type here is dense (contiguous of contiguous of a basic type), so a
// type is fully described by its basic element type and how many of them one
// item holds; reductions on a derived type run element-wise on that base.
//
// Lookup of a predefined type is a range check and an array index, with no
// lock: every send does it. Derived types live in a table behind a mutex.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi.h"

namespace si::datatype {

// The groups of basic types that MPI's table of reduction operators is
// written in terms of (MPI-3.1 section 5.9.2).
enum class Family : std::uint8_t {
    none,            // no predefined reduction applies (MPI_CHAR, MPI_WCHAR)
    c_integer,       // signed/unsigned char, short, int, long, long long, [u]intN_t
    floating,        // float, double, long double
    logical,         // C _Bool
    complex,         // float/double/long double _Complex
    byte,            // MPI_BYTE
    multi_language,  // MPI_AINT, MPI_OFFSET, MPI_COUNT
    pair,            // value-index pairs for MPI_MAXLOC / MPI_MINLOC
};

struct Type {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    MPI_Datatype base = MPI_DATATYPE_NULL;  // predefined type of each element
    Family family = Family::none;           // family of the base
    std::size_t size = 0;                   // bytes of data in one item (MPI_Type_size)
    std::size_t extent = 0;                 // stride between items = wire bytes per item
    std::ptrdiff_t lb = 0;                  // always 0: no type here has holes or shifts
    std::size_t alignment = 1;              // alignof the C type of the base
    std::size_t elements = 1;               // base elements in one item
    bool predefined = false;
    bool committed = false;
    // For messages: "MPI_DOUBLE", "contiguous(4 x MPI_INT)".
    const char* name = "";

    // Bytes a message of `count` items occupies in memory and on the wire.
    std::size_t bytes(std::size_t count) const { return count * extent; }
};

// The C layout of the pair types (MPI_FLOAT_INT is ValueIndex<float>, ...).
template <typename V>
struct ValueIndex {
    V value;
    int index;
};

// Handle indices of the predefined types run from 1 to kPredefinedCount - 1.
inline constexpr int kPredefinedCount =
    (MPI_LONG_DOUBLE_INT & ((1 << SI_HANDLE_KIND_SHIFT) - 1)) + 1;

// The type a handle names, or nullptr for MPI_DATATYPE_NULL, a freed or never
// created handle, or a handle of another kind. The pointer stays valid for the
// life of the process; its contents change only if the handle is freed and
// its slot reused.
const Type* lookup(MPI_Datatype handle);

// The predefined table entry; `handle` must be a predefined type.
const Type& predefined(MPI_Datatype handle);

// MPI_Type_contiguous. Returns an MPI error class: MPI_ERR_COUNT for a
// negative count or a size that overflows, MPI_ERR_TYPE for an invalid old
// type (it need not be committed), MPI_ERR_INTERN when the table is full.
// `out` is set only on success; the new type is not committed.
[[nodiscard]] int create_contiguous(int count, MPI_Datatype old, MPI_Datatype& out);

// MPI_Type_commit: MPI_ERR_TYPE for an invalid handle; committing a
// predefined or already committed type does nothing.
[[nodiscard]] int commit(MPI_Datatype handle);

// MPI_Type_free: MPI_ERR_TYPE for an invalid handle or a predefined type.
// Types built from this one are not affected.
[[nodiscard]] int free_type(MPI_Datatype handle);

// Derived types currently alive (for leak reports at finalize and tests).
std::size_t derived_count();

}  // namespace si::datatype
