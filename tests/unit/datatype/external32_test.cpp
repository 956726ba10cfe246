#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "datatype/datatype.hpp"

namespace si::datatype {
namespace {

// MPI-3.1 table 13.2, written out again independently of external32.cpp: the
// bytes of one element in external32. The pair types are their value and
// their index (section 4.1.7 defines them as structs of the two).
struct Expected {
    MPI_Datatype handle;
    std::size_t bytes;
};
const Expected kSizes[] = {
    {MPI_CHAR, 1},
    {MPI_SIGNED_CHAR, 1},
    {MPI_UNSIGNED_CHAR, 1},
    {MPI_BYTE, 1},
    {MPI_WCHAR, 2},
    {MPI_SHORT, 2},
    {MPI_UNSIGNED_SHORT, 2},
    {MPI_INT, 4},
    {MPI_UNSIGNED, 4},
    {MPI_LONG, 4},
    {MPI_UNSIGNED_LONG, 4},
    {MPI_LONG_LONG, 8},
    {MPI_UNSIGNED_LONG_LONG, 8},
    {MPI_FLOAT, 4},
    {MPI_DOUBLE, 8},
    {MPI_LONG_DOUBLE, 16},
    {MPI_INT8_T, 1},
    {MPI_INT16_T, 2},
    {MPI_INT32_T, 4},
    {MPI_INT64_T, 8},
    {MPI_UINT8_T, 1},
    {MPI_UINT16_T, 2},
    {MPI_UINT32_T, 4},
    {MPI_UINT64_T, 8},
    {MPI_C_BOOL, 1},
    {MPI_C_FLOAT_COMPLEX, 2 * 4},
    {MPI_C_DOUBLE_COMPLEX, 2 * 8},
    {MPI_C_LONG_DOUBLE_COMPLEX, 2 * 16},
    {MPI_AINT, 8},
    {MPI_OFFSET, 8},
    {MPI_COUNT, 8},
    {MPI_FLOAT_INT, 4 + 4},
    {MPI_DOUBLE_INT, 8 + 4},
    {MPI_LONG_INT, 4 + 4},
    {MPI_2INT, 4 + 4},
    {MPI_SHORT_INT, 2 + 4},
    {MPI_LONG_DOUBLE_INT, 16 + 4},
    {MPI_PACKED, 1},
    {MPI_CHARACTER, 1},
    {MPI_INTEGER, 4},
    {MPI_REAL, 4},
    {MPI_DOUBLE_PRECISION, 8},
    {MPI_COMPLEX, 2 * 4},
    {MPI_DOUBLE_COMPLEX, 2 * 8},
    {MPI_LOGICAL, 4},
    {MPI_2INTEGER, 4 + 4},
    {MPI_2REAL, 4 + 4},
    {MPI_2DOUBLE_PRECISION, 8 + 8},
    {MPI_INTEGER1, 1},
    {MPI_INTEGER2, 2},
    {MPI_INTEGER4, 4},
    {MPI_INTEGER8, 8},
    {MPI_REAL4, 4},
    {MPI_REAL8, 8},
    {MPI_COMPLEX8, 2 * 4},
    {MPI_COMPLEX16, 2 * 8},
    {MPI_REAL16, 16},
    {MPI_COMPLEX32, 2 * 16},
    {MPI_INTEGER16, 16},
    {MPI_CXX_BOOL, 1},
    {MPI_CXX_FLOAT_COMPLEX, 2 * 4},
    {MPI_CXX_DOUBLE_COMPLEX, 2 * 8},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * 16},
};

// The types holding a long double, which a random binary128 does not survive
// (it rounds to x87's 64-bit significand): LongDoubleIsBinary128 covers them.
bool holds_long_double(MPI_Datatype handle) {
    return handle == MPI_LONG_DOUBLE || handle == MPI_C_LONG_DOUBLE_COMPLEX ||
           handle == MPI_CXX_LONG_DOUBLE_COMPLEX || handle == MPI_LONG_DOUBLE_INT;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
    std::string s;
    for (std::uint8_t b : bytes) {
        static const char digits[] = "0123456789abcdef";
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

// The external32 bytes of `count` items of a predefined type at `value`.
template <typename T>
std::string packed(MPI_Datatype handle, const T& value, std::size_t count = 1) {
    const Type& type = *lookup(handle);
    std::vector<std::uint8_t> out(external32_bytes(type, count));
    pack_external32(type, &value, count, out.data());
    return hex(out);
}

// Unpacking what was packed gives the value back.
template <typename T>
T round_trip(MPI_Datatype handle, const T& value) {
    const Type& type = *lookup(handle);
    std::vector<std::uint8_t> out(external32_bytes(type, 1));
    pack_external32(type, &value, 1, out.data());
    T back{};
    unpack_external32(type, out.data(), 1, &back);
    return back;
}

TEST(External32, SizesAreTheStandardTable) {
    EXPECT_EQ(std::size(kSizes), all_predefined().size());
    for (const Expected& e : kSizes) {
        const Type& type = *lookup(e.handle);
        SCOPED_TRACE(type.name);
        EXPECT_EQ(external32_bytes(type, 1), e.bytes);
        EXPECT_EQ(external32_bytes(type, 5), 5 * e.bytes);
        EXPECT_EQ(external32_bytes(type, 0), 0u);
    }
}

TEST(External32, KnownValuesAreBigEndian) {
    EXPECT_EQ(packed(MPI_INT, 0x01020304), "01020304");
    EXPECT_EQ(packed(MPI_SHORT, short{-2}), "fffe");
    EXPECT_EQ(packed(MPI_UNSIGNED_LONG_LONG, 0x0102030405060708ull), "0102030405060708");
    EXPECT_EQ(packed(MPI_DOUBLE, 1.0), "3ff0000000000000");
    EXPECT_EQ(packed(MPI_FLOAT, -2.0f), "c0000000");
    EXPECT_EQ(packed(MPI_C_BOOL, true), "01");
    EXPECT_EQ(packed(MPI_LOGICAL, std::int32_t{1}), "00000001");
    EXPECT_EQ(packed(MPI_AINT, MPI_Aint{-1}), "ffffffffffffffff");
    const std::complex<float> z(1.0f, -1.0f);
    EXPECT_EQ(packed(MPI_COMPLEX, z), "3f800000bf800000");
    const Real16 quarter = 0.25;
    EXPECT_EQ(packed(MPI_REAL16, quarter), "3ffd0000000000000000000000000000");
    const Integer16 big = Integer16{1} << 64;
    EXPECT_EQ(packed(MPI_INTEGER16, big), "00000000000000010000000000000000");
    // A pair is its value and its index, without the struct's padding.
    const ValueIndex<double, int> pair{2.0, 7};
    EXPECT_EQ(packed(MPI_DOUBLE_INT, pair), "400000000000000000000007");
}

// MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes in external32 and MPI_WCHAR 2:
// the less significant bytes go, a signed value comes back sign-extended.
TEST(External32, NarrowerIntegersKeepTheirLowBytes) {
    EXPECT_EQ(packed(MPI_LONG, -2L), "fffffffe");
    EXPECT_EQ(round_trip(MPI_LONG, -2L), -2L);
    EXPECT_EQ(round_trip(MPI_LONG, 2147483647L), 2147483647L);
    EXPECT_EQ(packed(MPI_UNSIGNED_LONG, 0x1'8000'0001ul), "80000001");
    EXPECT_EQ(round_trip(MPI_UNSIGNED_LONG, 0xffff'fffful), 0xffff'fffful);
    EXPECT_EQ(packed(MPI_WCHAR, L'\u00e9'), "00e9");
    EXPECT_EQ(round_trip(MPI_WCHAR, L'\uffff'), L'\uffff');
    const ValueIndex<long, int> pair{-3, 9};
    EXPECT_EQ(packed(MPI_LONG_INT, pair), "fffffffd00000009");
}

// x87's 80-bit long double is an IEEE binary128 in external32, exactly.
TEST(External32, LongDoubleIsBinary128) {
    EXPECT_EQ(packed(MPI_LONG_DOUBLE, 1.5L), "3fff8000000000000000000000000000");
    for (long double v : {1.5L, -0.1L, 1e4000L, -3e-4000L, 0.0L}) {
        EXPECT_EQ(round_trip(MPI_LONG_DOUBLE, v), v);
        const std::complex<long double> z(v, -v / 3);
        EXPECT_EQ(round_trip(MPI_C_LONG_DOUBLE_COMPLEX, z), z);
        const ValueIndex<long double, int> pair{v, 42};
        const ValueIndex<long double, int> back = round_trip(MPI_LONG_DOUBLE_INT, pair);
        EXPECT_EQ(back.value, v);
        EXPECT_EQ(back.index, 42);
    }
}

// Every predefined type between chars, in a struct of mixed types (so the
// walk follows a signature): external32 bytes unpacked and packed again are
// the same bytes, and each char lands where the type map puts it, which
// holds only if each codec's native size is the type's.
TEST(External32, EveryPredefinedTypeRoundTripsInAStruct) {
    std::mt19937 random(7);
    for (const Expected& e : kSizes) {
        if (holds_long_double(e.handle)) continue;
        const Type& basic = *lookup(e.handle);
        SCOPED_TRACE(basic.name);
        const auto two = static_cast<std::ptrdiff_t>(2 * basic.extent);
        const Piece pieces[] = {{e.handle, 0, 2}, {MPI_CHAR, two, 1}};
        MPI_Datatype handle = MPI_DATATYPE_NULL;
        ASSERT_EQ(create_from_pieces(pieces, true, "record", handle), MPI_SUCCESS);
        const Type& type = *lookup(handle);
        ASSERT_EQ(external32_bytes(type, 1), 2 * e.bytes + 1);
        std::vector<std::uint8_t> external(external32_bytes(type, 3));
        for (std::uint8_t& b : external) b = static_cast<std::uint8_t>(random());
        std::vector<std::uint8_t> items(3 * type.extent);
        unpack_external32(type, external.data(), 3, items.data());
        for (std::size_t i = 0; i < 3; ++i)
            EXPECT_EQ(items[i * type.extent + 2 * basic.extent],
                      external[(i + 1) * (2 * e.bytes + 1) - 1])
                << "the char of item " << i;
        std::vector<std::uint8_t> again(external.size());
        pack_external32(type, items.data(), 3, again.data());
        EXPECT_EQ(hex(again), hex(external));
        EXPECT_EQ(free_type(handle), MPI_SUCCESS);
    }
}

// struct {int; double} (padded to 16 bytes), three of them in a contiguous
// type, every other one of those in a vector: the struct's signature is
// nested, not copied, and the external32 bytes follow the type map.
TEST(External32, NestedSignaturesOfMixedTypes) {
    struct Record {
        std::int32_t i;
        double d;
    };
    const Piece members[] = {{MPI_INT, 0, 1}, {MPI_DOUBLE, 8, 1}};
    MPI_Datatype record = MPI_DATATYPE_NULL, three = MPI_DATATYPE_NULL, strided = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(members, true, "record", record), MPI_SUCCESS);
    ASSERT_EQ(create_contiguous(3, record, three), MPI_SUCCESS);
    ASSERT_EQ(lookup(three)->signature->runs.size(), 1u);  // 3 passes over the record's
    const Piece every_other[] = {{three, 0, 1}, {three, 2 * 3 * 16, 1}};
    ASSERT_EQ(create_from_pieces(every_other, false, "strided", strided), MPI_SUCCESS);
    const Type& type = *lookup(strided);
    EXPECT_EQ(external32_bytes(type, 1), 2 * 3 * 12u);
    Record records[2 * 9];  // two items of the strided type, 9 records apart
    for (int k = 0; k < 18; ++k) records[k] = {k, k + 0.5};
    std::vector<std::uint8_t> out(external32_bytes(type, 2));
    ASSERT_EQ(type.extent, 9 * sizeof(Record));
    pack_external32(type, records, 2, out.data());
    // Item 0: records 0-2 and 6-8; item 1 starts 9 records in: 9-11 and 15-17.
    std::vector<std::uint8_t> expected;
    for (int k : {0, 1, 2, 6, 7, 8, 9, 10, 11, 15, 16, 17}) {
        std::vector<std::uint8_t> one(12);
        const Type& int_type = *lookup(MPI_INT);
        const Type& double_type = *lookup(MPI_DOUBLE);
        pack_external32(int_type, &records[k].i, 1, one.data());
        pack_external32(double_type, &records[k].d, 1, one.data() + 4);
        expected.insert(expected.end(), one.begin(), one.end());
    }
    EXPECT_EQ(hex(out), hex(expected));
    EXPECT_EQ(free_type(strided), MPI_SUCCESS);
    EXPECT_EQ(free_type(three), MPI_SUCCESS);
    EXPECT_EQ(free_type(record), MPI_SUCCESS);
}

// A million records in one contiguous type: its signature is one run.
TEST(External32, RepeatedMixedTypesStaySmall) {
    const Piece members[] = {{MPI_INT, 0, 1}, {MPI_FLOAT, 4, 1}};
    MPI_Datatype record = MPI_DATATYPE_NULL, many = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(members, true, "record", record), MPI_SUCCESS);
    ASSERT_EQ(lookup(record)->signature->runs.size(), 2u);
    ASSERT_EQ(create_contiguous(1'000'000, record, many), MPI_SUCCESS);
    EXPECT_EQ(lookup(many)->signature->runs.size(), 1u);
    EXPECT_EQ(external32_bytes(*lookup(many), 2), 2 * 8'000'000u);
    EXPECT_EQ(free_type(many), MPI_SUCCESS);
    EXPECT_EQ(free_type(record), MPI_SUCCESS);
}

// A strided type over more items than one chunk of the native copy.
TEST(External32, ManyItemsOfANonContiguousType) {
    std::vector<Piece> pieces;
    for (int i = 0; i < 2; ++i) pieces.push_back(Piece{MPI_SHORT, 4 * i, 1});
    MPI_Datatype every_other = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, false, "every other short", every_other), MPI_SUCCESS);
    const Type& type = *lookup(every_other);
    ASSERT_FALSE(type.contiguous);
    ASSERT_EQ(type.extent, 3 * sizeof(short));
    const std::size_t items = 100'000;
    std::vector<short> values(3 * items);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<short>(k);
    std::vector<std::uint8_t> out(external32_bytes(type, items));
    pack_external32(type, values.data(), items, out.data());
    for (std::size_t i = 0; i < items; i += 997)
        for (std::size_t j = 0; j < 2; ++j) {
            const auto expected = static_cast<std::uint16_t>(3 * i + 2 * j);
            ASSERT_EQ(out[4 * i + 2 * j], expected >> 8) << i;
            ASSERT_EQ(out[4 * i + 2 * j + 1], expected & 0xff) << i;
        }
    std::vector<short> back(3 * items, -1);
    unpack_external32(type, out.data(), items, back.data());
    for (std::size_t k = 0; k < back.size(); ++k)
        ASSERT_EQ(back[k], k % 3 == 1 ? -1 : values[k]) << k;
    EXPECT_EQ(free_type(every_other), MPI_SUCCESS);
}

}  // namespace
}  // namespace si::datatype
