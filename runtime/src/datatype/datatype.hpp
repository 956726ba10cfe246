// Datatypes: the predefined types of mpi.h and the derived types built from
// them (contiguous, vector, indexed, struct, subarray, resized, ...),
// addressed by MPI_Datatype handle.
//
// A derived type is flattened when it is built into its type map: the runs
// of bytes one item covers, in type-map order, relative to the buffer. The
// packed form of a message is those runs of each item, back to back; it is
// what travels on the wire and what MPI_Pack writes. A type whose items are
// already one dense run (`contiguous`) is sent from and received into the
// user's memory directly; any other is packed and unpacked by the API layer.
//
// The pair types used by MPI_MAXLOC / MPI_MINLOC pack as their value then
// their index, without the C struct's padding (MPI_DOUBLE_INT: 16 bytes in
// memory, 12 packed), so that a struct of a double and an int matches it. The
// reduction kernels run on that packed form.
//
// A type whose every unit is the same predefined type (`base`) reduces
// element-wise on the packed form; a mixed one takes only user operators.
//
// Lookup of a predefined type is a range check and an array index, with no
// lock: every send does it. Derived types live in a table behind a mutex, and
// so do the types of Fortran kinds (MPI_Type_create_f90_*), which are
// predefined but made on request.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mpi.h"

namespace si::datatype {

// The groups of basic types that MPI's table of reduction operators is
// written in terms of (MPI-3.1 section 5.9.2).
enum class Family : std::uint8_t {
    none,            // no predefined reduction applies (MPI_WCHAR)
    c_integer,       // [signed/unsigned] char, short, int, long, long long, [u]intN_t
    fortran_integer, // INTEGER, INTEGER1..16
    floating,        // float, double, long double, REAL, DOUBLE PRECISION, REALn
    logical,         // C _Bool, Fortran LOGICAL
    complex,         // float/double/long double _Complex, COMPLEX, DOUBLE COMPLEX, COMPLEXn
    byte,            // MPI_BYTE
    multi_language,  // MPI_AINT, MPI_OFFSET, MPI_COUNT
    pair,            // value-index pairs for MPI_MAXLOC / MPI_MINLOC
};

// One run of bytes in an item's type map. `unit` is the packed size of the
// predefined type the run is made of and `unit_elements` how many basic
// elements one unit counts for MPI_Get_elements (2 for a pair type).
struct Block {
    std::ptrdiff_t offset = 0;  // from the start of the item
    std::size_t length = 0;
    std::uint32_t unit = 1;
    std::uint32_t unit_elements = 1;
};
using TypeMap = std::vector<Block>;

// buffer + offset, where the buffer may be MPI_BOTTOM (a null pointer) and
// the offsets absolute addresses (MPI_Get_address), which C++ pointer
// arithmetic does not allow.
inline std::byte* at(const void* buffer, std::ptrdiff_t offset) {
    return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(buffer) +
                                        static_cast<std::uintptr_t>(offset));
}

struct Envelope;
struct Signature;

struct Type {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    // The predefined type of every unit, or MPI_DATATYPE_NULL when they differ.
    MPI_Datatype base = MPI_DATATYPE_NULL;
    Family family = Family::none;  // family of the base
    std::size_t size = 0;          // bytes of data in one item (MPI_Type_size)
    std::ptrdiff_t extent = 0;     // stride between items (MPI_Type_get_extent), may be < 0
    std::ptrdiff_t lb = 0;
    std::size_t packed = 0;  // bytes of one item packed and on the wire
    std::ptrdiff_t true_lb = 0;
    std::size_t true_extent = 0;
    std::size_t alignment = 1;      // the largest alignof among its units
    std::size_t elements = 1;       // units in one item (a pair is one unit)
    std::size_t basic_elements = 1; // MPI_Get_elements of one item (a pair is two)
    bool contiguous = true;         // items are one dense run at buffer + true_lb
    bool resized = false;           // bounds set by MPI_Type_create_resized
    bool predefined = false;
    bool committed = false;
    // For messages: "MPI_DOUBLE", "vector(4 x 2 x MPI_INT, stride 8)".
    const char* name = "";
    // Derived types and the pair types; any other predefined type is one
    // unit at offset 0.
    std::shared_ptr<const TypeMap> map;
    // Derived types only: how the program built it (MPI_Type_get_envelope).
    std::shared_ptr<const Envelope> envelope;
    // Types of mixed basic types only (base is MPI_DATATYPE_NULL): which basic
    // type each unit is. A type of one basic type is `elements` units of `base`.
    std::shared_ptr<const Signature> signature;

    // Bytes a message of `count` items occupies packed and on the wire.
    std::size_t bytes(std::size_t count) const { return count * packed; }
    // Where a contiguous type's data starts in a buffer.
    const std::byte* data(const void* buffer) const { return at(buffer, true_lb); }
    std::byte* data(void* buffer) const { return at(buffer, true_lb); }
    // The type map; a predefined type's is built on the fly.
    std::span<const Block> blocks(Block& storage) const;
};

// The basic types of one item's units in type-map order (the standard's type
// signature), for what depends on each unit's type beyond its size: the
// external32 representation. A run is `count` units of a basic type, or
// `count` passes over a nested signature, so that an array of structs stays
// as small as its description where its type map does not.
struct Signature {
    struct Run {
        MPI_Datatype basic = MPI_DATATYPE_NULL;  // MPI_DATATYPE_NULL: nested
        std::shared_ptr<const Signature> nested;
        std::size_t count = 0;
    };
    std::vector<Run> runs;
};

// A derived type's constructor and its arguments, as MPI_Type_get_contents
// returns them, with a copy of each old type: the program may free those
// before it asks.
struct Envelope {
    int combiner = MPI_COMBINER_NAMED;
    std::vector<int> integers;
    std::vector<std::ptrdiff_t> addresses;
    std::vector<MPI_Datatype> handles;  // the old types as passed
    std::vector<Type> types;            // their state when the type was built
};

// The layout of the pair types in memory (MPI_FLOAT_INT is ValueIndex<float>,
// MPI_2REAL ValueIndex<float, float>, ...); packed, there is no padding.
template <typename V, typename I = int>
struct ValueIndex {
    V value;
    I index;
};

// gfortran's REAL(16), COMPLEX(16) and INTEGER(16) on x86-64 (MPI_REAL16,
// MPI_COMPLEX32, MPI_INTEGER16): IEEE binary128, a pair of them with C's
// complex arithmetic (GCC's built-in complex type, as gfortran's; std::complex
// is specified for the standard floating types only), and a 128-bit integer.
// GCC extensions, which ISO C++'s type traits do not know
// (std::is_floating_point_v<Real16> is false).
using Real16 = __float128;
typedef _Complex float __attribute__((mode(TC))) Complex32;
using Integer16 = __int128;

// The predefined types, indexed by their handles: MPICH numbers its
// predefined types in their handles' low byte (mpi.h), below 0x80, and gives
// MPI_FLOAT_INT and its kin handles of another storage class, 0x8c000000 + k,
// which come at 0x80 + k. Any other handle maps to some index whose entry
// has another handle (find_predefined compares). Index 0 is no type.
inline constexpr int kPredefinedCount = 256;
constexpr int predefined_index(MPI_Datatype handle) {
    const auto bits = static_cast<std::uint32_t>(handle);
    return static_cast<int>((bits & 0x7fu) | (bits >> 24 & 0x80u));
}

// The predefined types by index; an unused entry holds a handle that does
// not map to it (MPI_CHAR), so that find_predefined rejects every other.
extern const std::array<Type, kPredefinedCount> kPredefinedTypes;

// Every predefined type once, in index order.
std::vector<const Type*> all_predefined();

// The predefined type a handle names, or nullptr for any other handle.
// Inline: every message asks it.
inline const Type* find_predefined(MPI_Datatype handle) {
    const Type& type = kPredefinedTypes[predefined_index(handle)];
    return type.handle == handle ? &type : nullptr;
}

// The type a handle names, or nullptr for MPI_DATATYPE_NULL, a freed or never
// created handle, or a handle of another kind. The pointer stays valid for the
// life of the process; its contents change only if the handle is freed and
// its slot reused.
const Type* lookup(MPI_Datatype handle);

// The predefined table entry; `handle` must be a predefined type.
inline const Type& predefined(MPI_Datatype handle) {
    return kPredefinedTypes[predefined_index(handle)];
}

// Constructors. Each returns an MPI error class: MPI_ERR_COUNT for a
// negative count or a size that overflows, MPI_ERR_TYPE for an invalid old
// type (it need not be committed), MPI_ERR_INTERN when the table is full or
// the type map would exceed kMaxBlocks runs. `out` is set only on success;
// the new type is not committed. Arguments are checked by the API layer;
// displacements and strides here are in bytes.

// `count` items of `type` at `displacement` bytes: one block of a vector,
// an indexed or a struct type.
struct Piece {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    std::ptrdiff_t displacement = 0;
    std::size_t count = 0;
};
inline constexpr std::size_t kMaxBlocks = std::size_t{1} << 26;

// Every constructor but resized and dup: the pieces in type-map order. A
// struct type's extent is padded to its alignment, as a C struct's is.
[[nodiscard]] int create_from_pieces(std::span<const Piece> pieces, bool is_struct,
                                     const std::string& name, MPI_Datatype& out);
[[nodiscard]] int create_contiguous(int count, MPI_Datatype old, MPI_Datatype& out);
[[nodiscard]] int create_resized(MPI_Datatype old, std::ptrdiff_t lb, std::ptrdiff_t extent,
                                 MPI_Datatype& out);
[[nodiscard]] int create_dup(MPI_Datatype old, MPI_Datatype& out);
// A new handle for a copy of `type` (MPI_Type_get_contents' old types, a
// persistent request's type), committed if it was.
[[nodiscard]] int store_copy(
    const Type& type, MPI_Datatype& out,
    const std::string& name = "a constructor argument returned by MPI_Type_get_contents");
// Records how a derived type was built; MPI_ERR_TYPE for an invalid handle.
[[nodiscard]] int set_envelope(MPI_Datatype handle, Envelope envelope);

// Packing (pack.cpp). pack copies `count` items at `buffer` into `out`
// (type.bytes(count) bytes); unpack copies `bytes` packed bytes (a prefix of
// whole items and possibly part of one) from `in` into items at `buffer`.
void pack(const Type& type, const void* buffer, std::size_t count, void* out);
void unpack(const Type& type, const void* in, std::size_t bytes, void* buffer);

// The same a part at a time (a send packs while its receiver reads what is
// packed already; a receive unpacks each part as it reads it): each next()
// copies the following `bytes` of the packed form out of the items
// (Packer) or into them (Unpacker), or what is left if less, and returns
// how many it copied. The type must outlive them.
class PartCursor {
  protected:
    PartCursor(const Type& type, const void* buffer, std::size_t count);
    // Calls copy(item bytes, packed offset, n) for each run of the next
    // `bytes` packed bytes.
    template <typename Copy>
    std::size_t advance(std::size_t bytes, Copy copy);

  private:
    const Type& type_;
    const void* buffer_;
    std::size_t count_;
    Block storage_;
    std::span<const Block> blocks_;
    std::size_t item_ = 0, block_ = 0, offset_ = 0;  // where the next byte is
};

class Packer : PartCursor {
  public:
    Packer(const Type& type, const void* buffer, std::size_t count)
        : PartCursor(type, buffer, count) {}
    std::size_t next(void* out, std::size_t bytes);
};

class Unpacker : PartCursor {
  public:
    Unpacker(const Type& type, void* buffer, std::size_t count) : PartCursor(type, buffer, count) {}
    std::size_t next(const void* in, std::size_t bytes);
};
// MPI_Get_elements: basic elements in `bytes` packed bytes of this type.
std::size_t elements_in(const Type& type, std::size_t bytes);
// Its inverse (MPI_Status_set_elements): packed bytes of the first
// `elements` basic elements of items of this type.
std::size_t bytes_for_elements(const Type& type, std::size_t elements);

// The external32 representation (external32.cpp; MPI-3.1 section 13.5.2),
// what MPI_Pack_external writes: each basic element big-endian in the
// standard's size for its type whatever the native one (MPI_LONG is 4 bytes,
// MPI_LONG_DOUBLE an IEEE binary128), elements back to back without padding
// (a pair type is its value, then its index). No type is larger there than
// packed natively. pack_external32 writes external32_bytes(type, count) bytes
// for `count` items at `buffer`; unpack_external32 reads as many.
std::size_t external32_bytes(const Type& type, std::size_t count);
void pack_external32(const Type& type, const void* buffer, std::size_t count, void* out);
void unpack_external32(const Type& type, const void* in, std::size_t count, void* buffer);

// Fortran's parameterised types (fortran_kinds.cpp; MPI-3.1 section 17.2.5)
// with the kinds gfortran has on x86-64: REAL(4, 8, 10, 16), COMPLEX of
// those, INTEGER(1, 2, 4, 8, 16). f90_type gives the type of
// MPI_Type_create_f90_real, _complex or _integer (`combiner` says which; p
// is ignored for an integer): the smallest kind with at least p decimal
// digits and exponent range r, MPI_UNDEFINED asking for nothing. One handle
// per (combiner, p, r), made at the first request: a predefined, committed
// type laid out as the kind's predefined type, never freed, whose envelope
// holds p and r. MPI_ERR_ARG if no kind is large enough, and f90_error says
// why (empty if one is).
[[nodiscard]] int f90_type(int combiner, int p, int r, MPI_Datatype& out);
std::string f90_error(int combiner, int p, int r);
// MPI_Type_match_size: the predefined type of a typeclass (MPI_TYPECLASS_*)
// and size in bytes, or MPI_DATATYPE_NULL.
MPI_Datatype match_size(int typeclass, int size);

// MPI_Type_commit: MPI_ERR_TYPE for an invalid handle; committing a
// predefined or already committed type does nothing.
[[nodiscard]] int commit(MPI_Datatype handle);

// MPI_Type_free: MPI_ERR_TYPE for an invalid handle or a predefined type
// (f90_type's included).
// Types built from this one are not affected.
[[nodiscard]] int free_type(MPI_Datatype handle);

// Derived types the program made and has not freed (for leak reports at
// finalize and tests).
std::size_t derived_count();

}  // namespace si::datatype
