#include "datatype/datatype.hpp"

#include <array>
#include <complex>
#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "datatype/derived.hpp"
#include "datatype/handle_bits.hpp"

namespace si::datatype {

namespace {

constexpr int kKind = handle::kind_of(MPI_DATATYPE_NULL);
constexpr std::uint32_t kFirstDerivedSlot = 1;

// A derived type's name is cut here so that deep nesting stays readable.
constexpr std::size_t kMaxNameLength = MPI_MAX_OBJECT_NAME - 1;

Type predefined_type(MPI_Datatype handle, Family family, std::size_t size, std::size_t extent,
                     std::size_t alignment, const char* name) {
    Type type;
    type.handle = type.base = handle;
    type.family = family;
    type.size = size;
    type.packed = type.true_extent = extent;
    type.extent = static_cast<std::ptrdiff_t>(extent);
    type.alignment = alignment;
    type.basic_elements = family == Family::pair ? 2 : 1;
    type.predefined = type.committed = true;
    type.name = name;
    return type;
}

template <typename C>
Type basic(MPI_Datatype handle, Family family, const char* name) {
    return predefined_type(handle, family, sizeof(C), sizeof(C), alignof(C), name);
}

// A pair travels as its value then its index, without the C struct's padding,
// so that it matches a struct of the two as MPI's type matching allows
// (MPI_DOUBLE_INT is 12 bytes packed, 16 apart in memory). Its map has a run
// for each part, one when they touch and are the same size (MPI_2INT), so
// that MPI_Get_elements counts a lone value.
template <typename V, typename I = int>
Type pair(MPI_Datatype handle, const char* name) {
    using C = ValueIndex<V, I>;
    Type type =
        predefined_type(handle, Family::pair, sizeof(V) + sizeof(I), sizeof(C), alignof(C), name);
    type.packed = type.size;
    TypeMap map{Block{offsetof(C, value), sizeof(V), sizeof(V), 1}};
    if (offsetof(C, index) == sizeof(V) && sizeof(I) == sizeof(V))
        map[0].length += sizeof(I);
    else
        map.push_back(Block{offsetof(C, index), sizeof(I), sizeof(I), 1});
    type.true_extent = offsetof(C, index) + sizeof(I);
    type.contiguous = map.size() == 1 && type.packed == sizeof(C);
    type.map = std::make_shared<const TypeMap>(std::move(map));
    return type;
}

std::array<Type, kPredefinedCount> make_predefined() {
    std::array<Type, kPredefinedCount> t{};
    const Type all[] = {
        // Not a C integer type in MPI-3.1's table of reductions, but MPICH
        // reduces it as one, and programs written against MPICH do.
        basic<char>(MPI_CHAR, Family::c_integer, "MPI_CHAR"),
        basic<signed char>(MPI_SIGNED_CHAR, Family::c_integer, "MPI_SIGNED_CHAR"),
        basic<unsigned char>(MPI_UNSIGNED_CHAR, Family::c_integer, "MPI_UNSIGNED_CHAR"),
        basic<unsigned char>(MPI_BYTE, Family::byte, "MPI_BYTE"),
        basic<wchar_t>(MPI_WCHAR, Family::none, "MPI_WCHAR"),
        basic<short>(MPI_SHORT, Family::c_integer, "MPI_SHORT"),
        basic<unsigned short>(MPI_UNSIGNED_SHORT, Family::c_integer, "MPI_UNSIGNED_SHORT"),
        basic<int>(MPI_INT, Family::c_integer, "MPI_INT"),
        basic<unsigned>(MPI_UNSIGNED, Family::c_integer, "MPI_UNSIGNED"),
        basic<long>(MPI_LONG, Family::c_integer, "MPI_LONG"),
        basic<unsigned long>(MPI_UNSIGNED_LONG, Family::c_integer, "MPI_UNSIGNED_LONG"),
        // Aliased handles carry MPICH's name: MPI_LONG_LONG_INT, MPI_C_COMPLEX.
        basic<long long>(MPI_LONG_LONG, Family::c_integer, "MPI_LONG_LONG_INT"),
        basic<unsigned long long>(MPI_UNSIGNED_LONG_LONG, Family::c_integer,
                                  "MPI_UNSIGNED_LONG_LONG"),
        basic<float>(MPI_FLOAT, Family::floating, "MPI_FLOAT"),
        basic<double>(MPI_DOUBLE, Family::floating, "MPI_DOUBLE"),
        basic<long double>(MPI_LONG_DOUBLE, Family::floating, "MPI_LONG_DOUBLE"),
        basic<std::int8_t>(MPI_INT8_T, Family::c_integer, "MPI_INT8_T"),
        basic<std::int16_t>(MPI_INT16_T, Family::c_integer, "MPI_INT16_T"),
        basic<std::int32_t>(MPI_INT32_T, Family::c_integer, "MPI_INT32_T"),
        basic<std::int64_t>(MPI_INT64_T, Family::c_integer, "MPI_INT64_T"),
        basic<std::uint8_t>(MPI_UINT8_T, Family::c_integer, "MPI_UINT8_T"),
        basic<std::uint16_t>(MPI_UINT16_T, Family::c_integer, "MPI_UINT16_T"),
        basic<std::uint32_t>(MPI_UINT32_T, Family::c_integer, "MPI_UINT32_T"),
        basic<std::uint64_t>(MPI_UINT64_T, Family::c_integer, "MPI_UINT64_T"),
        // C++ bool and C _Bool share size and representation on every ABI we target.
        basic<bool>(MPI_C_BOOL, Family::logical, "MPI_C_BOOL"),
        // std::complex<T> is layout-compatible with C's T _Complex (two T's).
        basic<std::complex<float>>(MPI_C_FLOAT_COMPLEX, Family::complex, "MPI_C_COMPLEX"),
        basic<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, Family::complex, "MPI_C_DOUBLE_COMPLEX"),
        basic<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, Family::complex,
                                         "MPI_C_LONG_DOUBLE_COMPLEX"),
        basic<MPI_Aint>(MPI_AINT, Family::multi_language, "MPI_AINT"),
        basic<MPI_Offset>(MPI_OFFSET, Family::multi_language, "MPI_OFFSET"),
        basic<MPI_Count>(MPI_COUNT, Family::multi_language, "MPI_COUNT"),
        pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT"),
        pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"),
        pair<long>(MPI_LONG_INT, "MPI_LONG_INT"),
        pair<int>(MPI_2INT, "MPI_2INT"),
        pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT"),
        pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"),
        basic<unsigned char>(MPI_PACKED, Family::none, "MPI_PACKED"),
        // Fortran's, as gfortran lays them out.
        basic<char>(MPI_CHARACTER, Family::none, "MPI_CHARACTER"),
        basic<std::int32_t>(MPI_INTEGER, Family::fortran_integer, "MPI_INTEGER"),
        basic<float>(MPI_REAL, Family::floating, "MPI_REAL"),
        basic<double>(MPI_DOUBLE_PRECISION, Family::floating, "MPI_DOUBLE_PRECISION"),
        basic<std::complex<float>>(MPI_COMPLEX, Family::complex, "MPI_COMPLEX"),
        basic<std::complex<double>>(MPI_DOUBLE_COMPLEX, Family::complex, "MPI_DOUBLE_COMPLEX"),
        basic<std::int32_t>(MPI_LOGICAL, Family::logical, "MPI_LOGICAL"),
        pair<std::int32_t, std::int32_t>(MPI_2INTEGER, "MPI_2INTEGER"),
        pair<float, float>(MPI_2REAL, "MPI_2REAL"),
        pair<double, double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"),
        basic<std::int8_t>(MPI_INTEGER1, Family::fortran_integer, "MPI_INTEGER1"),
        basic<std::int16_t>(MPI_INTEGER2, Family::fortran_integer, "MPI_INTEGER2"),
        basic<std::int32_t>(MPI_INTEGER4, Family::fortran_integer, "MPI_INTEGER4"),
        basic<std::int64_t>(MPI_INTEGER8, Family::fortran_integer, "MPI_INTEGER8"),
        basic<float>(MPI_REAL4, Family::floating, "MPI_REAL4"),
        basic<double>(MPI_REAL8, Family::floating, "MPI_REAL8"),
        basic<std::complex<float>>(MPI_COMPLEX8, Family::complex, "MPI_COMPLEX8"),
        basic<std::complex<double>>(MPI_COMPLEX16, Family::complex, "MPI_COMPLEX16"),
        basic<Real16>(MPI_REAL16, Family::floating, "MPI_REAL16"),
        basic<Complex32>(MPI_COMPLEX32, Family::complex, "MPI_COMPLEX32"),
        basic<Integer16>(MPI_INTEGER16, Family::fortran_integer, "MPI_INTEGER16"),
        basic<bool>(MPI_CXX_BOOL, Family::logical, "MPI_CXX_BOOL"),
        basic<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, Family::complex,
                                   "MPI_CXX_FLOAT_COMPLEX"),
        basic<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, Family::complex,
                                    "MPI_CXX_DOUBLE_COMPLEX"),
        basic<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, Family::complex,
                                         "MPI_CXX_LONG_DOUBLE_COMPLEX"),
    };
    for (Type& unused : t) unused.handle = MPI_CHAR;
    for (const Type& type : all) t[predefined_index(type.handle)] = type;
    return t;
}

}  // namespace

// Built before main (no other static initializer looks types up); the unit
// test EveryPredefinedHandleIsCovered checks no handle of mpi.h is missing.
const std::array<Type, kPredefinedCount> kPredefinedTypes = make_predefined();

HandleTable<Type>& derived_types() {
    static HandleTable<Type> table(kKind, kFirstDerivedSlot);
    return table;
}

std::string short_name(std::string name) {
    if (name.size() > kMaxNameLength) {
        name.resize(kMaxNameLength - 4);
        name += "...)";
    }
    return name;
}

std::span<const Block> Type::blocks(Block& storage) const {
    if (map) return *map;
    // A predefined type other than a pair: one unit, as wide as its extent.
    storage = Block{0, packed, static_cast<std::uint32_t>(packed),
                    static_cast<std::uint32_t>(basic_elements)};
    return {&storage, 1};
}

std::vector<const Type*> all_predefined() {
    std::vector<const Type*> types;
    for (const Type& type : kPredefinedTypes)
        if (find_predefined(type.handle) == &type) types.push_back(&type);
    return types;
}

const Type* lookup(MPI_Datatype handle) {
    if (const Type* type = find_predefined(handle)) return type;
    return derived_types().find(handle);
}

int commit(MPI_Datatype handle) {
    if (find_predefined(handle) != nullptr) return MPI_SUCCESS;
    return derived_types().update(handle, [](Type& type) { type.committed = true; }) ? MPI_SUCCESS
                                                                               : MPI_ERR_TYPE;
}

int free_type(MPI_Datatype handle) {
    // An f90_type is never freed, so its flag cannot change between the two calls.
    const Type* type = derived_types().find(handle);
    if (type == nullptr || type->predefined) return MPI_ERR_TYPE;
    return derived_types().remove(handle) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

std::size_t derived_count() {
    // Counted first: the table holds each f90 type before its count does.
    const std::size_t f90_types = f90_type_count();
    return derived_types().live() - f90_types;
}

}  // namespace si::datatype
