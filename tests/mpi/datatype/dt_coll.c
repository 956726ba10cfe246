/*
 * Collectives on non-contiguous datatypes: a matrix column broadcast; the
 * transpose pattern of gather, scatter, allgather and alltoall, where a
 * rank's block is a column described by a vector resized to one element;
 * an allreduce and a local reduction of a strided type with a predefined
 * operator (holes untouched); a reduction with a user operator on a struct
 * with a hole; and MPI_IN_PLACE with a strided type.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kRows = 6 };

static int g_rank, g_size;

/* One column of a kRows x cols row-major matrix, resized so that column j
 * starts j doubles after column 0. */
static MPI_Datatype column_type(int cols) {
    MPI_Datatype vector, column;
    MPI_Type_vector(kRows, 1, cols, MPI_DOUBLE, &vector);
    MPI_Type_create_resized(vector, 0, sizeof(double), &column);
    MPI_Type_free(&vector);
    MPI_Type_commit(&column);
    return column;
}

static double cell(int row, int col) {
    return row * 100.0 + col;
}

static int bcast_column(void) {
    int errs = 0;
    const int cols = 3;
    MPI_Datatype column = column_type(cols);
    double m[kRows * 3];
    for (int i = 0; i < kRows * cols; ++i) m[i] = g_rank == 0 ? cell(i / cols, i % cols) : -1.0;
    MPI_Bcast(&m[1], 1, column, 0, MPI_COMM_WORLD);
    for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double expected = g_rank == 0 || c == 1 ? cell(r, c) : -1.0;
            errs += MT_CHECK(m[r * cols + c] == expected, "bcast: m[%d][%d] is %g", r, c,
                             m[r * cols + c]);
        }
    MPI_Type_free(&column);
    return errs;
}

/* Rank j contributes column j: kRows doubles (row * 100 + j). */
static int transpose_patterns(void) {
    int errs = 0;
    const int cols = g_size;
    MPI_Datatype column = column_type(cols);
    double mine[kRows], back[kRows];
    for (int r = 0; r < kRows; ++r) mine[r] = cell(r, g_rank);
    double* m = mtest_malloc(sizeof(double) * kRows * (size_t)cols);

    for (int i = 0; i < kRows * cols; ++i) m[i] = -1.0;
    MPI_Gather(mine, kRows, MPI_DOUBLE, m, 1, column, 0, MPI_COMM_WORLD);
    if (g_rank == 0)
        for (int i = 0; i < kRows * cols; ++i)
            errs += MT_CHECK(m[i] == cell(i / cols, i % cols), "gather: m[%d] is %g", i, m[i]);

    memset(back, 0, sizeof back);
    MPI_Scatter(m, 1, column, back, kRows, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; r < kRows; ++r)
        errs += MT_CHECK(back[r] == cell(r, g_rank), "scatter: row %d is %g", r, back[r]);

    for (int i = 0; i < kRows * cols; ++i) m[i] = -1.0;
    MPI_Allgather(mine, kRows, MPI_DOUBLE, m, 1, column, MPI_COMM_WORLD);
    for (int i = 0; i < kRows * cols; ++i)
        errs += MT_CHECK(m[i] == cell(i / cols, i % cols), "allgather: m[%d] is %g", i, m[i]);

    /* In place: this rank's column is already there. */
    for (int i = 0; i < kRows * cols; ++i)
        m[i] = i % cols == g_rank ? cell(i / cols, g_rank) : -1.0;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, 1, column, MPI_COMM_WORLD);
    for (int i = 0; i < kRows * cols; ++i)
        errs +=
            MT_CHECK(m[i] == cell(i / cols, i % cols), "allgather in place: m[%d] is %g", i, m[i]);

    /* Alltoall: rank s sends column d of its matrix (value s*10000 + row*100 + d)
     * to rank d, which stores it as its column s. */
    double* out = mtest_malloc(sizeof(double) * kRows * (size_t)cols);
    for (int i = 0; i < kRows * cols; ++i) out[i] = g_rank * 10000.0 + cell(i / cols, i % cols);
    for (int i = 0; i < kRows * cols; ++i) m[i] = -1.0;
    MPI_Alltoall(out, 1, column, m, 1, column, MPI_COMM_WORLD);
    for (int i = 0; i < kRows * cols; ++i) {
        const double expected = (i % cols) * 10000.0 + cell(i / cols, g_rank);
        errs += MT_CHECK(m[i] == expected, "alltoall: m[%d] is %g, expected %g", i, m[i], expected);
    }
    free(out);
    free(m);
    MPI_Type_free(&column);
    return errs;
}

/* Predefined operators on a strided type of one basic type: this runtime and
 * Open MPI reduce them element-wise; MPICH 4.0 refuses (MPI_ERR_OP). */
static int strided_reductions(void) {
    int errs = 0;
#ifndef SI_MPI
    return errs;
#endif
    enum { n = 1000 };
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    double* in = mtest_malloc(2 * n * sizeof(double));
    double* out = mtest_malloc(2 * n * sizeof(double));
    for (int i = 0; i < 2 * n; ++i) {
        in[i] = i % 2 == 0 ? (double)(g_rank + i) : 7.0;
        out[i] = -1.0;
    }
    MPI_Allreduce(in, out, 1, every_other, MPI_SUM, MPI_COMM_WORLD);
    const double ranks = (double)g_size * (g_size - 1) / 2;
    for (int i = 0; i < 2 * n && errs < 5; ++i) {
        const double expected = i % 2 == 0 ? ranks + (double)g_size * i : -1.0;
        errs += MT_CHECK(out[i] == expected, "allreduce: out[%d] is %g, expected %g", i, out[i],
                         expected);
    }
    /* In place, at every rank. */
    memcpy(out, in, 2 * n * sizeof(double));
    MPI_Allreduce(MPI_IN_PLACE, out, 1, every_other, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * n && errs < 5; ++i) {
        const double expected = i % 2 == 0 ? (double)(g_size - 1 + i) : 7.0;
        errs += MT_CHECK(out[i] == expected, "allreduce in place: out[%d] is %g", i, out[i]);
    }
    for (int i = 0; i < 2 * n; ++i) out[i] = i % 2 == 0 ? 1.0 : -2.0;
    MPI_Reduce_local(in, out, 1, every_other, MPI_SUM);
    for (int i = 0; i < 2 * n && errs < 5; ++i) {
        const double expected = i % 2 == 0 ? g_rank + i + 1.0 : -2.0;
        errs += MT_CHECK(out[i] == expected, "reduce_local: out[%d] is %g", i, out[i]);
    }
    free(in);
    free(out);
    MPI_Type_free(&every_other);
    return errs;
}

struct record {
    int count;
    double total;
};

static void add_records(void* in, void* inout, int* len, MPI_Datatype* type) {
    const struct record* a = in;
    struct record* b = inout;
    for (int i = 0; i < *len; ++i) {
        b[i].count += a[i].count;
        b[i].total += a[i].total;
    }
}

static int user_operator_on_struct(void) {
    int errs = 0;
    const int lengths[] = {1, 1};
    const MPI_Aint offsets[] = {offsetof(struct record, count), offsetof(struct record, total)};
    const MPI_Datatype members[] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Type_create_struct(2, lengths, offsets, members, &t);
    MPI_Type_commit(&t);
    MPI_Op add;
    MPI_Op_create(add_records, 1, &add);
    struct record in[3], out[3];
    for (int i = 0; i < 3; ++i) {
        in[i].count = 1;
        in[i].total = g_rank * 0.5 + i;
    }
    memset(out, 0, sizeof out);
    MPI_Reduce(in, out, 3, t, add, 0, MPI_COMM_WORLD);
    if (g_rank == 0)
        for (int i = 0; i < 3; ++i) {
            errs += MT_EQ(out[i].count, g_size);
            const double expected = 0.25 * g_size * (g_size - 1) + (double)g_size * i;
            errs += MT_CHECK(out[i].total == expected, "reduce: total %d is %g, expected %g", i,
                             out[i].total, expected);
        }
    MPI_Op_free(&add);
    MPI_Type_free(&t);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = bcast_column();
    errs += transpose_patterns();
    errs += strided_reductions();
    errs += user_operator_on_struct();
    return mtest_finish(errs);
}
