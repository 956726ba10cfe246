/*
 * MPI_Comm_idup (and MPI_Comm_idup_with_info), a nonblocking collective:
 *
 *  1. It never blocks its caller: rank 0 starts MPI_Comm_idup and then sends
 *     to rank 1 (eager and rendezvous sizes), which receives before it calls
 *     MPI_Comm_idup; every rank then waits. And every rank trades a ring of
 *     messages between starting and completing its idup. Even ranks start an
 *     idup, then a blocking MPI_Comm_dup of another communicator; odd ranks
 *     the other way round.
 *  2. Several outstanding on two parents (a dup of the world and a split
 *     reversing its order), started in an order that differs between even
 *     and odd ranks (each parent's own order the same everywhere), then a
 *     blocking MPI_Comm_dup of one parent while they run, completed by
 *     MPI_Waitall on the reversed requests. Each new communicator is
 *     congruent to its parent, has collectives of its own (an allreduce
 *     whose sum names the communicator, a broadcast), and its traffic never
 *     matches a wildcard receive posted on the parent.
 *  3. Attributes: the copy callbacks run once per duplicate, the values
 *     reach it (a user copy and MPI_COMM_DUP_FN; MPI_COMM_NULL_COPY_FN's
 *     key stays off), and freeing it runs the delete callbacks.
 *  4. The parent freed while its idup is in flight; idup and free in
 *     cycles (context ids recycled); MPI_COMM_SELF; an intercommunicator
 *     (1 vs the rest), whose duplicate reaches the remote group.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kBig = 100000, kTag = 9 };
static int g_rank, g_size;

static int ring(MPI_Comm comm, int seed) {
    int rank, size, in = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int out = seed * 1000 + rank;
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(&out, 1, MPI_INT, right, kTag, &in, 1, MPI_INT, left, kTag, comm,
                 MPI_STATUS_IGNORE);
    return MT_EQ(in, seed * 1000 + left);
}

/* 1. Point-to-point between a rank whose idup is in flight and one that
 * has not started its own. */
static int no_blocking(int bytes) {
    int errs = 0;
    unsigned char* buf = mtest_malloc((size_t)bytes);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request request;
    if (g_rank == 0) {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &request);
        if (g_size > 1) {
            mtest_fill(buf, (size_t)bytes, 77);
            MPI_Send(buf, bytes, MPI_BYTE, 1, kTag, MPI_COMM_WORLD);
        }
    } else {
        if (g_rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += MT_VERIFY("message sent after rank 0's MPI_Comm_idup", buf, (size_t)bytes, 77);
        }
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &request);
    }
    errs += ring(MPI_COMM_WORLD, bytes);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(request == MPI_REQUEST_NULL, "MPI_Wait left the request active");
    errs += ring(dup, 3);
    MPI_Comm_free(&dup);
    free(buf);
    return errs;
}

/* An idup in flight beside a blocking creation on another communicator,
 * the two started in opposite orders by even and odd ranks (a correct
 * program: each communicator sees its calls in one order). */
static int beside_blocking_dup(void) {
    int errs = 0;
    MPI_Comm a, b, from_a, from_b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Request request;
    if (g_rank % 2 == 0) {
        MPI_Comm_idup(a, &from_a, &request);
        MPI_Comm_dup(b, &from_b);
    } else {
        MPI_Comm_dup(b, &from_b);
        MPI_Comm_idup(a, &from_a, &request);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += ring(from_a, 4);
    errs += ring(from_b, 5);
    MPI_Comm_free(&from_a);
    MPI_Comm_free(&from_b);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    return errs;
}

/* The sum over comm's ranks of (rank + 1) * tag. */
static int check_collectives(MPI_Comm comm, int tag) {
    int errs = 0, rank, size, sum = 0, root_value = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int mine = (rank + 1) * tag;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
    errs += MT_EQ(sum, tag * size * (size + 1) / 2);
    if (rank == size - 1) root_value = tag;
    MPI_Bcast(&root_value, 1, MPI_INT, size - 1, comm);
    errs += MT_EQ(root_value, tag);
    return errs;
}

/* Traffic on dup must not reach a wildcard receive on parent. */
static int isolated(MPI_Comm parent, MPI_Comm dup) {
    int errs = 0, rank, size, got = -1, on_dup = -1;
    MPI_Comm_rank(parent, &rank);
    MPI_Comm_size(parent, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request requests[2];
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &requests[0]);
    const int a = 100 + rank, b = 200 + rank;
    MPI_Isend(&a, 1, MPI_INT, right, kTag, dup, &requests[1]);
    MPI_Recv(&on_dup, 1, MPI_INT, left, kTag, dup, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_INT, right, kTag, parent);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    errs += MT_EQ(on_dup, 100 + left);
    errs += MT_EQ(got, 200 + left);
    return errs;
}

/* 2. Idups outstanding on two parents, in orders that differ by rank. */
static int outstanding(void) {
    enum { kEach = 3 };
    int errs = 0;
    MPI_Comm parent[2], made[2][kEach], blocking;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -g_rank, &parent[1]);
    MPI_Request requests[2 * kEach];
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mpi_assert_no_any_source", "false");
    int started = 0;
    for (int i = 0; i < kEach; ++i) {
        const int first = (g_rank + i) % 2;
        MPI_Comm_idup(parent[first], &made[first][i], &requests[started++]);
        MPI_Comm_idup_with_info(parent[1 - first], hints, &made[1 - first][i],
                                &requests[started++]);
    }
    MPI_Info_free(&hints);
    /* A blocking allocation while they are all in flight. */
    MPI_Comm_dup(parent[0], &blocking);
    MPI_Request reversed[2 * kEach];
    for (int i = 0; i < started; ++i) reversed[i] = requests[started - 1 - i];
    MPI_Waitall(started, reversed, MPI_STATUSES_IGNORE);
    for (int p = 0; p < 2; ++p)
        for (int i = 0; i < kEach; ++i) {
            int result = -1;
            MPI_Comm_compare(parent[p], made[p][i], &result);
            errs += MT_EQ(result, MPI_CONGRUENT);
            errs += check_collectives(made[p][i], 10 * p + i + 1);
            errs += isolated(parent[p], made[p][i]);
        }
    /* All alive at once: each keeps its own context. */
    for (int p = 0; p < 2; ++p)
        for (int i = 0; i < kEach; ++i) errs += isolated(made[p][i], made[p][(i + 1) % kEach]);
    errs += check_collectives(blocking, 99);
    MPI_Comm_free(&blocking);
    for (int p = 0; p < 2; ++p)
        for (int i = kEach - 1; i >= 0; --i) MPI_Comm_free(&made[p][i]);
    MPI_Comm_free(&parent[0]);
    MPI_Comm_free(&parent[1]);
    return errs;
}

/* 3. Attributes. */
static int g_copies, g_deletes;
static int copy_plus_one(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
    (void)comm, (void)keyval, (void)extra;
    ++g_copies;
    *(void**)out = (char*)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}
static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    ++g_deletes;
    return MPI_SUCCESS;
}

static int attributes(void) {
    int errs = 0, plus, same, none, flag = 0;
    static char base[4];
    MPI_Comm_create_keyval(copy_plus_one, count_delete, &plus, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &same, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &none, NULL);
    MPI_Comm parent, dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Comm_set_attr(parent, plus, base);
    MPI_Comm_set_attr(parent, same, base + 2);
    MPI_Comm_set_attr(parent, none, base + 3);
    g_copies = g_deletes = 0;
    MPI_Request request;
    MPI_Comm_idup(parent, &dup, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_EQ(g_copies, 1);
    void* value = NULL;
    MPI_Comm_get_attr(dup, plus, &value, &flag);
    errs += MT_CHECK(flag && value == base + 1, "the user copy's value did not reach the dup");
    MPI_Comm_get_attr(dup, same, &value, &flag);
    errs += MT_CHECK(flag && value == base + 2, "MPI_COMM_DUP_FN's value did not reach the dup");
    MPI_Comm_get_attr(dup, none, &value, &flag);
    errs += MT_CHECK(!flag, "MPI_COMM_NULL_COPY_FN's key was copied");
    MPI_Comm_get_attr(parent, plus, &value, &flag);
    errs += MT_CHECK(flag && value == base, "the parent's value changed");
    errs += check_collectives(dup, 5);
    MPI_Comm_free(&dup);
    errs += MT_EQ(g_deletes, 2);
    MPI_Comm_free(&parent);
    MPI_Comm_free_keyval(&plus);
    MPI_Comm_free_keyval(&same);
    MPI_Comm_free_keyval(&none);
    return errs;
}

/* 4. The parent freed while the idup runs, cycles, MPI_COMM_SELF. */
static int lifetimes(void) {
    int errs = 0;
    MPI_Comm parent, dup, self_dup;
    MPI_Request requests[2];
    MPI_Comm_split(MPI_COMM_WORLD, 0, g_rank, &parent);
    MPI_Comm_idup(parent, &dup, &requests[0]);
    MPI_Comm_free(&parent);
    MPI_Comm_idup(MPI_COMM_SELF, &self_dup, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    errs += check_collectives(dup, 7);
    errs += check_collectives(self_dup, 8);
    MPI_Comm_free(&self_dup);
    MPI_Comm_free(&dup);
    for (int c = 0; c < 24; ++c) {
        MPI_Request request;
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &request);
        int done = 0;
        while (!done) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        errs += check_collectives(dup, c + 1);
        MPI_Comm_free(&dup);
        errs += MT_CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
    }
    return errs;
}

static int intercommunicator(void) {
    int errs = 0;
    if (g_size < 2) return 0;
    const int color = g_rank == 0 ? 0 : 1;
    MPI_Comm local, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, color, g_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 31, &inter);
    MPI_Comm_free(&local);
    MPI_Request request;
    MPI_Comm_idup(inter, &dup, &request);
    /* Leaders trade across the original while the duplicate is made. */
    int rank, flag = 0, rsize = 0, theirs = -1;
    MPI_Comm_rank(inter, &rank);
    if (rank == 0)
        MPI_Sendrecv(&color, 1, MPI_INT, 0, kTag, &theirs, 1, MPI_INT, 0, kTag, inter,
                     MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rank == 0) errs += MT_EQ(theirs, 1 - color);
    MPI_Comm_test_inter(dup, &flag);
    errs += MT_EQ(flag, 1);
    MPI_Comm_remote_size(dup, &rsize);
    errs += MT_EQ(rsize, color == 0 ? g_size - 1 : 1);
    /* Each side's sum is over the other group's ranks. */
    int mine = color + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup);
    errs += MT_EQ(sum, color == 0 ? 2 * (g_size - 1) : 1);
    /* Rank 0, alone in its group, trades with every remote rank. */
    for (int i = 0; i < rsize; ++i) {
        const int note = 50 + color + 10 * rank;
        int got = -1;
        MPI_Sendrecv(&note, 1, MPI_INT, i, kTag, &got, 1, MPI_INT, i, kTag, dup, MPI_STATUS_IGNORE);
        errs += MT_EQ(got, color == 0 ? 51 + 10 * i : 50);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = 0;
    errs += no_blocking(8);
    errs += no_blocking(kBig);
    errs += beside_blocking_dup();
    errs += outstanding();
    errs += attributes();
    errs += lifetimes();
    errs += intercommunicator();
#ifdef SI_MPI
    MPI_Comm dup;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, NULL), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &dup, NULL), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    return mtest_finish(errs);
}
