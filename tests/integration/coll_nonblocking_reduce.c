/*
 * The nonblocking reductions: MPI_Ireduce, MPI_Iallreduce,
 * MPI_Ireduce_scatter, MPI_Ireduce_scatter_block, MPI_Iscan, MPI_Iexscan.
 *
 *  1. All six in flight at once on two communicators (world and a reversed
 *     split), at an eager size and at 64 Ki integers (256 KiB: the
 *     rendezvous, and the pairwise algorithms of allreduce and
 *     reduce-scatter), with MPI_SUM on MPI_INT, completed in reverse order
 *     by MPI_Testall polling. Every element is checked against the sum
 *     computed locally.
 *  2. A non-commutative user operator (composition of affine maps x -> m x
 *     + c, on a contiguous pair type) for Ireduce to every root, Iallreduce
 *     and Iscan: results must be in rank order. The operator and the type
 *     are freed while the collectives run, as MPI allows.
 *  3. MPI_IN_PLACE (Iallreduce, Ireduce at the root, Iscan, Ireduce_scatter_block)
 *     and zero counts.
 *  4. Argument errors: MPI_IN_PLACE off the root of an Ireduce, a null
 *     request, MPI_OP_NULL; and an Iexscan on MPI_COMM_SELF, which leaves
 *     recvbuf as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kSmall = 16, kLarge = 64 * 1024, kOps = 16 };

/* What rank r contributes at element i. */
static int input(int r, int i, int salt) {
    return (r + 1) * 7 + i * 3 + salt;
}

/* The sum over ranks [from, to) of input(., i, salt). */
static int sum_of(int from, int to, int i, int salt) {
    int s = 0;
    for (int r = from; r < to; ++r) s += input(r, i, salt);
    return s;
}

static int* ints(int count, int rank, int salt) {
    int* v = mtest_malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; ++i) v[i] = input(rank, i, salt);
    return v;
}

static int* garbage(int count) {
    int* v = mtest_malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; ++i) v[i] = -12345;
    return v;
}

static int check_ints(const char* what, const int* got, int count, int from, int to, int first,
                      int salt) {
    for (int i = 0; i < count; ++i) {
        const int expected = sum_of(from, to, first + i, salt);
        if (got[i] != expected)
            return MT_CHECK(0, "%s: element %d is %d, expected %d", what, i, got[i], expected);
    }
    return 0;
}

struct Sums {
    MPI_Comm comm;
    int rank, size, count, salt;
    int *send, *reduced, *all, *scanned, *exscanned, *scattered, *blocks, *counts;
};

static void start_sums(struct Sums* s, MPI_Comm comm, int count, int salt, MPI_Request* req) {
    s->comm = comm;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->size);
    s->count = count;
    s->salt = salt;
    s->send = ints(count * s->size + s->size, s->rank, salt); /* Ireduce_scatter: one more per rank */
    s->reduced = garbage(count);
    s->all = garbage(count);
    s->scanned = garbage(count);
    s->exscanned = garbage(count);
    s->scattered = garbage(count);
    s->blocks = garbage(count + s->size);
    s->counts = mtest_malloc(sizeof(int) * (size_t)s->size);
    for (int r = 0; r < s->size; ++r) s->counts[r] = count + (r == s->size - 1 ? s->size : 0);
    const int root = s->size - 1;
    MPI_Ireduce(s->send, s->reduced, count, MPI_INT, MPI_SUM, root, comm, &req[0]);
    MPI_Iallreduce(s->send, s->all, count, MPI_INT, MPI_SUM, comm, &req[1]);
    MPI_Iscan(s->send, s->scanned, count, MPI_INT, MPI_SUM, comm, &req[2]);
    MPI_Iexscan(s->send, s->exscanned, count, MPI_INT, MPI_SUM, comm, &req[3]);
    MPI_Ireduce_scatter_block(s->send, s->scattered, count, MPI_INT, MPI_SUM, comm, &req[4]);
    MPI_Ireduce_scatter(s->send, s->blocks, s->counts, MPI_INT, MPI_SUM, comm, &req[5]);
}

static int check_sums(struct Sums* s, const char* name) {
    int errs = 0;
    char what[96];
    const int n = s->size, r = s->rank, count = s->count;
    snprintf(what, sizeof what, "Iallreduce on %s, %d ints", name, count);
    errs += check_ints(what, s->all, count, 0, n, 0, s->salt);
    if (r == n - 1) {
        snprintf(what, sizeof what, "Ireduce on %s, %d ints", name, count);
        errs += check_ints(what, s->reduced, count, 0, n, 0, s->salt);
    }
    snprintf(what, sizeof what, "Iscan on %s, %d ints", name, count);
    errs += check_ints(what, s->scanned, count, 0, r + 1, 0, s->salt);
    if (r > 0) {
        snprintf(what, sizeof what, "Iexscan on %s, %d ints", name, count);
        errs += check_ints(what, s->exscanned, count, 0, r, 0, s->salt);
    } else if (count > 0) {
        errs += MT_CHECK(s->exscanned[0] == -12345, "Iexscan changed rank 0's recvbuf");
    }
    snprintf(what, sizeof what, "Ireduce_scatter_block on %s, %d ints", name, count);
    errs += check_ints(what, s->scattered, count, 0, n, r * count, s->salt);
    snprintf(what, sizeof what, "Ireduce_scatter on %s", name);
    errs += check_ints(what, s->blocks, s->counts[r], 0, n, r * count, s->salt);
    free(s->send);
    free(s->reduced);
    free(s->all);
    free(s->scanned);
    free(s->exscanned);
    free(s->scattered);
    free(s->blocks);
    free(s->counts);
    return errs;
}

static int sums_in_flight(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    struct Sums sums[4];
    MPI_Request req[4 * 6];
    start_sums(&sums[0], MPI_COMM_WORLD, kSmall, 1, &req[0]);
    start_sums(&sums[1], reversed, kLarge, 2, &req[6]);
    start_sums(&sums[2], MPI_COMM_WORLD, kLarge, 3, &req[12]);
    start_sums(&sums[3], reversed, 0, 4, &req[18]);
    /* Complete in reverse order, polling. */
    for (int i = 4 * 6 - 1; i >= 0; --i) {
        int done = 0;
        while (!done) MPI_Test(&req[i], &done, MPI_STATUS_IGNORE);
    }
    errs += check_sums(&sums[0], "world");
    errs += check_sums(&sums[1], "reversed");
    errs += check_sums(&sums[2], "world");
    errs += check_sums(&sums[3], "reversed");
    MPI_Comm_free(&reversed);
    return errs;
}

/* x -> m x + c; `in op inout` applies in first, then inout. */
struct Affine {
    unsigned m, c;
};

static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    const struct Affine* a = in;
    struct Affine* b = inout;
    for (int i = 0; i < *len; ++i) {
        const struct Affine first = a[i], then = b[i];
        b[i].m = then.m * first.m;
        b[i].c = then.m * first.c + then.c;
    }
}

static struct Affine affine_of(int r, int i) {
    struct Affine a = {(unsigned)(r + 2 + i), (unsigned)(3 * r + 1 + i)};
    return a;
}

static int check_affine(const char* what, const struct Affine* got, int count, int upto) {
    for (int i = 0; i < count; ++i) {
        struct Affine expected = affine_of(0, i);
        for (int r = 1; r < upto; ++r) {
            const struct Affine next = affine_of(r, i);
            expected.m = next.m * expected.m;
            expected.c = next.m * expected.c + next.c;
        }
        if (got[i].m != expected.m || got[i].c != expected.c)
            return MT_CHECK(0, "%s: element %d is (%u, %u), expected (%u, %u)", what, i, got[i].m,
                            got[i].c, expected.m, expected.c);
    }
    return 0;
}

static int non_commutative_in_order(int count) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    const size_t bytes = sizeof(struct Affine) * (size_t)count;
    struct Affine* mine = mtest_malloc(bytes);
    for (int i = 0; i < count; ++i) mine[i] = affine_of(rank, i);
    struct Affine* reduced = mtest_malloc(bytes * (size_t)size);
    struct Affine* all = mtest_malloc(bytes);
    struct Affine* scanned = mtest_malloc(bytes);
    MPI_Request req[kOps];
    int n = 0;
    for (int root = 0; root < size && n < kOps - 2; ++root)
        MPI_Ireduce(mine, reduced + (size_t)root * (size_t)count, count, pair, op, root,
                    MPI_COMM_WORLD, &req[n++]);
    MPI_Iallreduce(mine, all, count, pair, op, MPI_COMM_WORLD, &req[n++]);
    MPI_Iscan(mine, scanned, count, pair, op, MPI_COMM_WORLD, &req[n++]);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    char what[96];
    if (rank < n - 2) {
        snprintf(what, sizeof what, "non-commutative Ireduce to root %d, %d items", rank, count);
        errs += check_affine(what, reduced + (size_t)rank * (size_t)count, count, size);
    }
    snprintf(what, sizeof what, "non-commutative Iallreduce, %d items", count);
    errs += check_affine(what, all, count, size);
    snprintf(what, sizeof what, "non-commutative Iscan, %d items", count);
    errs += check_affine(what, scanned, count, rank + 1);
    free(mine);
    free(reduced);
    free(all);
    free(scanned);
    return errs;
}

static int in_place(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = kLarge;
    int* all = ints(count, rank, 5);
    int* reduced = ints(count, rank, 6);
    int* scanned = ints(count, rank, 7);
    int* blocks = ints(count * size, rank, 8);
    MPI_Request req[4];
    MPI_Iallreduce(MPI_IN_PLACE, all, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    if (rank == 0)
        MPI_Ireduce(MPI_IN_PLACE, reduced, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[1]);
    else
        MPI_Ireduce(reduced, NULL, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Iscan(MPI_IN_PLACE, scanned, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]);
    MPI_Ireduce_scatter_block(MPI_IN_PLACE, blocks, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    errs += check_ints("Iallreduce in place", all, count, 0, size, 0, 5);
    if (rank == 0) errs += check_ints("Ireduce in place", reduced, count, 0, size, 0, 6);
    errs += check_ints("Iscan in place", scanned, count, 0, rank + 1, 0, 7);
    errs += check_ints("Ireduce_scatter_block in place", blocks, count, 0, size, rank * count, 8);
    free(all);
    free(reduced);
    free(scanned);
    free(blocks);
    return errs;
}

static int argument_errors(void) {
    int errs = 0, rank, x = 1, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request request;
#ifdef SI_MPI
    /* MPICH 4.0.2 does not check this one: it crashes in the algorithm. */
    if (rank != 0)
        errs += MT_CLASS(MPI_Ireduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                     &request),
                         MPI_ERR_BUFFER);
#endif
    errs += MT_CLASS(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL),
                     MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &request),
                     MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* A communicator of one: the exclusive scan leaves recvbuf alone. */
    y = 42;
    MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(y == 42, "Iexscan on MPI_COMM_SELF changed recvbuf to %d", y);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    errs += sums_in_flight();
    errs += non_commutative_in_order(3);
    errs += non_commutative_in_order(20000); /* 160 KB: rendezvous */
    errs += in_place();
    errs += argument_errors();
    return mtest_finish(errs);
}
