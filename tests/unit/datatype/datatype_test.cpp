#include "datatype/datatype.hpp"
#include "datatype/handle_bits.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <climits>
#include <complex>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace si::datatype {
namespace {

// The C layouts MPI specifies for the pair types, written out independently
// of the library's own ValueIndex.
struct FloatInt {
    float v;
    int i;
};
struct DoubleInt {
    double v;
    int i;
};
struct LongInt {
    long v;
    int i;
};
struct TwoInt {
    int v;
    int i;
};
struct ShortInt {
    short v;
    int i;
};
struct LongDoubleInt {
    long double v;
    int i;
};
struct TwoReal {
    float v;
    float i;
};
struct TwoDouble {
    double v;
    double i;
};

struct Expected {
    MPI_Datatype handle;
    const char* name;
    std::size_t size;
    std::size_t extent;
    std::size_t alignment;
};

#define SI_BASIC(handle, type)                                     \
    Expected {                                                     \
        handle, #handle, sizeof(type), sizeof(type), alignof(type) \
    }
#define SI_PAIR(handle, value, pair)                                                  \
    Expected {                                                                        \
        handle, #handle, sizeof(pair::v) + sizeof(pair::i), sizeof(pair), alignof(pair) \
    }

const Expected kExpected[] = {
    SI_BASIC(MPI_CHAR, char),
    SI_BASIC(MPI_SIGNED_CHAR, signed char),
    SI_BASIC(MPI_UNSIGNED_CHAR, unsigned char),
    SI_BASIC(MPI_BYTE, unsigned char),
    SI_BASIC(MPI_WCHAR, wchar_t),
    SI_BASIC(MPI_SHORT, short),
    SI_BASIC(MPI_UNSIGNED_SHORT, unsigned short),
    SI_BASIC(MPI_INT, int),
    SI_BASIC(MPI_UNSIGNED, unsigned),
    SI_BASIC(MPI_LONG, long),
    SI_BASIC(MPI_UNSIGNED_LONG, unsigned long),
    SI_BASIC(MPI_LONG_LONG_INT, long long),
    SI_BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SI_BASIC(MPI_FLOAT, float),
    SI_BASIC(MPI_DOUBLE, double),
    SI_BASIC(MPI_LONG_DOUBLE, long double),
    SI_BASIC(MPI_INT8_T, std::int8_t),
    SI_BASIC(MPI_INT16_T, std::int16_t),
    SI_BASIC(MPI_INT32_T, std::int32_t),
    SI_BASIC(MPI_INT64_T, std::int64_t),
    SI_BASIC(MPI_UINT8_T, std::uint8_t),
    SI_BASIC(MPI_UINT16_T, std::uint16_t),
    SI_BASIC(MPI_UINT32_T, std::uint32_t),
    SI_BASIC(MPI_UINT64_T, std::uint64_t),
    SI_BASIC(MPI_C_BOOL, bool),
    SI_BASIC(MPI_C_COMPLEX, std::complex<float>),
    SI_BASIC(MPI_C_DOUBLE_COMPLEX, std::complex<double>),
    SI_BASIC(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>),
    SI_BASIC(MPI_AINT, MPI_Aint),
    SI_BASIC(MPI_OFFSET, MPI_Offset),
    SI_BASIC(MPI_COUNT, MPI_Count),
    SI_PAIR(MPI_FLOAT_INT, float, FloatInt),
    SI_PAIR(MPI_DOUBLE_INT, double, DoubleInt),
    SI_PAIR(MPI_LONG_INT, long, LongInt),
    SI_PAIR(MPI_2INT, int, TwoInt),
    SI_PAIR(MPI_SHORT_INT, short, ShortInt),
    SI_PAIR(MPI_LONG_DOUBLE_INT, long double, LongDoubleInt),
    SI_BASIC(MPI_PACKED, unsigned char),
    // Fortran's, as gfortran lays them out.
    SI_BASIC(MPI_CHARACTER, char),
    SI_BASIC(MPI_INTEGER, std::int32_t),
    SI_BASIC(MPI_REAL, float),
    SI_BASIC(MPI_DOUBLE_PRECISION, double),
    SI_BASIC(MPI_COMPLEX, std::complex<float>),
    SI_BASIC(MPI_DOUBLE_COMPLEX, std::complex<double>),
    SI_BASIC(MPI_LOGICAL, std::int32_t),
    SI_PAIR(MPI_2INTEGER, int, TwoInt),
    SI_PAIR(MPI_2REAL, float, TwoReal),
    SI_PAIR(MPI_2DOUBLE_PRECISION, double, TwoDouble),
    SI_BASIC(MPI_INTEGER1, std::int8_t),
    SI_BASIC(MPI_INTEGER2, std::int16_t),
    SI_BASIC(MPI_INTEGER4, std::int32_t),
    SI_BASIC(MPI_INTEGER8, std::int64_t),
    SI_BASIC(MPI_REAL4, float),
    SI_BASIC(MPI_REAL8, double),
    SI_BASIC(MPI_COMPLEX8, std::complex<float>),
    SI_BASIC(MPI_COMPLEX16, std::complex<double>),
    SI_BASIC(MPI_REAL16, __float128),
    SI_BASIC(MPI_COMPLEX32, std::complex<__float128>),
    SI_BASIC(MPI_INTEGER16, __int128),
    SI_BASIC(MPI_CXX_BOOL, bool),
    SI_BASIC(MPI_CXX_FLOAT_COMPLEX, std::complex<float>),
    SI_BASIC(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>),
    SI_BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>),
};

#undef SI_BASIC
#undef SI_PAIR

TEST(Datatype, PredefinedTypesMatchTheirCTypes) {
    for (const Expected& e : kExpected) {
        SCOPED_TRACE(e.name);
        const Type* t = lookup(e.handle);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->handle, e.handle);
        EXPECT_EQ(t->base, e.handle);
        EXPECT_EQ(t->size, e.size);
        EXPECT_EQ(t->extent, e.extent);
        EXPECT_EQ(t->alignment, e.alignment);
        EXPECT_EQ(t->lb, 0);
        EXPECT_EQ(t->elements, 1u);
        EXPECT_TRUE(t->predefined);
        EXPECT_TRUE(t->committed);
        // MPI_LONG_LONG and MPI_C_FLOAT_COMPLEX are aliases; the table names them as MPICH
        // does, MPI_LONG_LONG_INT and MPI_C_COMPLEX.
        EXPECT_STREQ(t->name, e.name);
        EXPECT_EQ(t->bytes(3), 3 * e.size);
    }
}

TEST(Datatype, EveryPredefinedHandleIsCovered) {
    const std::vector<const Type*> all = all_predefined();
    EXPECT_EQ(std::size(kExpected), all.size());
    std::set<std::string> names;
    for (const Type* t : all) {
        EXPECT_EQ(lookup(t->handle), t) << t->name;
        names.insert(t->name);
    }
    EXPECT_EQ(names.size(), all.size());
    EXPECT_EQ(lookup(MPI_LONG_LONG_INT), lookup(MPI_LONG_LONG));
    EXPECT_EQ(lookup(MPI_C_COMPLEX), lookup(MPI_C_FLOAT_COMPLEX));
}

TEST(Datatype, PairTypesPackWithoutTheirPadding) {
    // 12 bytes of data in a 16-byte struct on LP64: the wire carries 12.
    const Type& double_int = *lookup(MPI_DOUBLE_INT);
    EXPECT_EQ(double_int.size, sizeof(double) + sizeof(int));
    EXPECT_EQ(double_int.packed, double_int.size);
    EXPECT_EQ(double_int.extent, sizeof(DoubleInt));
    EXPECT_EQ(double_int.true_extent, sizeof(double) + sizeof(int));
    EXPECT_EQ(double_int.family, Family::pair);
    EXPECT_FALSE(double_int.contiguous);
    // Padding between the value and the index is left out too.
    const Type& short_int = *lookup(MPI_SHORT_INT);
    EXPECT_EQ(short_int.extent, sizeof(ShortInt));
    EXPECT_EQ(short_int.packed, sizeof(short) + sizeof(int));
    const ShortInt pair[2] = {{-2, 7}, {3, 9}};
    std::vector<std::byte> packed(short_int.bytes(2));
    pack(short_int, pair, 2, packed.data());
    short value = 0;
    int index = 0;
    std::memcpy(&value, packed.data() + 6, sizeof value);
    std::memcpy(&index, packed.data() + 8, sizeof index);
    EXPECT_EQ(value, 3);
    EXPECT_EQ(index, 9);
    // A lone value counts as one element, and a pair without padding stays dense.
    EXPECT_EQ(elements_in(short_int, 2), 1u);
    EXPECT_EQ(elements_in(short_int, 6), 2u);
    EXPECT_EQ(elements_in(*lookup(MPI_2INT), 12), 3u);
    EXPECT_TRUE(lookup(MPI_2INT)->contiguous);
    EXPECT_TRUE(lookup(MPI_FLOAT_INT)->contiguous);
}

// MPI's type matching lets a struct of a double and an int stand for
// MPI_DOUBLE_INT: both pack to the same bytes.
TEST(Datatype, PairTypesPackLikeAStructOfTheirParts) {
    const DoubleInt pairs[2] = {{1.5, 4}, {-2.0, 8}};
    const Piece pieces[] = {{MPI_DOUBLE, offsetof(DoubleInt, v), 1},
                            {MPI_INT, offsetof(DoubleInt, i), 1}};
    MPI_Datatype as_struct = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, true, "struct", as_struct), MPI_SUCCESS);
    const Type& pair_type = *lookup(MPI_DOUBLE_INT);
    const Type& struct_type = *lookup(as_struct);
    ASSERT_EQ(struct_type.packed, pair_type.packed);
    EXPECT_EQ(struct_type.extent, pair_type.extent);
    std::vector<std::byte> a(pair_type.bytes(2)), b(struct_type.bytes(2));
    pack(pair_type, pairs, 2, a.data());
    pack(struct_type, pairs, 2, b.data());
    EXPECT_EQ(a, b);
    DoubleInt back[2] = {};
    unpack(pair_type, b.data(), b.size(), back);
    EXPECT_EQ(back[1].v, -2.0);
    EXPECT_EQ(back[1].i, 8);
    EXPECT_EQ(elements_in(pair_type, b.size()), 4u);
    EXPECT_EQ(free_type(as_struct), MPI_SUCCESS);
}

TEST(Datatype, InvalidHandlesAreNotFound) {
    EXPECT_EQ(lookup(MPI_DATATYPE_NULL), nullptr);
    EXPECT_EQ(lookup(MPI_COMM_WORLD), nullptr);
    EXPECT_EQ(lookup(MPI_SUM), nullptr);
    EXPECT_EQ(lookup(MPI_REQUEST_NULL), nullptr);
    EXPECT_EQ(lookup(0), nullptr);
    EXPECT_EQ(lookup(-1), nullptr);
    EXPECT_EQ(lookup(MPI_CXX_LONG_DOUBLE_COMPLEX + 1), nullptr);
    EXPECT_EQ(lookup(MPI_DATATYPE_NULL | 64), nullptr);
    EXPECT_EQ(lookup(MPI_DATATYPE_NULL | 5), nullptr);  // MPI_INT's index as a null handle
    EXPECT_EQ(lookup(MPI_INT ^ 0x0c00), nullptr);       // MPI_INT's index, another size
    EXPECT_EQ(lookup(MPI_FLOAT_INT + 5), nullptr);      // past MPI_LONG_DOUBLE_INT
    EXPECT_EQ(lookup(static_cast<MPI_Datatype>(handle::kIndexMask)), nullptr);
}

TEST(Datatype, ContiguousOfABasicType) {
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(4, MPI_INT, h), MPI_SUCCESS);
    const Type* t = lookup(h);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->handle, h);
    EXPECT_EQ(t->base, MPI_INT);
    EXPECT_EQ(t->family, Family::c_integer);
    EXPECT_EQ(t->size, 4 * sizeof(int));
    EXPECT_EQ(t->extent, 4 * sizeof(int));
    EXPECT_EQ(t->lb, 0);
    EXPECT_EQ(t->elements, 4u);
    EXPECT_FALSE(t->predefined);
    EXPECT_FALSE(t->committed);
    EXPECT_STREQ(t->name, "contiguous(4 x MPI_INT)");
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

TEST(Datatype, ContiguousNests) {
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_Datatype outer = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, MPI_DOUBLE_INT, inner), MPI_SUCCESS);
    ASSERT_EQ(create_contiguous(3, inner, outer), MPI_SUCCESS);
    const Type* t = lookup(outer);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->base, MPI_DOUBLE_INT);
    EXPECT_EQ(t->elements, 6u);
    EXPECT_EQ(t->size, 6 * (sizeof(double) + sizeof(int)));
    EXPECT_EQ(t->extent, 6 * sizeof(DoubleInt));
    EXPECT_EQ(t->alignment, alignof(DoubleInt));
    EXPECT_STREQ(t->name, "contiguous(3 x contiguous(2 x MPI_DOUBLE_INT))");
    // Freeing the inner type does not affect the outer one.
    EXPECT_EQ(free_type(inner), MPI_SUCCESS);
    ASSERT_EQ(lookup(outer), t);
    EXPECT_EQ(t->elements, 6u);
    EXPECT_EQ(free_type(outer), MPI_SUCCESS);
}

// Every other int of six: three runs of one int, 4 bytes apart in the packed form.
TEST(Datatype, StridedPiecesFlattenAndPack) {
    std::vector<Piece> pieces;
    for (int i = 0; i < 3; ++i) pieces.push_back(Piece{MPI_INT, 8 * i, 1});
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, false, "strided", h), MPI_SUCCESS);
    const Type* t = lookup(h);
    ASSERT_NE(t, nullptr);
    EXPECT_FALSE(t->contiguous);
    EXPECT_EQ(t->map->size(), 3u);
    EXPECT_EQ(t->size, 12u);
    EXPECT_EQ(t->packed, 12u);
    EXPECT_EQ(t->extent, 20u);  // the last int ends 20 bytes in
    EXPECT_EQ(t->base, MPI_INT);
    const int items[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int packed[6] = {};
    pack(*t, items, 2, packed);  // the second item starts at 20 bytes: items[5]
    EXPECT_EQ(std::vector<int>(packed, packed + 6), (std::vector<int>{1, 3, 5, 6, 8, 10}));
    int unpacked[10] = {};
    unpack(*t, packed, 5 * sizeof(int), unpacked);  // a short message: five of six ints
    EXPECT_EQ(std::vector<int>(unpacked, unpacked + 10),
              (std::vector<int>{1, 0, 3, 0, 5, 6, 0, 8, 0, 0}));
    EXPECT_EQ(elements_in(*t, 5 * sizeof(int)), 5u);
    // MPI_Status_set_elements' inverse, whole items and a part of one.
    for (std::size_t n = 0; n <= 7; ++n) {
        EXPECT_EQ(bytes_for_elements(*t, n), n * sizeof(int)) << n;
        EXPECT_EQ(elements_in(*t, bytes_for_elements(*t, n)), n) << n;
    }
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

// Packing a part at a time gives pack()'s bytes whatever the parts' sizes,
// parts that end inside a run included; a contiguous type too.
TEST(Datatype, PackerPacksInPartsWhatPackPacksAtOnce) {
    std::vector<Piece> pieces;
    for (int i = 0; i < 5; ++i)
        pieces.push_back(Piece{MPI_SHORT, 6 * i, static_cast<std::size_t>(1 + i % 3)});
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, false, "uneven", h), MPI_SUCCESS);
    std::vector<short> items(200);
    for (std::size_t i = 0; i < items.size(); ++i) items[i] = static_cast<short>(i * 7 + 1);
    for (const Type* t : {lookup(h), lookup(MPI_SHORT)}) {
        const std::size_t count = 7, bytes = t->bytes(count);
        std::vector<std::byte> whole(bytes), parts(bytes + 1, std::byte{0x5a});
        pack(*t, items.data(), count, whole.data());
        for (std::size_t part : {std::size_t{1}, std::size_t{3}, std::size_t{5}, bytes}) {
            SCOPED_TRACE(testing::Message() << t->name << ", parts of " << part);
            Packer packer(*t, items.data(), count);
            std::size_t done = 0;
            while (const std::size_t n = packer.next(parts.data() + done, part)) {
                EXPECT_LE(n, part);
                done += n;
            }
            EXPECT_EQ(done, bytes);
            EXPECT_TRUE(std::equal(whole.begin(), whole.end(), parts.begin()));
            EXPECT_EQ(parts[bytes], std::byte{0x5a}) << "nothing packed past the end";
        }
    }
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

// A struct {char; double} with 3 elements: the inverse of elements_in walks
// its runs of different units.
TEST(Datatype, BytesForElementsOfAMixedStruct) {
    const Piece pieces[] = {{MPI_CHAR, 0, 1}, {MPI_DOUBLE, 8, 2}};
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, true, "mixed", h), MPI_SUCCESS);
    const Type* t = lookup(h);
    ASSERT_EQ(t->packed, 17u);
    EXPECT_EQ(bytes_for_elements(*t, 1), 1u);
    EXPECT_EQ(bytes_for_elements(*t, 2), 9u);
    EXPECT_EQ(bytes_for_elements(*t, 3), 17u);
    EXPECT_EQ(bytes_for_elements(*t, 5), 17u + 9u);
    for (std::size_t n = 0; n <= 7; ++n) EXPECT_EQ(elements_in(*t, bytes_for_elements(*t, n)), n);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

// Adjacent runs merge, so a contiguous type made of pieces is dense again.
TEST(Datatype, AdjacentPiecesMerge) {
    const Piece pieces[] = {{MPI_DOUBLE, 0, 2}, {MPI_DOUBLE, 16, 1}};
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, false, "dense", h), MPI_SUCCESS);
    EXPECT_TRUE(lookup(h)->contiguous);
    EXPECT_EQ(lookup(h)->map->size(), 1u);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

// A struct {char; double} is padded to 16 bytes, and mixed: no base type.
TEST(Datatype, StructPadsToItsAlignmentAndHasNoBase) {
    const Piece pieces[] = {{MPI_CHAR, 0, 1}, {MPI_DOUBLE, 8, 1}};
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_from_pieces(pieces, true, "record", h), MPI_SUCCESS);
    const Type* t = lookup(h);
    EXPECT_EQ(t->extent, 16u);
    EXPECT_EQ(t->size, 9u);
    EXPECT_EQ(t->base, MPI_DATATYPE_NULL);
    EXPECT_EQ(t->family, Family::none);
    EXPECT_EQ(t->basic_elements, 2u);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

// Resizing keeps the data and moves the bounds; dense data at a shifted
// lower bound is still contiguous.
TEST(Datatype, ResizedMovesTheBoundsOnly) {
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_resized(MPI_INT, -4, 12, h), MPI_SUCCESS);
    const Type* t = lookup(h);
    EXPECT_EQ(t->lb, -4);
    EXPECT_EQ(t->extent, 12u);
    EXPECT_EQ(t->true_lb, 0);
    EXPECT_EQ(t->true_extent, sizeof(int));
    EXPECT_FALSE(t->contiguous);  // items are 12 bytes apart, 4 of data each
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

TEST(Datatype, ContiguousOfZeroIsEmpty) {
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(0, MPI_DOUBLE, h), MPI_SUCCESS);
    EXPECT_EQ(lookup(h)->size, 0u);
    EXPECT_EQ(lookup(h)->extent, 0u);
    EXPECT_EQ(lookup(h)->elements, 0u);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
}

TEST(Datatype, ContiguousRejectsBadArguments) {
    MPI_Datatype h = MPI_DATATYPE_NULL;
    EXPECT_EQ(create_contiguous(-1, MPI_INT, h), MPI_ERR_COUNT);
    EXPECT_EQ(create_contiguous(1, MPI_DATATYPE_NULL, h), MPI_ERR_TYPE);
    EXPECT_EQ(create_contiguous(1, MPI_COMM_WORLD, h), MPI_ERR_TYPE);
    EXPECT_EQ(h, MPI_DATATYPE_NULL);  // untouched on failure

    // (2^31 - 1)^2 x 8 bytes does not fit in 64 bits; 2^20 x (2^31 - 1) x 8 does.
    MPI_Datatype big = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(INT_MAX, MPI_DOUBLE, big), MPI_SUCCESS);
    EXPECT_EQ(create_contiguous(INT_MAX, big, h), MPI_ERR_COUNT);
    ASSERT_EQ(create_contiguous(1 << 20, big, h), MPI_SUCCESS);
    EXPECT_EQ(lookup(h)->extent, (std::size_t{1} << 20) * INT_MAX * sizeof(double));
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
    EXPECT_EQ(free_type(big), MPI_SUCCESS);
}

TEST(Datatype, CommitRules) {
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, MPI_FLOAT, h), MPI_SUCCESS);
    EXPECT_FALSE(lookup(h)->committed);
    EXPECT_EQ(commit(h), MPI_SUCCESS);
    EXPECT_TRUE(lookup(h)->committed);
    EXPECT_EQ(commit(h), MPI_SUCCESS);  // again: nothing happens
    EXPECT_EQ(commit(MPI_FLOAT), MPI_SUCCESS);
    EXPECT_EQ(commit(MPI_DATATYPE_NULL), MPI_ERR_TYPE);
    EXPECT_EQ(commit(MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
    EXPECT_EQ(commit(h), MPI_ERR_TYPE);
}

TEST(Datatype, FreeRules) {
    for (const Expected& e : kExpected) EXPECT_EQ(free_type(e.handle), MPI_ERR_TYPE) << e.name;
    EXPECT_EQ(free_type(MPI_DATATYPE_NULL), MPI_ERR_TYPE);
    const std::size_t before = derived_count();
    MPI_Datatype h = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(3, MPI_CHAR, h), MPI_SUCCESS);
    EXPECT_EQ(derived_count(), before + 1);
    EXPECT_EQ(free_type(h), MPI_SUCCESS);
    EXPECT_EQ(derived_count(), before);
    EXPECT_EQ(lookup(h), nullptr);
    EXPECT_EQ(free_type(h), MPI_ERR_TYPE);
    MPI_Datatype from_freed = MPI_DATATYPE_NULL;
    EXPECT_EQ(create_contiguous(2, h, from_freed), MPI_ERR_TYPE);
}

TEST(Datatype, StaleHandlesStayInvalidWhenSlotsAreReused) {
    MPI_Datatype first = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(1, MPI_INT, first), MPI_SUCCESS);
    ASSERT_EQ(free_type(first), MPI_SUCCESS);
    // Enough churn to reuse every free slot, the first one included.
    std::vector<MPI_Datatype> alive;
    for (int i = 0; i < 50; ++i) {
        MPI_Datatype h = MPI_DATATYPE_NULL;
        ASSERT_EQ(create_contiguous(i, MPI_INT, h), MPI_SUCCESS);
        EXPECT_NE(h, first);
        alive.push_back(h);
    }
    EXPECT_EQ(lookup(first), nullptr);
    for (MPI_Datatype h : alive) {
        ASSERT_NE(lookup(h), nullptr);
        EXPECT_EQ(lookup(h)->handle, h);
        EXPECT_EQ(free_type(h), MPI_SUCCESS);
    }
}

TEST(Datatype, DeepNestingKeepsNamesShort) {
    MPI_Datatype h = MPI_INT;
    std::vector<MPI_Datatype> made;
    for (int i = 0; i < 30; ++i) {
        MPI_Datatype next = MPI_DATATYPE_NULL;
        ASSERT_EQ(create_contiguous(1, h, next), MPI_SUCCESS);
        made.push_back(next);
        h = next;
    }
    EXPECT_LT(std::strlen(lookup(h)->name), static_cast<std::size_t>(MPI_MAX_OBJECT_NAME));
    EXPECT_EQ(lookup(h)->elements, 1u);
    for (MPI_Datatype m : made) EXPECT_EQ(free_type(m), MPI_SUCCESS);
}

TEST(Datatype, ConcurrentCreateCommitFree) {
    const std::size_t before = derived_count();
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([t, &failures] {
            for (int i = 0; i < 2000; ++i) {
                MPI_Datatype h = MPI_DATATYPE_NULL;
                if (create_contiguous(t + 1, MPI_DOUBLE, h) != MPI_SUCCESS) ++failures;
                if (commit(h) != MPI_SUCCESS) ++failures;
                const Type* type = lookup(h);
                if (type == nullptr || type->handle != h || !type->committed ||
                    type->size != static_cast<std::size_t>(t + 1) * sizeof(double))
                    ++failures;
                if (lookup(MPI_DOUBLE)->size != sizeof(double)) ++failures;
                if (free_type(h) != MPI_SUCCESS) ++failures;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(derived_count(), before);
}

}  // namespace
}  // namespace si::datatype
