/*
 * MPI_Scan, MPI_Exscan, MPI_Reduce_scatter and MPI_Reduce_scatter_block on
 * every communicator of mtest_comm_get: sums, a MINLOC on a pair type, and a
 * non-commutative user operator (composition of affine maps), whose result
 * is wrong unless every rank's contribution is combined in rank order.
 * MPI_IN_PLACE on each; error classes for bad counts.
 *
 * Arguments: an optional element count (large counts go through the
 * rendezvous protocol).
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_count = 5;

static long contribution(int rank, int k) {
    return (long)(rank + 1) * (k + 1);
}

/* Sum over ranks [0, upto) of contribution(rank, k). */
static long prefix_sum(int upto, int k) {
    return (long)upto * (upto + 1) / 2 * (k + 1);
}

/* x -> a x + b (mod kPrime); (f op g) applies f, then g. */
enum { kPrime = 1009 };
typedef struct {
    int a, b;
} affine;

static affine rank_map(int rank, int k) {
    affine f = {(rank * 7 + k) % (kPrime - 1) + 1, (rank * 13 + 3 * k) % kPrime};
    return f;
}

static affine then(affine f, affine g) {
    affine h = {(g.a * f.a) % kPrime, (g.a * f.b + g.b) % kPrime};
    return h;
}

static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
    const affine* f = in;
    affine* g = inout;
    for (int i = 0; i < *len; ++i) g[i] = then(f[i], g[i]);
}

/* The composition of ranks [from, upto) in order. */
static affine composed(int from, int upto, int k) {
    affine h = {1, 0};
    for (int r = from; r < upto; ++r) h = then(h, rank_map(r, k));
    return h;
}

static int sums(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    long* in = mtest_malloc(sizeof(long) * (size_t)g_count);
    long* out = mtest_malloc(sizeof(long) * (size_t)g_count);
    for (int k = 0; k < g_count; ++k) in[k] = contribution(me, k);

    MPI_Scan(in, out, g_count, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < g_count && errs < 5; ++k)
        errs += MT_CHECK(out[k] == prefix_sum(me + 1, k), "%s scan: [%d] is %ld, expected %ld",
                         name, k, out[k], prefix_sum(me + 1, k));
    memcpy(out, in, sizeof(long) * (size_t)g_count);
    MPI_Scan(MPI_IN_PLACE, out, g_count, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < g_count && errs < 5; ++k)
        errs += MT_CHECK(out[k] == prefix_sum(me + 1, k), "%s scan in place: [%d] is %ld", name, k,
                         out[k]);

    for (int k = 0; k < g_count; ++k) out[k] = -1;
    MPI_Exscan(in, out, g_count, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < g_count && errs < 5; ++k) {
        /* Rank 0's result is undefined; this runtime, like MPICH, leaves it. */
        const long expected = me == 0 ? -1 : prefix_sum(me, k);
        errs += MT_CHECK(out[k] == expected, "%s exscan: [%d] is %ld, expected %ld", name, k,
                         out[k], expected);
    }
    memcpy(out, in, sizeof(long) * (size_t)g_count);
    MPI_Exscan(MPI_IN_PLACE, out, g_count, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < g_count && errs < 5 && me > 0; ++k)
        errs += MT_CHECK(out[k] == prefix_sum(me, k), "%s exscan in place: [%d] is %ld", name, k,
                         out[k]);
    free(in);
    free(out);
    return errs;
}

static int noncommutative_scan(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    affine* in = mtest_malloc(sizeof(affine) * (size_t)g_count);
    affine* out = mtest_malloc(sizeof(affine) * (size_t)g_count);
    for (int k = 0; k < g_count; ++k) in[k] = rank_map(me, k);

    MPI_Scan(in, out, g_count, pair, op, comm);
    for (int k = 0; k < g_count && errs < 5; ++k) {
        const affine e = composed(0, me + 1, k);
        errs += MT_CHECK(out[k].a == e.a && out[k].b == e.b,
                         "%s scan compose: [%d] is (%d,%d), expected (%d,%d)", name, k, out[k].a,
                         out[k].b, e.a, e.b);
    }
    MPI_Exscan(in, out, g_count, pair, op, comm);
    for (int k = 0; k < g_count && errs < 5 && me > 0; ++k) {
        const affine e = composed(0, me, k);
        errs += MT_CHECK(out[k].a == e.a && out[k].b == e.b,
                         "%s exscan compose: [%d] is (%d,%d), expected (%d,%d)", name, k, out[k].a,
                         out[k].b, e.a, e.b);
    }

    /* Reduce_scatter_block: rank r gets items [r*count, (r+1)*count) of the
     * composition over all ranks. */
    affine* all = mtest_malloc(sizeof(affine) * (size_t)g_count * (size_t)n);
    for (int i = 0; i < g_count * n; ++i) all[i] = rank_map(me, i);
    MPI_Reduce_scatter_block(all, out, g_count, pair, op, comm);
    for (int k = 0; k < g_count && errs < 5; ++k) {
        const affine e = composed(0, n, me * g_count + k);
        errs += MT_CHECK(out[k].a == e.a && out[k].b == e.b,
                         "%s reduce_scatter_block compose: [%d] is (%d,%d), expected (%d,%d)", name,
                         k, out[k].a, out[k].b, e.a, e.b);
    }
    free(all);
    free(in);
    free(out);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    return errs;
}

static int minloc_scan(MPI_Comm comm, const char* name) {
    int errs = 0, me;
    MPI_Comm_rank(comm, &me);
    struct {
        double value;
        int index;
    } in = {(double)((me * 5) % 7), me}, out;
    MPI_Scan(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    double best = 1e9;
    int where = -1;
    for (int r = 0; r <= me; ++r)
        if ((r * 5) % 7 < best) {
            best = (r * 5) % 7;
            where = r;
        }
    errs += MT_CHECK(out.value == best && out.index == where,
                     "%s minloc scan: (%g, %d), expected (%g, %d)", name, out.value, out.index,
                     best, where);
    return errs;
}

/* Reduce_scatter: rank i gets (i % 3) * count items of the sum; the input
 * is every rank's contribution over all of them. */
static int reduce_scatter(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int* counts = mtest_malloc(sizeof(int) * (size_t)n);
    int total = 0, first = 0;
    for (int i = 0; i < n; ++i) {
        counts[i] = (i % 3) * g_count;
        if (i < me) first += counts[i];
        total += counts[i];
    }
    long* in = mtest_malloc(sizeof(long) * (size_t)(total + 1));
    long* out = mtest_malloc(sizeof(long) * (size_t)(total + 1));
    for (int k = 0; k < total; ++k) in[k] = contribution(me, k);
    for (int k = 0; k <= total; ++k) out[k] = -1;
    MPI_Reduce_scatter(in, out, counts, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < counts[me] && errs < 5; ++k)
        errs += MT_CHECK(out[k] == prefix_sum(n, first + k),
                         "%s reduce_scatter: [%d] is %ld, expected %ld", name, k, out[k],
                         prefix_sum(n, first + k));
    errs += MT_CHECK(out[counts[me]] == -1, "%s reduce_scatter wrote past its block", name);

    /* MPICH 4.0.2's algorithm for large messages memcpy()s a block onto
     * itself here and aborts on its own overlap check. */
#ifndef SI_MPI
    if ((size_t)total * sizeof(long) < 256 * 1024)
#endif
    {
        memcpy(out, in, sizeof(long) * (size_t)total);
        MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_LONG, MPI_SUM, comm);
        for (int k = 0; k < counts[me] && errs < 5; ++k)
            errs += MT_CHECK(out[k] == prefix_sum(n, first + k),
                             "%s reduce_scatter in place: [%d] is %ld", name, k, out[k]);
    }

    /* Block form, in place: the input is n blocks, the result the first. */
    long* whole = mtest_malloc(sizeof(long) * (size_t)n * (size_t)g_count);
    for (int k = 0; k < n * g_count; ++k) whole[k] = contribution(me, k);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, whole, g_count, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k < g_count && errs < 5; ++k)
        errs += MT_CHECK(whole[k] == prefix_sum(n, me * g_count + k),
                         "%s reduce_scatter_block in place: [%d] is %ld", name, k, whole[k]);
    free(whole);
    free(counts);
    free(in);
    free(out);
    return errs;
}

static int bad_arguments(void) {
    int errs = 0, n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long in[4] = {0}, out[4] = {0};
    int* counts = mtest_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) counts[i] = 0;
    counts[n - 1] = -2;
    errs += MT_CLASS(MPI_Reduce_scatter(in, out, counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
                     MPI_ERR_COUNT);
#ifdef SI_MPI
    /* MPICH 4.0.2 checks neither count: it goes on and crashes. */
    errs += MT_CLASS(MPI_Reduce_scatter_block(in, out, -1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
                     MPI_ERR_COUNT);
    errs += MT_CLASS(MPI_Scan(in, out, -1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    /* MPICH says MPI_ERR_OP: the operator is not defined for a null type. */
    errs +=
        MT_CLASS(MPI_Scan(in, out, 4, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
#endif
    errs += MT_CLASS(MPI_Exscan(in, out, 4, MPI_LONG, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(counts);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    if (argc > 1) g_count = atoi(argv[1]);
    int errs = 0;
    MPI_Comm comm;
    const char* name;
    for (int i = 0; mtest_comm_get(i, &comm, &name); ++i) {
        if (comm == MPI_COMM_NULL) continue;
        errs += sums(comm, name);
        errs += noncommutative_scan(comm, name);
        errs += minloc_scan(comm, name);
        errs += reduce_scatter(comm, name);
        mtest_comm_release(&comm);
    }
    errs += bad_arguments();
    return mtest_finish(errs);
}
