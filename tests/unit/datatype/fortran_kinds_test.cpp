#include <gtest/gtest.h>

#include <string>

#include "datatype/datatype.hpp"

namespace si::datatype {
namespace {

constexpr int U = MPI_UNDEFINED;

// The predefined type behind f90_type(combiner, p, r), or MPI_DATATYPE_NULL.
MPI_Datatype base_of(int combiner, int p, int r) {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    if (f90_type(combiner, p, r, handle) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
    return lookup(handle)->base;
}

// gfortran's SELECTED_REAL_KIND and SELECTED_INT_KIND on x86-64: real(4) has
// precision 6 and range 37, real(8) 15 and 307, real(10) 18 and 4931,
// real(16) 33 and 4931; integer(1..16) ranges 2, 4, 9, 18 and 38.
TEST(FortranKinds, SelectTheSmallestKindLikeGfortran) {
    const struct {
        int p, r;
        MPI_Datatype real, complex;
    } reals[] = {
        {6, U, MPI_REAL4, MPI_COMPLEX8},
        {7, U, MPI_REAL8, MPI_COMPLEX16},
        {15, 307, MPI_REAL8, MPI_COMPLEX16},
        {16, U, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
        {U, 308, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
        {18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
        {19, U, MPI_REAL16, MPI_COMPLEX32},
        {33, 4931, MPI_REAL16, MPI_COMPLEX32},
        {U, 38, MPI_REAL8, MPI_COMPLEX16},
        {0, 0, MPI_REAL4, MPI_COMPLEX8},
        {U, U, MPI_REAL4, MPI_COMPLEX8},  // as MPICH: the default kind
        {34, U, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL},
        {U, 4932, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL},
    };
    for (const auto& e : reals) {
        SCOPED_TRACE("p " + std::to_string(e.p) + " r " + std::to_string(e.r));
        EXPECT_EQ(base_of(MPI_COMBINER_F90_REAL, e.p, e.r), e.real);
        EXPECT_EQ(base_of(MPI_COMBINER_F90_COMPLEX, e.p, e.r), e.complex);
    }
    const struct {
        int r;
        MPI_Datatype type;
    } integers[] = {
        {U, MPI_INTEGER1},   {2, MPI_INTEGER1},   {3, MPI_INTEGER2},       {4, MPI_INTEGER2},
        {5, MPI_INTEGER4},   {9, MPI_INTEGER4},   {10, MPI_INTEGER8},      {18, MPI_INTEGER8},
        {19, MPI_INTEGER16}, {38, MPI_INTEGER16}, {39, MPI_DATATYPE_NULL},
    };
    for (const auto& e : integers)
        EXPECT_EQ(base_of(MPI_COMBINER_F90_INTEGER, 0, e.r), e.type) << "r " << e.r;
}

TEST(FortranKinds, OneHandlePerArgumentsPredefinedAndNeverFreed) {
    const std::size_t derived = derived_count();
    MPI_Datatype a = MPI_DATATYPE_NULL, b = MPI_DATATYPE_NULL, c = MPI_DATATYPE_NULL;
    ASSERT_EQ(f90_type(MPI_COMBINER_F90_REAL, 5, U, a), MPI_SUCCESS);
    ASSERT_EQ(f90_type(MPI_COMBINER_F90_REAL, 5, U, b), MPI_SUCCESS);
    ASSERT_EQ(f90_type(MPI_COMBINER_F90_REAL, 4, U, c), MPI_SUCCESS);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);  // the same kind, but get_contents must give back p = 4
    const Type& type = *lookup(a);
    EXPECT_TRUE(type.predefined);
    EXPECT_TRUE(type.committed);
    EXPECT_EQ(type.size, 4u);
    EXPECT_EQ(type.family, Family::floating);
    EXPECT_STREQ(type.name, "f90_real(5, MPI_UNDEFINED)");
    ASSERT_TRUE(type.envelope);
    EXPECT_EQ(type.envelope->combiner, MPI_COMBINER_F90_REAL);
    EXPECT_EQ(type.envelope->integers, (std::vector<int>{5, U}));
    EXPECT_EQ(free_type(a), MPI_ERR_TYPE);
    EXPECT_EQ(lookup(a), &type);
    EXPECT_EQ(commit(a), MPI_SUCCESS);
    EXPECT_EQ(derived_count(), derived);

    MPI_Datatype i = MPI_DATATYPE_NULL;
    ASSERT_EQ(f90_type(MPI_COMBINER_F90_INTEGER, 0, 12, i), MPI_SUCCESS);
    EXPECT_STREQ(lookup(i)->name, "f90_integer(12)");
    EXPECT_EQ(lookup(i)->envelope->integers, (std::vector<int>{12}));
    // A type built from it is an ordinary derived type.
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    ASSERT_EQ(create_contiguous(2, i, pair), MPI_SUCCESS);
    EXPECT_EQ(lookup(pair)->base, MPI_INTEGER8);
    EXPECT_FALSE(lookup(pair)->predefined);
    EXPECT_EQ(free_type(pair), MPI_SUCCESS);
}

TEST(FortranKinds, ErrorsNameTheLargestKind) {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    EXPECT_EQ(f90_type(MPI_COMBINER_F90_COMPLEX, 40, U, handle), MPI_ERR_ARG);
    EXPECT_EQ(handle, MPI_DATATYPE_NULL);
    EXPECT_EQ(f90_error(MPI_COMBINER_F90_COMPLEX, 40, U),
              "no COMPLEX kind has precision p = 40 and range r = MPI_UNDEFINED; the largest, "
              "COMPLEX(16), has precision 33 and range 4931");
    EXPECT_EQ(f90_error(MPI_COMBINER_F90_INTEGER, 0, 39),
              "no INTEGER kind has range r = 39; the largest, INTEGER(16), has 38");
    EXPECT_EQ(f90_error(MPI_COMBINER_F90_REAL, 33, U), "");
}

TEST(FortranKinds, MatchSizeGivesTheSizedNames) {
    EXPECT_EQ(match_size(MPI_TYPECLASS_REAL, 4), MPI_REAL4);
    EXPECT_EQ(match_size(MPI_TYPECLASS_REAL, 8), MPI_REAL8);
    EXPECT_EQ(match_size(MPI_TYPECLASS_REAL, 16), MPI_REAL16);
    EXPECT_EQ(match_size(MPI_TYPECLASS_REAL, 10), MPI_DATATYPE_NULL);
    for (int size : {1, 2, 4, 8, 16})
        EXPECT_EQ(lookup(match_size(MPI_TYPECLASS_INTEGER, size))->size,
                  static_cast<std::size_t>(size));
    EXPECT_EQ(match_size(MPI_TYPECLASS_INTEGER, 3), MPI_DATATYPE_NULL);
    EXPECT_EQ(match_size(MPI_TYPECLASS_COMPLEX, 8), MPI_COMPLEX8);
    EXPECT_EQ(match_size(MPI_TYPECLASS_COMPLEX, 16), MPI_COMPLEX16);
    EXPECT_EQ(match_size(MPI_TYPECLASS_COMPLEX, 32), MPI_COMPLEX32);
    EXPECT_EQ(match_size(MPI_TYPECLASS_COMPLEX, 4), MPI_DATATYPE_NULL);
    EXPECT_EQ(match_size(99, 4), MPI_DATATYPE_NULL);
}

}  // namespace
}  // namespace si::datatype
