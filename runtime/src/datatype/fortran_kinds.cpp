// Fortran's parameterised types (datatype.hpp): gfortran's kinds on x86-64,
// and the types MPI_Type_create_f90_* hand out for them, one per (combiner,
// p, r), kept in the derived table as predefined types that are never freed.
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "datatype/derived.hpp"

namespace si::datatype {

namespace {

// gfortran's REAL kinds, from the smallest: PRECISION() and RANGE() of each,
// and the predefined types of the REAL and the COMPLEX of that kind.
// SELECTED_REAL_KIND(p, r) is the first that has both.
struct RealKind {
    int kind;
    int precision;
    int range;
    MPI_Datatype real;
    MPI_Datatype complex;
};
constexpr RealKind kRealKinds[] = {
    {4, 6, 37, MPI_REAL4, MPI_COMPLEX8},
    {8, 15, 307, MPI_REAL8, MPI_COMPLEX16},
    // x87's 80-bit format in 16 bytes, like C's long double; MPI has no
    // Fortran name for it.
    {10, 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
    {16, 33, 4931, MPI_REAL16, MPI_COMPLEX32},
};

// gfortran's INTEGER kinds: RANGE() of each, and its predefined type.
struct IntegerKind {
    int kind;
    int range;
    MPI_Datatype type;
};
constexpr IntegerKind kIntegerKinds[] = {
    {1, 2, MPI_INTEGER1},  {2, 4, MPI_INTEGER2},    {4, 9, MPI_INTEGER4},
    {8, 18, MPI_INTEGER8}, {16, 38, MPI_INTEGER16},
};

// What MPI_Type_match_size returns: one predefined type per size (MPICH's
// choices; 16 bytes of REAL are REAL(16), not REAL(10)).
struct Sized {
    int typeclass;
    int size;
    MPI_Datatype type;
};
constexpr Sized kSized[] = {
    {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
    {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
    {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},   {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
    {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},   {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
    {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
    {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
};

// A negative p or r (MPI_UNDEFINED among them) asks for nothing, as in
// SELECTED_REAL_KIND; so does leaving both undefined, which MPICH accepts
// too (the default kind, REAL(4)).
const RealKind* real_kind(int p, int r) {
    for (const RealKind& kind : kRealKinds)
        if (p <= kind.precision && r <= kind.range) return &kind;
    return nullptr;
}

const IntegerKind* integer_kind(int r) {
    for (const IntegerKind& kind : kIntegerKinds)
        if (r <= kind.range) return &kind;
    return nullptr;
}

// The predefined type (combiner, p, r) selects, or MPI_DATATYPE_NULL.
MPI_Datatype kind_type(int combiner, int p, int r) {
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        const IntegerKind* kind = integer_kind(r);
        return kind ? kind->type : MPI_DATATYPE_NULL;
    }
    const RealKind* kind = real_kind(p, r);
    if (kind == nullptr) return MPI_DATATYPE_NULL;
    return combiner == MPI_COMBINER_F90_COMPLEX ? kind->complex : kind->real;
}

std::string argument(int value) {
    return value == MPI_UNDEFINED ? "MPI_UNDEFINED" : std::to_string(value);
}

// The handles handed out so far, by (combiner, p, r); p is 0 for an integer.
std::mutex g_made_mutex;
std::map<std::tuple<int, int, int>, MPI_Datatype> g_made;

}  // namespace

int f90_type(int combiner, int p, int r, MPI_Datatype& out) {
    if (combiner == MPI_COMBINER_F90_INTEGER) p = 0;
    const MPI_Datatype base = kind_type(combiner, p, r);
    if (base == MPI_DATATYPE_NULL) return MPI_ERR_ARG;
    std::lock_guard lock(g_made_mutex);
    const auto key = std::make_tuple(combiner, p, r);
    if (const auto it = g_made.find(key); it != g_made.end()) {
        out = it->second;
        return MPI_SUCCESS;
    }
    Type type = predefined(base);  // the kind's layout, reductions and external32
    Envelope envelope{combiner, {}, {}, {}, {}};
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        envelope.integers = {r};
    } else {
        envelope.integers = {p, r};
    }
    type.envelope = std::make_shared<const Envelope>(std::move(envelope));
    std::string name =
        combiner == MPI_COMBINER_F90_INTEGER
            ? fmt::format("f90_integer({})", argument(r))
            : fmt::format("f90_{}({}, {})", combiner == MPI_COMBINER_F90_REAL ? "real" : "complex",
                          argument(p), argument(r));
    const int handle = derived_types().add(std::move(type), [&](int) { return name; });
    if (handle == 0) return MPI_ERR_INTERN;
    g_made.emplace(key, handle);
    out = handle;
    return MPI_SUCCESS;
}

std::string f90_error(int combiner, int p, int r) {
    if (kind_type(combiner, p, r) != MPI_DATATYPE_NULL) return {};
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        const IntegerKind& largest = std::end(kIntegerKinds)[-1];
        return fmt::format("no INTEGER kind has range r = {}; the largest, INTEGER({}), has {}", r,
                           largest.kind, largest.range);
    }
    const RealKind& largest = std::end(kRealKinds)[-1];
    return fmt::format(
        "no {} kind has precision p = {} and range r = {}; the largest, {}({}), "
        "has precision {} and range {}",
        combiner == MPI_COMBINER_F90_REAL ? "REAL" : "COMPLEX", argument(p), argument(r),
        combiner == MPI_COMBINER_F90_REAL ? "REAL" : "COMPLEX", largest.kind, largest.precision,
        largest.range);
}

std::size_t f90_type_count() {
    std::lock_guard lock(g_made_mutex);
    return g_made.size();
}

MPI_Datatype match_size(int typeclass, int size) {
    for (const Sized& sized : kSized)
        if (sized.typeclass == typeclass && sized.size == size) return sized.type;
    return MPI_DATATYPE_NULL;
}

}  // namespace si::datatype
