// Element-wise kernels of the predefined reduction operators, one function per
// (operator, C type) pair, found through a constant table indexed by operator
// and basic type. Internal to the datatype layer.
//
// Each kernel is a plain loop over typed arrays that the compiler can
// vectorise; the choice of operator and type is made once per call by the
// table, never per element.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "datatype/datatype.hpp"
#include "datatype/handle_bits.hpp"
#include "mpi.h"

namespace si::datatype::kernels {

using Kernel = void (*)(const void* in, void* inout, std::size_t n);

// Operator indices: the handle index of the predefined operator.
inline constexpr int kOpCount = static_cast<int>(handle::index_of(MPI_NO_OP)) + 1;
constexpr int op_index(MPI_Op op) {
    return static_cast<int>(handle::index_of(op));
}

// Arithmetic on signed integers is done in the matching unsigned type so that
// overflow wraps instead of being undefined; types narrower than int are
// widened to unsigned first, or promotion to int could overflow in PROD.
template <typename T, bool = std::is_integral_v<T>>
struct Arithmetic {
    using type = T;
};
template <typename T>
struct Arithmetic<T, true> {
    using type =
        std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <>
struct Arithmetic<Integer16> {  // not std::is_integral_v in ISO C++
    using type = unsigned __int128;
};
template <typename T>
using arithmetic_t = typename Arithmetic<T>::type;

struct Max {
    template <typename T>
    T operator()(T a, T b) const {
        return a > b ? a : b;
    }
};
struct Min {
    template <typename T>
    T operator()(T a, T b) const {
        return a < b ? a : b;
    }
};
struct Sum {
    template <typename T>
    T operator()(T a, T b) const {
        using A = arithmetic_t<T>;
        return static_cast<T>(static_cast<A>(a) + static_cast<A>(b));
    }
};
struct Prod {
    template <typename T>
    T operator()(T a, T b) const {
        using A = arithmetic_t<T>;
        return static_cast<T>(static_cast<A>(a) * static_cast<A>(b));
    }
};
struct Land {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>((a != T{}) & (b != T{}));
    }
};
struct Lor {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>((a != T{}) | (b != T{}));
    }
};
struct Lxor {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>((a != T{}) != (b != T{}));
    }
};
struct Band {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>(a & b);
    }
};
struct Bor {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>(a | b);
    }
};
struct Bxor {
    template <typename T>
    T operator()(T a, T b) const {
        return static_cast<T>(a ^ b);
    }
};

// The operands never overlap (apply's contract); saying so with restrict lets
// the compiler vectorise without a run-time overlap check, which -O2's cost
// model would refuse.
template <typename T, typename F>
void elementwise(const void* in, void* inout, std::size_t n) {
    const T* __restrict__ a = static_cast<const T*>(in);
    T* __restrict__ b = static_cast<T*>(inout);
    const F f{};
    for (std::size_t i = 0; i < n; ++i) b[i] = f(a[i], b[i]);
}

// MPI_MAXLOC / MPI_MINLOC: the better value wins; on equal values the lower
// index wins, as the standard requires, whichever operand it came from. The
// pairs are packed (datatype.hpp): a value then an index, unaligned.
template <typename V, typename I, bool kMax>
void locate(const void* in, void* inout, std::size_t n) {
    constexpr std::size_t kPair = sizeof(V) + sizeof(I);
    const auto* a = static_cast<const std::byte*>(in);
    auto* b = static_cast<std::byte*>(inout);
    for (std::size_t i = 0; i < n; ++i, a += kPair, b += kPair) {
        V av, bv;
        I ai, bi;
        std::memcpy(&av, a, sizeof av);
        std::memcpy(&bv, b, sizeof bv);
        std::memcpy(&ai, a + sizeof(V), sizeof ai);
        std::memcpy(&bi, b + sizeof(V), sizeof bi);
        const bool better = kMax ? av > bv : av < bv;
        if (better) std::memcpy(b, &av, sizeof av);
        if (better || (av == bv && ai < bi)) std::memcpy(b + sizeof(V), &ai, sizeof ai);
    }
}

using Row = std::array<Kernel, kOpCount>;

template <typename T>
constexpr Row integer_row() {
    Row r{};
    r[op_index(MPI_MAX)] = &elementwise<T, Max>;
    r[op_index(MPI_MIN)] = &elementwise<T, Min>;
    r[op_index(MPI_SUM)] = &elementwise<T, Sum>;
    r[op_index(MPI_PROD)] = &elementwise<T, Prod>;
    r[op_index(MPI_LAND)] = &elementwise<T, Land>;
    r[op_index(MPI_LOR)] = &elementwise<T, Lor>;
    r[op_index(MPI_LXOR)] = &elementwise<T, Lxor>;
    r[op_index(MPI_BAND)] = &elementwise<T, Band>;
    r[op_index(MPI_BOR)] = &elementwise<T, Bor>;
    r[op_index(MPI_BXOR)] = &elementwise<T, Bxor>;
    return r;
}

// Fortran integers: like C integers but without the logical operators
// (MPI-3.1 table of 5.9.2). The table leaves MPI_AINT, MPI_OFFSET and
// MPI_COUNT out of the logical operators too, but MPICH applies them, and
// programs written for it do (MPICH's coll/allred): they take integer_row.
template <typename T>
constexpr Row fortran_integer_row() {
    Row r = integer_row<T>();
    r[op_index(MPI_LAND)] = r[op_index(MPI_LOR)] = r[op_index(MPI_LXOR)] = nullptr;
    return r;
}

template <typename T>
constexpr Row floating_row() {
    Row r{};
    r[op_index(MPI_MAX)] = &elementwise<T, Max>;
    r[op_index(MPI_MIN)] = &elementwise<T, Min>;
    r[op_index(MPI_SUM)] = &elementwise<T, Sum>;
    r[op_index(MPI_PROD)] = &elementwise<T, Prod>;
    return r;
}

// C is std::complex<float> (and double, long double) or Complex32.
template <typename C>
constexpr Row complex_row() {
    Row r{};
    r[op_index(MPI_SUM)] = &elementwise<C, Sum>;
    r[op_index(MPI_PROD)] = &elementwise<C, Prod>;
    return r;
}

// C _Bool, and Fortran LOGICAL as an int whose .TRUE. is 1 (gfortran): the
// logical operators yield 0 or 1 either way.
template <typename T>
constexpr Row logical_row() {
    Row r{};
    r[op_index(MPI_LAND)] = &elementwise<T, Land>;
    r[op_index(MPI_LOR)] = &elementwise<T, Lor>;
    r[op_index(MPI_LXOR)] = &elementwise<T, Lxor>;
    return r;
}

constexpr Row byte_row() {
    Row r{};
    r[op_index(MPI_BAND)] = &elementwise<unsigned char, Band>;
    r[op_index(MPI_BOR)] = &elementwise<unsigned char, Bor>;
    r[op_index(MPI_BXOR)] = &elementwise<unsigned char, Bxor>;
    return r;
}

template <typename V, typename I = int>
constexpr Row pair_row() {
    Row r{};
    r[op_index(MPI_MAXLOC)] = &locate<V, I, true>;
    r[op_index(MPI_MINLOC)] = &locate<V, I, false>;
    return r;
}

// [type index][operator index]; nullptr where the pair is not valid.
constexpr std::array<Row, kPredefinedCount> make_table() {
    std::array<Row, kPredefinedCount> t{};
    auto set = [&t](MPI_Datatype type, const Row& row) { t[predefined_index(type)] = row; };
    set(MPI_CHAR, integer_row<char>());
    set(MPI_SIGNED_CHAR, integer_row<signed char>());
    set(MPI_UNSIGNED_CHAR, integer_row<unsigned char>());
    set(MPI_SHORT, integer_row<short>());
    set(MPI_UNSIGNED_SHORT, integer_row<unsigned short>());
    set(MPI_INT, integer_row<int>());
    set(MPI_UNSIGNED, integer_row<unsigned>());
    set(MPI_LONG, integer_row<long>());
    set(MPI_UNSIGNED_LONG, integer_row<unsigned long>());
    set(MPI_LONG_LONG, integer_row<long long>());
    set(MPI_UNSIGNED_LONG_LONG, integer_row<unsigned long long>());
    set(MPI_INT8_T, integer_row<std::int8_t>());
    set(MPI_INT16_T, integer_row<std::int16_t>());
    set(MPI_INT32_T, integer_row<std::int32_t>());
    set(MPI_INT64_T, integer_row<std::int64_t>());
    set(MPI_UINT8_T, integer_row<std::uint8_t>());
    set(MPI_UINT16_T, integer_row<std::uint16_t>());
    set(MPI_UINT32_T, integer_row<std::uint32_t>());
    set(MPI_UINT64_T, integer_row<std::uint64_t>());
    set(MPI_AINT, integer_row<MPI_Aint>());
    set(MPI_OFFSET, integer_row<MPI_Offset>());
    set(MPI_COUNT, integer_row<MPI_Count>());
    set(MPI_FLOAT, floating_row<float>());
    set(MPI_DOUBLE, floating_row<double>());
    set(MPI_LONG_DOUBLE, floating_row<long double>());
    set(MPI_C_FLOAT_COMPLEX, complex_row<std::complex<float>>());
    set(MPI_C_DOUBLE_COMPLEX, complex_row<std::complex<double>>());
    set(MPI_C_LONG_DOUBLE_COMPLEX, complex_row<std::complex<long double>>());
    // As bytes: a byte other than 0 or 1 (from a peer, or memory the
    // program never set) must not be loaded as a bool; results are 0 or 1.
    static_assert(sizeof(bool) == 1);
    set(MPI_C_BOOL, logical_row<std::uint8_t>());
    set(MPI_BYTE, byte_row());
    set(MPI_FLOAT_INT, pair_row<float>());
    set(MPI_DOUBLE_INT, pair_row<double>());
    set(MPI_LONG_INT, pair_row<long>());
    set(MPI_2INT, pair_row<int>());
    set(MPI_SHORT_INT, pair_row<short>());
    set(MPI_LONG_DOUBLE_INT, pair_row<long double>());
    // Fortran integers take the integer operators but not the logical ones.
    set(MPI_INTEGER, fortran_integer_row<std::int32_t>());
    set(MPI_INTEGER1, fortran_integer_row<std::int8_t>());
    set(MPI_INTEGER2, fortran_integer_row<std::int16_t>());
    set(MPI_INTEGER4, fortran_integer_row<std::int32_t>());
    set(MPI_INTEGER8, fortran_integer_row<std::int64_t>());
    set(MPI_REAL, floating_row<float>());
    set(MPI_REAL4, floating_row<float>());
    set(MPI_DOUBLE_PRECISION, floating_row<double>());
    set(MPI_REAL8, floating_row<double>());
    set(MPI_COMPLEX, complex_row<std::complex<float>>());
    set(MPI_COMPLEX8, complex_row<std::complex<float>>());
    set(MPI_DOUBLE_COMPLEX, complex_row<std::complex<double>>());
    set(MPI_COMPLEX16, complex_row<std::complex<double>>());
    set(MPI_REAL16, floating_row<Real16>());
    set(MPI_COMPLEX32, complex_row<Complex32>());
    set(MPI_INTEGER16, fortran_integer_row<Integer16>());
    // C++'s types are C's.
    set(MPI_CXX_BOOL, t[predefined_index(MPI_C_BOOL)]);
    set(MPI_CXX_FLOAT_COMPLEX, t[predefined_index(MPI_C_FLOAT_COMPLEX)]);
    set(MPI_CXX_DOUBLE_COMPLEX, t[predefined_index(MPI_C_DOUBLE_COMPLEX)]);
    set(MPI_CXX_LONG_DOUBLE_COMPLEX, t[predefined_index(MPI_C_LONG_DOUBLE_COMPLEX)]);
    set(MPI_LOGICAL, logical_row<std::int32_t>());
    set(MPI_2INTEGER, pair_row<std::int32_t>());
    set(MPI_2REAL, pair_row<float, float>());
    set(MPI_2DOUBLE_PRECISION, pair_row<double, double>());
    return t;
}

inline constexpr std::array<Row, kPredefinedCount> kTable = make_table();

// The kernel for a predefined operator on a predefined basic type, or nullptr.
inline Kernel find(MPI_Op op, MPI_Datatype base) {
    const int o = op_index(op);
    const int b = predefined_index(base);
    if (o >= kOpCount || b >= kPredefinedCount) return nullptr;
    return kTable[b][o];
}

}  // namespace si::datatype::kernels
