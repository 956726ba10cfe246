/*
 * User-defined reduction operations (MPI_Op_create / MPI_Op_free). The
 * function computes inoutvec[i] = invec[i] op inoutvec[i]; for an operation
 * created with commute = 0 the result must be x0 op x1 op ... op x(n-1) in
 * rank order of the communicator (MPI 3.1, section 5.9.5), whatever the
 * algorithm, the root, or a message size that makes it segment the data.
 *
 * The non-commutative operation is the product of 2x2 matrices over
 * unsigned ints (associative, exact modulo 2^32, not commutative), on a
 * contiguous datatype of 4 unsigned; the function checks that it is handed
 * that datatype. Run on all test communicators (the reversed split makes
 * comm order differ from world order), every root, 1, 5 and 65536 matrices
 * (1 MiB), MPI_Reduce, MPI_Allreduce and MPI_Reduce_local. A commutative
 * user operation (sum modulo a prime) runs alongside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static MPI_Datatype g_matrix; /* contiguous(4, MPI_UNSIGNED): {a, b, c, d} = [[a b][c d]] */
static int g_wrong_type = 0;

static void matmul(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
    if (*datatype != g_matrix) g_wrong_type = 1;
    const unsigned* x = invec;
    unsigned* y = inoutvec;
    for (int i = 0; i < *len; ++i, x += 4, y += 4) {
        unsigned r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                         x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
        memcpy(y, r, sizeof r);
    }
}

enum { kPrime = 9973 };
static void summod(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
    (void)datatype;
    const int* x = invec;
    int* y = inoutvec;
    for (int i = 0; i < *len; ++i) y[i] = (x[i] + y[i]) % kPrime;
}

/* Rank r's i-th matrix: [[r+2, i%3+1], [1, r]]; no two ranks' commute. */
static void my_matrix(unsigned* m, int rank, int i) {
    m[0] = (unsigned)rank + 2;
    m[1] = (unsigned)(i % 3) + 1;
    m[2] = 1;
    m[3] = (unsigned)rank;
}

static int check_product(const char* what, const unsigned* got, int count, int nranks) {
    for (int i = 0; i < count; ++i) {
        unsigned want[4], m[4];
        my_matrix(want, 0, i);
        for (int r = 1; r < nranks; ++r) { /* want = want * M_r */
            int one = 1;
            MPI_Datatype type = g_matrix;
            my_matrix(m, r, i);
            /* matmul computes inout = in * inout, so pass want as in and M_r as inout. */
            matmul(want, m, &one, &type);
            memcpy(want, m, sizeof m);
        }
        if (memcmp(want, got + 4 * i, sizeof want) != 0)
            return MT_CHECK(0,
                            "%s: matrix %d is [%u %u; %u %u], expected [%u %u; %u %u] (the "
                            "product in rank order)",
                            what, i, got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3],
                            want[0], want[1], want[2], want[3]);
    }
    return 0;
}

static int run(MPI_Comm comm, const char* name, MPI_Op noncommutative, MPI_Op commutative) {
    const int counts[] = {1, 5, 65536};
    int rank, size, errs = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < 3; ++k) {
        const int count = counts[k];
        unsigned* in = mtest_malloc(sizeof(unsigned) * 4 * (size_t)count);
        unsigned* out = mtest_malloc(sizeof(unsigned) * 4 * (size_t)count);
        for (int i = 0; i < count; ++i) my_matrix(in + 4 * i, rank, i);
        char what[128];
        for (int root = 0; root < size; ++root) {
            /* Large counts are slow to check; one root is enough for them. */
            if (count > 5 && root != size - 1) continue;
            memset(out, 0, sizeof(unsigned) * 4 * (size_t)count);
            MPI_Reduce(in, out, count, g_matrix, noncommutative, root, comm);
            snprintf(what, sizeof what, "MPI_Reduce on %s, root %d, %d matrices", name, root,
                     count);
            if (rank == root) errs += check_product(what, out, count, size);
        }
        MPI_Allreduce(in, out, count, g_matrix, noncommutative, comm);
        snprintf(what, sizeof what, "MPI_Allreduce on %s, %d matrices", name, count);
        errs += check_product(what, out, count, size);
        free(in);
        free(out);
    }

    /* Commutative user operation, in place. */
    int values[100];
    for (int i = 0; i < 100; ++i) values[i] = (rank * 1000 + i * 77) % kPrime;
    MPI_Allreduce(MPI_IN_PLACE, values, 100, MPI_INT, commutative, comm);
    for (int i = 0; i < 100; ++i) {
        int want = 0;
        for (int r = 0; r < size; ++r) want = (want + (r * 1000 + i * 77) % kPrime) % kPrime;
        if (values[i] != want) {
            errs += MT_CHECK(0, "sum mod %d on %s, element %d: %d, expected %d", kPrime, name, i,
                             values[i], want);
            break;
        }
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &g_matrix);
    MPI_Type_commit(&g_matrix);
    MPI_Op noncommutative, commutative;
    MPI_Op_create(matmul, 0, &noncommutative);
    MPI_Op_create(summod, 1, &commutative);

    MPI_Comm comm;
    const char* name;
    for (int c = 0; mtest_comm_get(c, &comm, &name); ++c) {
        if (comm != MPI_COMM_NULL) errs += run(comm, name, noncommutative, commutative);
        mtest_comm_release(&comm);
    }

    /* MPI_Reduce_local applies the operation once: inout = in op inout. */
    unsigned a[4], b[4];
    my_matrix(a, 0, 0);
    my_matrix(b, 1, 0);
    MPI_Reduce_local(a, b, 1, g_matrix, noncommutative);
    errs += check_product("MPI_Reduce_local", b, 1, 2);

    errs += MT_CHECK(!g_wrong_type,
                     "the user function was handed a datatype other than the one "
                     "passed to the reduction");
    MPI_Op_free(&noncommutative);
    MPI_Op_free(&commutative);
    errs += MT_CHECK(noncommutative == MPI_OP_NULL && commutative == MPI_OP_NULL,
                     "MPI_Op_free did not reset the handles");
    MPI_Type_free(&g_matrix);
    return mtest_finish(errs);
}
