#include "datatype/op.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace si::datatype {
namespace {

// ---- the standard's table, written out again independently of op.cpp ------

enum class Group {
    none,
    c_integer,
    fortran_integer,
    floating,
    logical,
    complex,
    byte,
    multi_language,
    pair
};

Group group_of(MPI_Datatype type) {
    static const std::map<MPI_Datatype, Group> groups = {
        {MPI_CHAR, Group::c_integer},
        {MPI_SIGNED_CHAR, Group::c_integer},
        {MPI_UNSIGNED_CHAR, Group::c_integer},
        {MPI_SHORT, Group::c_integer},
        {MPI_UNSIGNED_SHORT, Group::c_integer},
        {MPI_INT, Group::c_integer},
        {MPI_UNSIGNED, Group::c_integer},
        {MPI_LONG, Group::c_integer},
        {MPI_UNSIGNED_LONG, Group::c_integer},
        {MPI_LONG_LONG, Group::c_integer},
        {MPI_UNSIGNED_LONG_LONG, Group::c_integer},
        {MPI_INT8_T, Group::c_integer},
        {MPI_INT16_T, Group::c_integer},
        {MPI_INT32_T, Group::c_integer},
        {MPI_INT64_T, Group::c_integer},
        {MPI_UINT8_T, Group::c_integer},
        {MPI_UINT16_T, Group::c_integer},
        {MPI_UINT32_T, Group::c_integer},
        {MPI_UINT64_T, Group::c_integer},
        {MPI_FLOAT, Group::floating},
        {MPI_DOUBLE, Group::floating},
        {MPI_LONG_DOUBLE, Group::floating},
        {MPI_C_BOOL, Group::logical},
        {MPI_C_FLOAT_COMPLEX, Group::complex},
        {MPI_C_DOUBLE_COMPLEX, Group::complex},
        {MPI_C_LONG_DOUBLE_COMPLEX, Group::complex},
        {MPI_BYTE, Group::byte},
        {MPI_AINT, Group::multi_language},
        {MPI_OFFSET, Group::multi_language},
        {MPI_COUNT, Group::multi_language},
        {MPI_FLOAT_INT, Group::pair},
        {MPI_DOUBLE_INT, Group::pair},
        {MPI_LONG_INT, Group::pair},
        {MPI_2INT, Group::pair},
        {MPI_SHORT_INT, Group::pair},
        {MPI_LONG_DOUBLE_INT, Group::pair},
        {MPI_INTEGER, Group::fortran_integer},
        {MPI_INTEGER1, Group::fortran_integer},
        {MPI_INTEGER2, Group::fortran_integer},
        {MPI_INTEGER4, Group::fortran_integer},
        {MPI_INTEGER8, Group::fortran_integer},
        {MPI_REAL, Group::floating},
        {MPI_REAL4, Group::floating},
        {MPI_DOUBLE_PRECISION, Group::floating},
        {MPI_REAL8, Group::floating},
        {MPI_COMPLEX, Group::complex},
        {MPI_COMPLEX8, Group::complex},
        {MPI_DOUBLE_COMPLEX, Group::complex},
        {MPI_COMPLEX16, Group::complex},
        {MPI_LOGICAL, Group::logical},
        {MPI_2INTEGER, Group::pair},
        {MPI_2REAL, Group::pair},
        {MPI_2DOUBLE_PRECISION, Group::pair},
        {MPI_REAL16, Group::floating},
        {MPI_COMPLEX32, Group::complex},
        {MPI_INTEGER16, Group::fortran_integer},
        {MPI_CXX_BOOL, Group::logical},
        {MPI_CXX_FLOAT_COMPLEX, Group::complex},
        {MPI_CXX_DOUBLE_COMPLEX, Group::complex},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, Group::complex},
    };
    const auto it = groups.find(type);
    return it == groups.end() ? Group::none : it->second;  // MPI_WCHAR, MPI_PACKED, ...
}

// MPI-3.1 section 5.9.2, "Predefined Reduction Operations", and MPICH's
// logical operators on the multi-language types (MPI_AINT, ...).
bool allowed(MPI_Op op, Group g) {
    using enum Group;
    static const std::map<MPI_Op, std::set<Group>> table = {
        {MPI_MAX, {c_integer, fortran_integer, floating, multi_language}},
        {MPI_MIN, {c_integer, fortran_integer, floating, multi_language}},
        {MPI_SUM, {c_integer, fortran_integer, floating, complex, multi_language}},
        {MPI_PROD, {c_integer, fortran_integer, floating, complex, multi_language}},
        {MPI_LAND, {c_integer, logical, multi_language}},
        {MPI_LOR, {c_integer, logical, multi_language}},
        {MPI_LXOR, {c_integer, logical, multi_language}},
        {MPI_BAND, {c_integer, fortran_integer, byte, multi_language}},
        {MPI_BOR, {c_integer, fortran_integer, byte, multi_language}},
        {MPI_BXOR, {c_integer, fortran_integer, byte, multi_language}},
        {MPI_MAXLOC, {pair}},
        {MPI_MINLOC, {pair}},
        {MPI_REPLACE, {}},  // one-sided only
        {MPI_NO_OP, {}},
    };
    return table.at(op).contains(g);
}

const MPI_Op kOps[] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                       MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};

// ---- serial references ------------------------------------------------------------

// The standard's traits, and GCC's 128-bit types, which they leave out in ISO C++.
template <typename T>
constexpr bool is_integer = std::is_integral_v<T> || std::is_same_v<T, Integer16>;
template <typename T>
constexpr bool is_real = std::is_floating_point_v<T> || std::is_same_v<T, Real16>;

template <typename T>
T reference(MPI_Op op, T a, T b) {
    if constexpr (std::is_same_v<T, bool>) {
        switch (op) {
            case MPI_LAND:
                return a && b;
            case MPI_LOR:
                return a || b;
            case MPI_LXOR:
                return a != b;
        }
    } else if constexpr (is_integer<T>) {
        switch (op) {
            case MPI_MAX:
                return std::max(a, b);
            case MPI_MIN:
                return std::min(a, b);
            case MPI_SUM:
                return static_cast<T>(a + b);
            case MPI_PROD:
                return static_cast<T>(a * b);
            case MPI_LAND:
                return (a != 0 && b != 0) ? 1 : 0;
            case MPI_LOR:
                return (a != 0 || b != 0) ? 1 : 0;
            case MPI_LXOR:
                return ((a != 0) != (b != 0)) ? 1 : 0;
            case MPI_BAND:
                return static_cast<T>(a & b);
            case MPI_BOR:
                return static_cast<T>(a | b);
            case MPI_BXOR:
                return static_cast<T>(a ^ b);
        }
    } else if constexpr (is_real<T>) {
        switch (op) {
            case MPI_MAX:
                return std::max(a, b);
            case MPI_MIN:
                return std::min(a, b);
            case MPI_SUM:
                return a + b;
            case MPI_PROD:
                return a * b;
        }
    } else {  // std::complex, Complex32
        switch (op) {
            case MPI_SUM:
                return a + b;
            case MPI_PROD:
                return a * b;
        }
    }
    ADD_FAILURE() << "no reference for this operator";
    return b;
}

// Test values: small enough that no sum or product overflows, with zeros,
// negatives (where signed) and repeats.
template <typename T>
T value(int i, int salt) {
    const int k = (i * 7 + salt * 3) % 13;
    if constexpr (std::is_same_v<T, bool>)
        return k % 3 == 0;
    else if constexpr ((std::is_integral_v<T> && std::is_signed_v<T>) ||
                       std::is_same_v<T, Integer16>)
        return static_cast<T>(k - 6);
    else if constexpr (std::is_integral_v<T>)
        return static_cast<T>(k);
    else if constexpr (is_real<T>)
        return static_cast<T>(k - 6) * T(0.375);
    else if constexpr (std::is_same_v<T, Complex32>) {
        Complex32 c;
        __real__ c = Real16(k - 6) * 0.5f;
        __imag__ c = Real16(k % 4) - 1.5f;
        return c;
    } else
        return T(typename T::value_type(k - 6) * 0.5f, typename T::value_type(k % 4) - 1.5f);
}

constexpr int kItems = 37;  // odd, so vectorised loops also run their tail

// kItems items of type (each of type.elements values of the base type).
template <typename T>
void check_elementwise(const Type& type, const Op& op) {
    const int n = kItems * static_cast<int>(type.elements);
    // Not std::vector: vector<bool> has no data().
    auto in = std::make_unique<T[]>(n);
    auto inout = std::make_unique<T[]>(n);
    auto expected = std::make_unique<T[]>(n);
    for (int i = 0; i < n; ++i) {
        in[i] = value<T>(i, 1);
        inout[i] = value<T>(i, 2);
        expected[i] = reference(op.handle, in[i], inout[i]);
    }
    apply(op, type, in.get(), inout.get(), kItems);
    for (int i = 0; i < n; ++i) EXPECT_EQ(inout[i], expected[i]) << "value " << i;
}

// apply() on items laid out in memory: it reduces the packed form, which for
// a pair type with padding (MPI_DOUBLE_INT) is not the memory layout.
void apply_in_memory(const Op& op, const Type& type, const void* in, void* inout,
                     std::size_t count) {
    std::vector<std::byte> packed_in(type.bytes(count)), packed_inout(type.bytes(count));
    pack(type, in, count, packed_in.data());
    pack(type, inout, count, packed_inout.data());
    apply(op, type, packed_in.data(), packed_inout.data(), count);
    unpack(type, packed_inout.data(), packed_inout.size(), inout);
}

template <typename V, typename I = int>
void check_pairs(const Type& type, const Op& op) {
    const bool max = op.handle == MPI_MAXLOC;
    const int n = kItems * static_cast<int>(type.elements);
    std::vector<ValueIndex<V, I>> in(n), inout(n), expected(n);
    for (int i = 0; i < n; ++i) {
        // Values repeat every few items, so ties occur with the lower index
        // on either side.
        in[i] = {static_cast<V>(i % 4), static_cast<I>(100 + i % 3)};
        inout[i] = {static_cast<V>((i * 3) % 4), static_cast<I>(100 + (i * 2) % 3)};
        const ValueIndex<V, I>& a = in[i];
        const ValueIndex<V, I>& b = inout[i];
        if (a.value == b.value)
            expected[i] = {a.value, std::min(a.index, b.index)};
        else if ((a.value > b.value) == max)
            expected[i] = a;
        else
            expected[i] = b;
    }
    apply_in_memory(op, type, in.data(), inout.data(), kItems);
    for (int i = 0; i < n; ++i) {
        EXPECT_EQ(inout[i].value, expected[i].value) << "pair " << i;
        EXPECT_EQ(inout[i].index, expected[i].index) << "pair " << i;
    }
}

template <typename T>
struct Is {
    using type = T;
};

// Calls fn(Is<C type>{}) for a basic predefined type.
template <typename Fn>
void with_c_type(MPI_Datatype handle, Fn&& fn) {
    switch (handle) {
        case MPI_CHAR:
            return fn(Is<char>{});
        case MPI_SIGNED_CHAR:
            return fn(Is<signed char>{});
        case MPI_UNSIGNED_CHAR:
            return fn(Is<unsigned char>{});
        case MPI_BYTE:
            return fn(Is<unsigned char>{});
        case MPI_SHORT:
            return fn(Is<short>{});
        case MPI_UNSIGNED_SHORT:
            return fn(Is<unsigned short>{});
        case MPI_INT:
            return fn(Is<int>{});
        case MPI_UNSIGNED:
            return fn(Is<unsigned>{});
        case MPI_LONG:
            return fn(Is<long>{});
        case MPI_UNSIGNED_LONG:
            return fn(Is<unsigned long>{});
        case MPI_LONG_LONG:
            return fn(Is<long long>{});
        case MPI_UNSIGNED_LONG_LONG:
            return fn(Is<unsigned long long>{});
        case MPI_FLOAT:
            return fn(Is<float>{});
        case MPI_DOUBLE:
            return fn(Is<double>{});
        case MPI_LONG_DOUBLE:
            return fn(Is<long double>{});
        case MPI_INT8_T:
            return fn(Is<std::int8_t>{});
        case MPI_INT16_T:
            return fn(Is<std::int16_t>{});
        case MPI_INT32_T:
            return fn(Is<std::int32_t>{});
        case MPI_INT64_T:
            return fn(Is<std::int64_t>{});
        case MPI_UINT8_T:
            return fn(Is<std::uint8_t>{});
        case MPI_UINT16_T:
            return fn(Is<std::uint16_t>{});
        case MPI_UINT32_T:
            return fn(Is<std::uint32_t>{});
        case MPI_UINT64_T:
            return fn(Is<std::uint64_t>{});
        case MPI_C_BOOL:
        case MPI_CXX_BOOL:
            return fn(Is<bool>{});
        case MPI_C_FLOAT_COMPLEX:
        case MPI_CXX_FLOAT_COMPLEX:
            return fn(Is<std::complex<float>>{});
        case MPI_C_DOUBLE_COMPLEX:
        case MPI_CXX_DOUBLE_COMPLEX:
            return fn(Is<std::complex<double>>{});
        case MPI_C_LONG_DOUBLE_COMPLEX:
        case MPI_CXX_LONG_DOUBLE_COMPLEX:
            return fn(Is<std::complex<long double>>{});
        case MPI_AINT:
            return fn(Is<MPI_Aint>{});
        case MPI_OFFSET:
            return fn(Is<MPI_Offset>{});
        case MPI_COUNT:
            return fn(Is<MPI_Count>{});
        case MPI_INTEGER:
        case MPI_INTEGER4:
        case MPI_LOGICAL:
            return fn(Is<std::int32_t>{});
        case MPI_INTEGER1:
            return fn(Is<std::int8_t>{});
        case MPI_INTEGER2:
            return fn(Is<std::int16_t>{});
        case MPI_INTEGER8:
            return fn(Is<std::int64_t>{});
        case MPI_REAL:
        case MPI_REAL4:
            return fn(Is<float>{});
        case MPI_DOUBLE_PRECISION:
        case MPI_REAL8:
            return fn(Is<double>{});
        case MPI_COMPLEX:
        case MPI_COMPLEX8:
            return fn(Is<std::complex<float>>{});
        case MPI_DOUBLE_COMPLEX:
        case MPI_COMPLEX16:
            return fn(Is<std::complex<double>>{});
        case MPI_REAL16:
            return fn(Is<Real16>{});
        case MPI_COMPLEX32:
            return fn(Is<Complex32>{});
        case MPI_INTEGER16:
            return fn(Is<Integer16>{});
        default:
            FAIL() << "no C type for handle " << handle;
    }
}

void check_values(const Type& type, const Op& op) {
    switch (type.base) {
        case MPI_FLOAT_INT:
            return check_pairs<float>(type, op);
        case MPI_DOUBLE_INT:
            return check_pairs<double>(type, op);
        case MPI_LONG_INT:
            return check_pairs<long>(type, op);
        case MPI_2INT:
            return check_pairs<int>(type, op);
        case MPI_SHORT_INT:
            return check_pairs<short>(type, op);
        case MPI_LONG_DOUBLE_INT:
            return check_pairs<long double>(type, op);
        case MPI_2INTEGER:
            return check_pairs<std::int32_t>(type, op);
        case MPI_2REAL:
            return check_pairs<float, float>(type, op);
        case MPI_2DOUBLE_PRECISION:
            return check_pairs<double, double>(type, op);
    }
    with_c_type(type.base,
                [&](auto is) { check_elementwise<typename decltype(is)::type>(type, op); });
}

// ---- tests -----------------------------------------------------------------------

TEST(Op, PredefinedOperatorsAreFound) {
    for (MPI_Op handle : kOps) {
        const Op* op = lookup_op(handle);
        ASSERT_NE(op, nullptr) << handle;
        EXPECT_EQ(op->handle, handle);
        EXPECT_TRUE(op->predefined);
        EXPECT_TRUE(op->commutative);
        EXPECT_EQ(std::string(op->name).rfind("MPI_", 0), 0u);
    }
    EXPECT_STREQ(lookup_op(MPI_MAXLOC)->name, "MPI_MAXLOC");
    EXPECT_EQ(lookup_op(MPI_OP_NULL), nullptr);
    EXPECT_EQ(lookup_op(MPI_NO_OP + 1), nullptr);
    EXPECT_EQ(lookup_op(MPI_INT), nullptr);
    EXPECT_EQ(lookup_op(0), nullptr);
}

// Every (operator, predefined type) pair: validity as the standard's table
// says, and valid pairs computed as the serial reference computes them.
TEST(Op, EveryPairAgainstTheStandardAndAReference) {
    int valid = 0;
    for (const Type* predefined : all_predefined()) {
        const Type& type = *predefined;
        for (MPI_Op handle : kOps) {
            const Op& op = *lookup_op(handle);
            SCOPED_TRACE(std::string(op.name) + " on " + type.name);
            const bool expect = allowed(handle, group_of(type.handle));
            ASSERT_EQ(reduction_valid(op, type), expect);
            if (!expect) {
                const std::string why = reduction_error(op, type);
                EXPECT_NE(why.find(op.name), std::string::npos) << why;
                if (handle != MPI_REPLACE && handle != MPI_NO_OP) {
                    EXPECT_NE(why.find(type.name), std::string::npos) << why;
                }
                continue;
            }
            EXPECT_EQ(reduction_error(op, type), "");
            ++valid;
            check_values(type, op);
        }
    }
    // 19 C integer (MPI_CHAR included, as MPICH) x 10 + 3 floating x 4 + 3 complex
    // x 2 + bool x 3 + byte x 3 + 3 multi-language x 10 + 6 pairs x 2, and Fortran's:
    // 6 integer x 7 + 5 real x 4 + 5 complex x 2 + LOGICAL x 3 + 3 pairs x 2; C++'s bool
    // x 3 and 3 complex x 2.
    EXPECT_EQ(valid, 190 + 12 + 6 + 3 + 3 + 30 + 12 + 42 + 20 + 10 + 3 + 6 + 3 + 6);
}

TEST(Op, MessagesNameOperatorTypeAndDomain) {
    EXPECT_EQ(reduction_error(*lookup_op(MPI_SUM), *lookup(MPI_BYTE)),
              "MPI_SUM is not defined for MPI_BYTE; it applies to integer, floating-point and "
              "complex types");
    EXPECT_EQ(reduction_error(*lookup_op(MPI_MAX), *lookup(MPI_WCHAR)),
              "MPI_MAX is not defined for MPI_WCHAR; it applies to integer and floating-point "
              "types");
    EXPECT_NE(reduction_error(*lookup_op(MPI_REPLACE), *lookup(MPI_INT)).find("accumulate"),
              std::string::npos);
    MPI_Datatype bytes = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, MPI_BYTE, bytes), MPI_SUCCESS);
    EXPECT_EQ(reduction_error(*lookup_op(MPI_PROD), *lookup(bytes)),
              "MPI_PROD is not defined for contiguous(2 x MPI_BYTE), whose elements are MPI_BYTE; "
              "it applies to integer, floating-point and complex types");
    EXPECT_EQ(free_type(bytes), MPI_SUCCESS);
}

TEST(Op, DerivedTypesReduceElementWise) {
    MPI_Datatype quad = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(4, MPI_INT, quad), MPI_SUCCESS);
    const Type& type = *lookup(quad);
    ASSERT_TRUE(reduction_valid(*lookup_op(MPI_SUM), type));
    std::vector<int> in(12), inout(12);
    for (int i = 0; i < 12; ++i) {
        in[i] = i;
        inout[i] = 100 * i;
    }
    apply(*lookup_op(MPI_SUM), type, in.data(), inout.data(), 3);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(inout[i], 101 * i);

    MPI_Datatype pairs = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, MPI_2INT, pairs), MPI_SUCCESS);
    EXPECT_TRUE(reduction_valid(*lookup_op(MPI_MINLOC), *lookup(pairs)));
    EXPECT_FALSE(reduction_valid(*lookup_op(MPI_SUM), *lookup(pairs)));
    check_pairs<int>(*lookup(pairs), *lookup_op(MPI_MINLOC));
    MPI_Datatype doubles = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(3, MPI_DOUBLE, doubles), MPI_SUCCESS);
    check_elementwise<double>(*lookup(doubles), *lookup_op(MPI_PROD));
    EXPECT_EQ(free_type(doubles), MPI_SUCCESS);
    EXPECT_EQ(free_type(quad), MPI_SUCCESS);
    EXPECT_EQ(free_type(pairs), MPI_SUCCESS);
}

TEST(Op, MaxlocAndMinlocTiesPickTheLowerIndex) {
    const Type& type = *lookup(MPI_DOUBLE_INT);
    ValueIndex<double> in[3] = {{1.5, 7}, {2.0, 3}, {-1.0, 0}};
    ValueIndex<double> inout[3] = {{1.5, 2}, {2.0, 9}, {-1.0, 0}};
    apply_in_memory(*lookup_op(MPI_MAXLOC), type, in, inout, 3);
    EXPECT_EQ(inout[0].index, 2);  // the lower index was already in inout
    EXPECT_EQ(inout[1].index, 3);  // the lower index came from in
    EXPECT_EQ(inout[2].index, 0);

    ValueIndex<int> a[2] = {{5, 4}, {5, 1}};
    ValueIndex<int> b[2] = {{5, 2}, {6, 0}};
    apply_in_memory(*lookup_op(MPI_MINLOC), *lookup(MPI_2INT), a, b, 2);
    EXPECT_EQ(b[0].value, 5);
    EXPECT_EQ(b[0].index, 2);
    EXPECT_EQ(b[1].value, 5);
    EXPECT_EQ(b[1].index, 1);
}

TEST(Op, IntegerArithmeticWraps) {
    int in[2] = {INT32_MAX, INT32_MIN};
    int inout[2] = {1, -1};
    apply(*lookup_op(MPI_SUM), *lookup(MPI_INT), in, inout, 2);
    EXPECT_EQ(inout[0], INT32_MIN);
    EXPECT_EQ(inout[1], INT32_MAX);
    unsigned short a[1] = {65535};
    unsigned short b[1] = {65535};
    apply(*lookup_op(MPI_PROD), *lookup(MPI_UNSIGNED_SHORT), a, b, 1);
    EXPECT_EQ(b[0], 1);  // 65535^2 mod 2^16
}

// ---- user operators ------------------------------------------------------------

struct Recorded {
    int calls = 0;
    int len = -1;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
};
Recorded recorded;

// inout = in - inout on ints: not commutative, so argument order shows.
void subtract(void* in, void* inout, int* len, MPI_Datatype* datatype) {
    ++recorded.calls;
    recorded.len = *len;
    recorded.datatype = *datatype;
    const int per_item = static_cast<int>(lookup(*datatype)->elements);
    auto* a = static_cast<int*>(in);
    auto* b = static_cast<int*>(inout);
    for (int i = 0; i < *len * per_item; ++i) b[i] = a[i] - b[i];
}

TEST(Op, UserOperatorIsCalledWithTheDatatypeHandle) {
    const std::size_t before = user_op_count();
    MPI_Op handle = MPI_OP_NULL;
    ASSERT_EQ(create_op(&subtract, false, handle), MPI_SUCCESS);
    EXPECT_EQ(user_op_count(), before + 1);
    const Op* op = lookup_op(handle);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->handle, handle);
    EXPECT_FALSE(op->predefined);
    EXPECT_FALSE(op->commutative);
    EXPECT_EQ(op->function, &subtract);
    EXPECT_NE(std::string(op->name).find("user operator"), std::string::npos);

    MPI_Datatype pair = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, MPI_INT, pair), MPI_SUCCESS);
    const Type& type = *lookup(pair);
    EXPECT_TRUE(reduction_valid(*op, type));
    EXPECT_TRUE(reduction_valid(*op, *lookup(MPI_CHAR)));  // user operators take any type
    EXPECT_EQ(reduction_error(*op, type), "");
    int in[6] = {10, 20, 30, 40, 50, 60};
    int inout[6] = {1, 2, 3, 4, 5, 6};
    recorded = {};
    apply(*op, type, in, inout, 3);
    EXPECT_EQ(recorded.calls, 1);
    EXPECT_EQ(recorded.len, 3);
    EXPECT_EQ(recorded.datatype, pair);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(inout[i], 9 * (i + 1));

    recorded = {};
    apply(*op, type, in, inout, 0);
    EXPECT_EQ(recorded.calls, 0);

    EXPECT_EQ(free_type(pair), MPI_SUCCESS);
    EXPECT_EQ(free_op(handle), MPI_SUCCESS);
    EXPECT_EQ(lookup_op(handle), nullptr);
    EXPECT_EQ(free_op(handle), MPI_ERR_OP);
    EXPECT_EQ(user_op_count(), before);
}

TEST(Op, CreateAndFreeRules) {
    MPI_Op handle = MPI_OP_NULL;
    EXPECT_EQ(create_op(nullptr, true, handle), MPI_ERR_ARG);
    EXPECT_EQ(handle, MPI_OP_NULL);
    for (MPI_Op predefined : kOps) {
        EXPECT_EQ(free_op(predefined), MPI_ERR_OP);
    }
    EXPECT_EQ(free_op(MPI_OP_NULL), MPI_ERR_OP);
    EXPECT_EQ(free_op(MPI_INT), MPI_ERR_OP);
    ASSERT_EQ(create_op(&subtract, true, handle), MPI_SUCCESS);
    EXPECT_TRUE(lookup_op(handle)->commutative);
    EXPECT_EQ(free_op(handle), MPI_SUCCESS);
}

}  // namespace
}  // namespace si::datatype
