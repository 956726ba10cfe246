/*
 * Fortran's parameterised types from C (MPI 3.1 section 17.2.5):
 * MPI_Type_create_f90_real/complex/integer pick gfortran's kind for (p, r),
 * give the same handle for the same arguments, report MPI_COMBINER_F90_* with
 * p and r through MPI_Type_get_envelope/get_contents, and cannot be freed;
 * MPI_Type_match_size names the sized types. Reductions of MPI_REAL16 (SUM,
 * MAX), MPI_COMPLEX32 (SUM, PROD) and MPI_INTEGER16 (SUM) over every rank, in
 * binary128 arithmetic: 1 + 2^-100 is not 1 there, as it is in a long double.
 *
 * MPICH 4.0 differs, so this runtime alone checks: the kinds beyond 8 bytes
 * (MPICH has none, as C has no type for them), MPI_INTEGER16 (MPICH's is
 * MPI_DATATYPE_NULL), freeing an f90 type (MPICH frees it), the error class
 * of a precision no kind has (MPICH's is MPI_ERR_OTHER) and the reductions of
 * the 16-byte kinds (MPICH sums MPI_REAL16 as x87 long doubles, and refuses
 * MPI_SUM on MPI_COMPLEX32).
 */
#include <stdio.h>

#include "mtest.h"

typedef struct {
    __float128 re, im;
} complex32; /* gfortran's COMPLEX(16) */

/* The size of the type MPI_Type_create_f90_<kind> gives, or -1 on an error. */
static int f90_size(int combiner, int p, int r) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int rc = combiner == MPI_COMBINER_F90_REAL      ? MPI_Type_create_f90_real(p, r, &type)
             : combiner == MPI_COMBINER_F90_COMPLEX ? MPI_Type_create_f90_complex(p, r, &type)
                                                    : MPI_Type_create_f90_integer(r, &type);
    int size = -1;
    if (rc == MPI_SUCCESS) MPI_Type_size(type, &size);
    return size;
}

static int kinds(void) {
    int errs = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED), 4);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_REAL, 7, MPI_UNDEFINED), 8);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 307), 8);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_COMPLEX, 15, 300), 16);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_INTEGER, 0, 2), 1);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_INTEGER, 0, 4), 2);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_INTEGER, 0, 9), 4);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_INTEGER, 0, 18), 8);
#ifdef SI_MPI
    /* REAL(10), x87's format in 16 bytes, and REAL(16), IEEE binary128. */
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_REAL, 18, MPI_UNDEFINED), 16);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_REAL, 33, 4931), 16);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_COMPLEX, 33, MPI_UNDEFINED), 32);
    errs += MT_EQ(f90_size(MPI_COMBINER_F90_INTEGER, 0, 38), 16);
    MPI_Datatype none = MPI_DATATYPE_NULL;
    errs += MT_CLASS(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &none), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_create_f90_complex(MPI_UNDEFINED, 4932, &none), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_create_f90_integer(39, &none), MPI_ERR_ARG);
#else
    MPI_Datatype none = MPI_DATATYPE_NULL;
    errs += MT_CHECK(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &none) != MPI_SUCCESS,
                     "a REAL of 34 digits");
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

/* Same arguments, same handle; the envelope gives them back. */
static int handles_and_envelopes(void) {
    int errs = 0;
    MPI_Datatype a, b, c, i;
    MPI_Type_create_f90_real(12, MPI_UNDEFINED, &a);
    MPI_Type_create_f90_real(12, MPI_UNDEFINED, &b);
    MPI_Type_create_f90_real(13, MPI_UNDEFINED, &c);
    errs += MT_CHECK(a == b, "two handles for f90_real(12, MPI_UNDEFINED)");
    errs += MT_CHECK(a != c, "one handle for p = 12 and p = 13");
    int integers = -1, addresses = -1, datatypes = -1, combiner = -1, values[2] = {0, 0};
    MPI_Type_get_envelope(a, &integers, &addresses, &datatypes, &combiner);
    errs += MT_EQ(combiner, MPI_COMBINER_F90_REAL);
    errs += MT_EQ(integers, 2);
    errs += MT_EQ(addresses, 0);
    errs += MT_EQ(datatypes, 0);
    MPI_Type_get_contents(a, 2, 0, 0, values, NULL, NULL);
    errs += MT_EQ(values[0], 12);
    errs += MT_EQ(values[1], MPI_UNDEFINED);
    MPI_Type_create_f90_complex(MPI_UNDEFINED, 200, &c);
    MPI_Type_get_envelope(c, &integers, &addresses, &datatypes, &combiner);
    errs += MT_EQ(combiner, MPI_COMBINER_F90_COMPLEX);
    MPI_Type_get_contents(c, 2, 0, 0, values, NULL, NULL);
    errs += MT_EQ(values[0], MPI_UNDEFINED);
    errs += MT_EQ(values[1], 200);
    MPI_Type_create_f90_integer(7, &i);
    MPI_Type_get_envelope(i, &integers, &addresses, &datatypes, &combiner);
    errs += MT_EQ(combiner, MPI_COMBINER_F90_INTEGER);
    errs += MT_EQ(integers, 1);
    MPI_Type_get_contents(i, 1, 0, 0, values, NULL, NULL);
    errs += MT_EQ(values[0], 7);
    /* Already usable: committing does nothing. */
    errs += MT_EQ(MPI_Type_commit(&i), MPI_SUCCESS);
#ifdef SI_MPI
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Type_free(&a), MPI_ERR_TYPE);
    errs += MT_CHECK(a == b, "a failed MPI_Type_free changed the handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    return errs;
}

static int match_size(void) {
    int errs = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &type);
    errs += MT_CHECK(type == MPI_REAL4, "REAL of 4 bytes is not MPI_REAL4");
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &type);
    errs += MT_CHECK(type == MPI_REAL8, "REAL of 8 bytes is not MPI_REAL8");
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &type);
    errs += MT_CHECK(type == MPI_REAL16, "REAL of 16 bytes is not MPI_REAL16");
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &type);
    errs += MT_CHECK(type == MPI_INTEGER4, "INTEGER of 4 bytes is not MPI_INTEGER4");
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &type);
    errs += MT_CHECK(type == MPI_COMPLEX32, "COMPLEX of 32 bytes is not MPI_COMPLEX32");
#ifdef SI_MPI
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &type);
    errs += MT_CHECK(type == MPI_INTEGER16, "INTEGER of 16 bytes is not MPI_INTEGER16");
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 10, &type), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &type), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_match_size(-7, 4, &type), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

/* A double from MPI_Type_create_f90_real(15) sums as a double. */
static int reduce_f90_type(void) {
    int errs = 0, rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Datatype real8;
    MPI_Type_create_f90_real(15, MPI_UNDEFINED, &real8);
    const double mine[2] = {rank + 0.5, -rank};
    double sum[2] = {0, 0};
    MPI_Allreduce(mine, sum, 2, real8, MPI_SUM, MPI_COMM_WORLD);
    errs += MT_CHECK(sum[0] == nprocs * (nprocs - 1) / 2.0 + 0.5 * nprocs &&
                         sum[1] == -nprocs * (nprocs - 1) / 2.0,
                     "f90_real(15) sum is %g %g", sum[0], sum[1]);
    return errs;
}

#ifdef SI_MPI
static int reduce_16_byte_kinds(void) {
    int errs = 0, rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const __float128 tiny =
        1.0Q / 1024 / 1024 / 1024 / 1024 / 1024 / 1024 / 1024 / 1024 / 1024 / 1024; /* 2^-100 */
    const __float128 mine[2] = {1 + rank * tiny, -rank - 0.25Q};
    __float128 sum[2], max[2];
    MPI_Allreduce(mine, sum, 2, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
    const int triangle = nprocs * (nprocs - 1) / 2;
    errs += MT_CHECK(sum[0] == nprocs + triangle * tiny, "REAL16 sum misses its 2^-100 parts");
    errs += MT_CHECK(sum[1] == -triangle - 0.25Q * nprocs, "REAL16 sum of %d ranks is %g", nprocs,
                     (double)sum[1]);
    MPI_Reduce(mine, max, 2, MPI_REAL16, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        errs += MT_CHECK(max[0] == 1 + (nprocs - 1) * tiny && max[1] == -0.25Q,
                         "REAL16 max is %g %g", (double)max[0], (double)max[1]);

    const complex32 z = {rank + tiny, -rank};
    complex32 zsum;
    MPI_Allreduce(&z, &zsum, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD);
    errs += MT_CHECK(zsum.re == triangle + nprocs * tiny && zsum.im == -triangle,
                     "COMPLEX32 sum is %g%+gi", (double)zsum.re, (double)zsum.im);
    const complex32 i = {0, 1};
    complex32 power;
    MPI_Allreduce(&i, &power, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD);
    const complex32 powers[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}; /* i^0 .. i^3 */
    errs += MT_CHECK(power.re == powers[nprocs % 4].re && power.im == powers[nprocs % 4].im,
                     "COMPLEX32 product of %d i's is %g%+gi", nprocs, (double)power.re,
                     (double)power.im);

    const __int128 big = (__int128)1 << 100;
    const __int128 part = big + rank;
    __int128 total = 0;
    MPI_Allreduce(&part, &total, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    errs += MT_CHECK(total == nprocs * big + triangle, "INTEGER16 sum differs");

    /* The kind of MPI_Type_create_f90_real(33) is MPI_REAL16: it reduces so. */
    MPI_Datatype real16;
    MPI_Type_create_f90_real(33, MPI_UNDEFINED, &real16);
    MPI_Allreduce(mine, sum, 1, real16, MPI_SUM, MPI_COMM_WORLD);
    errs += MT_CHECK(sum[0] == nprocs + triangle * tiny, "f90_real(33) sum differs");
    return errs;
}
#endif

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = kinds();
    errs += handles_and_envelopes();
    errs += match_size();
    errs += reduce_f90_type();
#ifdef SI_MPI
    errs += reduce_16_byte_kinds();
#endif
    return mtest_finish(errs);
}
