/*
 * Contiguous derived datatypes: MPI_Type_contiguous, commit, free, size and
 * extent, and their use in point-to-point and collective calls. Messages are
 * typed by their signature, not by how each side spells it: n elements of
 * contiguous(3, MPI_INT) match 3n MPI_INTs, and MPI_Get_count counts in
 * whichever type it is asked about. Also:
 *   - a 1 MiB element (a rendezvous message made of few derived elements);
 *   - a type over MPI_DOUBLE_INT, whose extent (16) is larger than its size
 *     (12): the elements sit one extent apart in memory;
 *   - MPI_Type_free while a send using the type is still pending, and freeing
 *     a type that another type was built from (MPI 3.1, section 4.1.9: both
 *     leave the communication / the derived type intact);
 *   - MPI_Bcast and MPI_Allgather with contiguous types.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size, g_right, g_left;

static int size_and_extent(void) {
    int errs = 0, size;
    MPI_Aint lb, extent;
    MPI_Datatype t3, t6, empty;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_contiguous(2, t3, &t6);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&t3);
    MPI_Type_commit(&t6);
    MPI_Type_commit(&empty);
    MPI_Type_size(t3, &size);
    errs += MT_EQ(size, 3 * (int)sizeof(int));
    MPI_Type_get_extent(t3, &lb, &extent);
    errs += MT_EQ(lb, 0);
    errs += MT_EQ(extent, 3 * (MPI_Aint)sizeof(int));
    MPI_Type_size(t6, &size);
    errs += MT_EQ(size, 6 * (int)sizeof(int));
    MPI_Type_size(empty, &size);
    errs += MT_EQ(size, 0);

    struct {
        double d;
        int i;
    } pairs[2];
    MPI_Type_size(MPI_DOUBLE_INT, &size);
    errs += MT_EQ(size, (int)(sizeof(double) + sizeof(int)));
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
    errs += MT_EQ(extent, (MPI_Aint)sizeof pairs[0]);

    /* A zero-size type gives zero-byte messages. */
    int dummy = 0, count = -1;
    MPI_Status status;
    MPI_Sendrecv(&dummy, 5, empty, g_right, 1, &dummy, 5, empty, g_left, 1, MPI_COMM_WORLD,
                 &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, 0);

    MPI_Type_free(&t3);
    MPI_Type_free(&t6);
    MPI_Type_free(&empty);
    errs += MT_CHECK(t3 == MPI_DATATYPE_NULL && t6 == MPI_DATATYPE_NULL,
                     "MPI_Type_free did not reset the handle");
    return errs;
}

/* n elements of T = contiguous(k, MPI_INT) one way, n*k MPI_INT the other. */
static int signature_matching(int k, int n) {
    int errs = 0, count;
    MPI_Datatype t;
    MPI_Type_contiguous(k, MPI_INT, &t);
    MPI_Type_commit(&t);
    const size_t bytes = sizeof(int) * (size_t)k * (size_t)n;
    int* out = mtest_malloc(bytes);
    int* in = mtest_malloc(bytes + sizeof(int) * (size_t)k); /* room for n + 1 elements */
    MPI_Status status;
    char what[80];
    snprintf(what, sizeof what, "%d x contiguous(%d, MPI_INT)", n, k);

    /* Derived on the send side. */
    mtest_fill(out, bytes, (unsigned)(k + n + g_rank));
    memset(in, 0, bytes);
    MPI_Sendrecv(out, n, t, g_right, 2, in, n * k, MPI_INT, g_left, 2, MPI_COMM_WORLD, &status);
    errs += MT_VERIFY(what, in, bytes, (unsigned)(k + n + g_left));
    MPI_Get_count(&status, MPI_INT, &count);
    errs += MT_EQ(count, n * k);
    MPI_Get_count(&status, t, &count);
    errs += MT_EQ(count, n);

    /* Derived on the receive side, with room for more than arrives. */
    memset(in, 0, bytes);
    MPI_Sendrecv(out, n * k, MPI_INT, g_right, 3, in, n + 1, t, g_left, 3, MPI_COMM_WORLD, &status);
    errs += MT_VERIFY(what, in, bytes, (unsigned)(k + n + g_left));
    MPI_Get_count(&status, t, &count);
    errs += MT_EQ(count, n);

    MPI_Type_free(&t);
    free(out);
    free(in);
    return errs;
}

/* Five {double, int} pairs: 60 bytes of data spread over 80 bytes of memory. */
static int pairs_with_padding(void) {
    typedef struct {
        double d;
        int i;
    } Pair;
    int errs = 0;
    Pair out[5], in[5];
    MPI_Datatype t;
    MPI_Type_contiguous(5, MPI_DOUBLE_INT, &t);
    MPI_Type_commit(&t);
    for (int j = 0; j < 5; ++j) {
        out[j].d = g_rank * 10.0 + j + 0.5;
        out[j].i = g_rank * 100 + j;
        in[j].d = -1;
        in[j].i = -1;
    }
    MPI_Sendrecv(out, 1, t, g_right, 4, in, 5, MPI_DOUBLE_INT, g_left, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int j = 0; j < 5; ++j) {
        errs += MT_CHECK(in[j].d == g_left * 10.0 + j + 0.5 && in[j].i == g_left * 100 + j,
                         "pair %d is (%g, %d), expected (%g, %d)", j, in[j].d, in[j].i,
                         g_left * 10.0 + j + 0.5, g_left * 100 + j);
    }
    MPI_Type_free(&t);
    return errs;
}

/* Freeing types that are still in use. */
static int free_while_in_use(void) {
    enum { kInts = 300000 }; /* rendezvous-sized */
    int errs = 0;
    MPI_Datatype base, outer;
    MPI_Type_contiguous(kInts / 2, MPI_INT, &base);
    MPI_Type_contiguous(2, base, &outer); /* built from base */
    MPI_Type_commit(&outer);
    MPI_Type_free(&base); /* outer must still work */
    errs += MT_CHECK(base == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");

    int* out = mtest_malloc(sizeof(int) * kInts);
    int* in = mtest_malloc(sizeof(int) * kInts);
    mtest_fill(out, sizeof(int) * kInts, 900 + (unsigned)g_rank);
    MPI_Request req[2];
    MPI_Irecv(in, kInts, MPI_INT, g_left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 1, outer, g_right, 5, MPI_COMM_WORLD, &req[1]);
    MPI_Type_free(&outer); /* the pending send completes normally */
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    errs += MT_VERIFY("send whose type was freed while pending", in, sizeof(int) * kInts,
                      900 + (unsigned)g_left);
    free(out);
    free(in);
    return errs;
}

/* Collectives with contiguous types. (Predefined reduction operations are
 * defined on the predefined types only; MPICH rejects them on derived ones.
 * User-defined operations on a derived type are in coll_op_user.c.) */
static int collectives(void) {
    int errs = 0;
    MPI_Datatype t4;
    MPI_Type_contiguous(4, MPI_INT, &t4);
    MPI_Type_commit(&t4);
    int buf[12];
    for (int i = 0; i < 12; ++i) buf[i] = g_rank == g_size - 1 ? i * 3 : -1;
    MPI_Bcast(buf, 3, t4, g_size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < 12; ++i) errs += MT_EQ(buf[i], i * 3);

    /* Derived on both sides of an Allgather: one t4 element from each rank. */
    int mine[4] = {g_rank, g_rank + 1, g_rank + 2, g_rank + 3};
    int* all = mtest_malloc(sizeof(int) * 4 * (size_t)g_size);
    MPI_Allgather(mine, 1, t4, all, 1, t4, MPI_COMM_WORLD);
    for (int r = 0; r < g_size; ++r)
        for (int i = 0; i < 4; ++i) errs += MT_EQ(all[4 * r + i], r + i);
    free(all);

    /* A 1 MiB element broadcast: few elements, rendezvous-sized data. */
    enum { kInts = 1 << 18 };
    MPI_Datatype big;
    MPI_Type_contiguous(kInts, MPI_INT, &big);
    MPI_Type_commit(&big);
    int* data = mtest_malloc(sizeof(int) * kInts * 2);
    if (g_rank == 0)
        mtest_fill(data, sizeof(int) * kInts * 2, 4321);
    else
        memset(data, 0, sizeof(int) * kInts * 2);
    MPI_Bcast(data, 2, big, 0, MPI_COMM_WORLD);
    errs += MT_VERIFY("Bcast of two 1 MiB elements", data, sizeof(int) * kInts * 2, 4321);
    free(data);
    MPI_Type_free(&big);
    MPI_Type_free(&t4);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_right = (g_rank + 1) % g_size;
    g_left = (g_rank + g_size - 1) % g_size;

    errs += size_and_extent();
    errs += signature_matching(3, 1);
    errs += signature_matching(3, 1000);
    errs += signature_matching(1 << 18, 4); /* 4 elements of 1 MiB: a 4 MiB message */
    errs += pairs_with_padding();
    errs += free_while_in_use();
    errs += collectives();
    return mtest_finish(errs);
}
