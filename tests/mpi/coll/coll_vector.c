/*
 * The vector collectives: MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv,
 * MPI_Alltoallv and MPI_Alltoallw, on every communicator of mtest_comm_get
 * and with every rank as root. Blocks have different sizes (some empty), lie
 * in reverse rank order with a gap before each, and some are received into a
 * strided datatype, so a block written to the wrong place, a gap written at
 * all, or a hole of a strided block overwritten is caught. MPI_IN_PLACE where
 * the standard allows it; error classes for bad arrays and counts.
 *
 * Arguments: an optional scale for the block sizes (large blocks go through
 * the rendezvous protocol).
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kGuard = -7 };

static int g_scale = 1;

/* Items rank `from` sends to rank `to`; 0 for some pairs. */
static int pair_count(int from, int to) {
    return ((from + 2 * to) % 4) * g_scale;
}

/* Symmetric (pair_count(a, b) == pair_count(b, a)), for in-place alltoall. */
static int symmetric_count(int a, int b) {
    return ((a + b) % 3 + 1) * g_scale;
}

static int value(int from, int to, int k) {
    return from * 1000000 + to * 10000 + k;
}

/* Blocks in reverse rank order with one guard element before each:
 * displs[i] is where rank i's block starts, in elements. Returns the size. */
static int reverse_layout(int n, const int* counts, int* displs) {
    int at = 0;
    for (int i = n - 1; i >= 0; --i) {
        at += 1;
        displs[i] = at;
        at += counts[i];
    }
    return at;
}

static int* filled(int elements, int v) {
    int* p = mtest_malloc(sizeof(int) * (size_t)(elements > 0 ? elements : 1));
    for (int i = 0; i < elements; ++i) p[i] = v;
    return p;
}

/* Checks a buffer laid out by reverse_layout: block i holds expect(i, k),
 * everything else is kGuard. */
typedef int (*expect_fn)(int block, int k, int me);
static int check_blocks(const char* what, const int* buf, int n, const int* counts,
                        const int* displs, int total, expect_fn expect, int me) {
    int errs = 0;
    char* covered = calloc((size_t)total + 1, 1);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < counts[i] && errs < 5; ++k) {
            const int got = buf[displs[i] + k];
            covered[displs[i] + k] = 1;
            errs += MT_CHECK(got == expect(i, k, me), "%s: block %d item %d is %d, expected %d",
                             what, i, k, got, expect(i, k, me));
        }
    for (int j = 0; j < total && errs < 5; ++j)
        if (!covered[j]) errs += MT_CHECK(buf[j] == kGuard, "%s: gap %d is %d", what, j, buf[j]);
    free(covered);
    return errs;
}

/* Gatherv: rank i sends pair_count(i, root) items. */
static int expect_from_block(int block, int k, int me) {
    return value(block, me, k);
}

static int gatherv(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int* counts = filled(n, 0);
    int* displs = filled(n, 0);
    for (int root = 0; root < n; ++root) {
        for (int i = 0; i < n; ++i) counts[i] = pair_count(i, root);
        const int total = reverse_layout(n, counts, displs);
        int* send = filled(counts[me], 0);
        for (int k = 0; k < counts[me]; ++k) send[k] = value(me, root, k);
        int* recv = filled(total, kGuard);
        MPI_Gatherv(send, counts[me], MPI_INT, recv, counts, displs, MPI_INT, root, comm);
        if (me == root)
            errs += check_blocks(name, recv, n, counts, displs, total, expect_from_block, me);

        /* In place: the root's block is already in recvbuf. */
        if (me == root)
            for (int k = 0; k < counts[me]; ++k) recv[displs[me] + k] = value(me, root, k);
        for (int i = 0; i < total && me == root; ++i)
            if (i < displs[me] || i >= displs[me] + counts[me]) recv[i] = kGuard;
        MPI_Gatherv(me == root ? MPI_IN_PLACE : send, counts[me], MPI_INT, recv, counts, displs,
                    MPI_INT, root, comm);
        if (me == root)
            errs += check_blocks(name, recv, n, counts, displs, total, expect_from_block, me);
        free(send);
        free(recv);
    }
    free(counts);
    free(displs);
    return errs;
}

/* Scatterv: the root sends pair_count(root, i) items to rank i. */
static int scatterv(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int* counts = filled(n, 0);
    int* displs = filled(n, 0);
    for (int root = 0; root < n; ++root) {
        for (int i = 0; i < n; ++i) counts[i] = pair_count(root, i);
        const int total = reverse_layout(n, counts, displs);
        int* send = filled(total, kGuard);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < counts[i]; ++k) send[displs[i] + k] = value(root, i, k);
        const int mine = counts[me];
        int* recv = filled(mine + 1, kGuard);
        MPI_Scatterv(send, counts, displs, MPI_INT, recv, mine, MPI_INT, root, comm);
        for (int k = 0; k < mine && errs < 5; ++k)
            errs += MT_CHECK(recv[k] == value(root, me, k), "%s scatterv root %d: item %d is %d",
                             name, root, k, recv[k]);
        errs += MT_CHECK(recv[mine] == kGuard, "%s scatterv: wrote past the block", name);

        /* In place: the root's block stays in sendbuf, recvbuf is ignored. */
        const int before = me == root && mine > 0 ? send[displs[me]] : 0;
        MPI_Scatterv(send, counts, displs, MPI_INT, me == root ? MPI_IN_PLACE : recv, mine, MPI_INT,
                     root, comm);
        if (me == root && mine > 0) errs += MT_EQ(send[displs[me]], before);
        for (int k = 0; k < mine && me != root && errs < 5; ++k)
            errs += MT_EQ(recv[k], value(root, me, k));
        free(send);
        free(recv);
    }
    free(counts);
    free(displs);
    return errs;
}

/* Allgatherv: rank i contributes pair_count(i, 0) + 1 items. */
static int expect_allgather(int block, int k, int me) {
    return value(block, 0, k);
}

static int allgatherv(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
#ifndef SI_MPI
    /* MPICH 4.0.2 on a communicator of one rank copies the block to recvbuf
     * itself, not to recvbuf + displs[0]. */
    if (n == 1) return errs;
#endif
    int* counts = filled(n, 0);
    int* displs = filled(n, 0);
    for (int i = 0; i < n; ++i) counts[i] = pair_count(i, 0) + 1;
    const int total = reverse_layout(n, counts, displs);
    int* send = filled(counts[me], 0);
    for (int k = 0; k < counts[me]; ++k) send[k] = value(me, 0, k);
    int* recv = filled(total, kGuard);
    MPI_Allgatherv(send, counts[me], MPI_INT, recv, counts, displs, MPI_INT, comm);
    errs += check_blocks(name, recv, n, counts, displs, total, expect_allgather, me);

    for (int i = 0; i < total; ++i) recv[i] = kGuard;
    memcpy(recv + displs[me], send, sizeof(int) * (size_t)counts[me]);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, counts, displs, MPI_INT, comm);
    errs += check_blocks(name, recv, n, counts, displs, total, expect_allgather, me);

    /* Received into every other int: a datatype of one int with extent two. */
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    int* wide = filled(2 * total, kGuard);
    MPI_Allgatherv(send, counts[me], MPI_INT, wide, counts, displs, every_other, comm);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < counts[i] && errs < 5; ++k) {
            const int at = 2 * (displs[i] + k);
            errs += MT_CHECK(wide[at] == value(i, 0, k), "%s strided: block %d item %d is %d", name,
                             i, k, wide[at]);
            errs += MT_CHECK(wide[at + 1] == kGuard, "%s strided: hole after %d written", name, at);
        }
    MPI_Type_free(&every_other);
    free(wide);
    free(send);
    free(recv);
    free(counts);
    free(displs);
    return errs;
}

/* Alltoallv: rank r sends pair_count(r, i) items to rank i, receives
 * pair_count(i, r) from it. */
static int expect_alltoall(int block, int k, int me) {
    return value(block, me, k);
}

static int alltoallv(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int* scounts = filled(n, 0);
    int* sdispls = filled(n, 0);
    int* rcounts = filled(n, 0);
    int* rdispls = filled(n, 0);
    for (int i = 0; i < n; ++i) {
        scounts[i] = pair_count(me, i);
        rcounts[i] = pair_count(i, me);
    }
    const int stotal = reverse_layout(n, scounts, sdispls);
    const int rtotal = reverse_layout(n, rcounts, rdispls);
    int* send = filled(stotal, kGuard);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < scounts[i]; ++k) send[sdispls[i] + k] = value(me, i, k);
    int* recv = filled(rtotal, kGuard);
    MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
    errs += check_blocks(name, recv, n, rcounts, rdispls, rtotal, expect_alltoall, me);
    free(recv);

    /* In place needs symmetric counts: block i goes to rank i and is
     * replaced by what rank i sends back. */
    for (int i = 0; i < n; ++i) rcounts[i] = symmetric_count(me, i);
    const int total = reverse_layout(n, rcounts, rdispls);
    int* both = filled(total, kGuard);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < rcounts[i]; ++k) both[rdispls[i] + k] = value(me, i, k);
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, both, rcounts, rdispls, MPI_INT,
                  comm);
    errs += check_blocks(name, both, n, rcounts, rdispls, total, expect_alltoall, me);
    free(both);
    free(send);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    return errs;
}

/* Alltoallw: the same exchange as alltoallv with byte displacements, sent as
 * MPI_INT and received from odd ranks into every other int. */
static int alltoallw(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    int* scounts = filled(n, 0);
    int* sdispls = filled(n, 0);
    int* rcounts = filled(n, 0);
    int* rdispls = filled(n, 0);
    MPI_Datatype* stypes = mtest_malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype* rtypes = mtest_malloc(sizeof(MPI_Datatype) * (size_t)n);
    int* rstride = filled(n, 1);
    for (int i = 0; i < n; ++i) {
        scounts[i] = pair_count(me, i);
        rcounts[i] = pair_count(i, me);
        stypes[i] = MPI_INT;
        rtypes[i] = i % 2 == 1 ? every_other : MPI_INT;
        rstride[i] = i % 2 == 1 ? 2 : 1;
    }
    const int stotal = reverse_layout(n, scounts, sdispls);
    /* Receive side: room for strided blocks, then displacements in bytes. */
    int rtotal = 0;
    for (int i = n - 1; i >= 0; --i) {
        rtotal += 1;
        rdispls[i] = rtotal;
        rtotal += rcounts[i] * rstride[i];
    }
    int* send = filled(stotal, kGuard);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < scounts[i]; ++k) send[sdispls[i] + k] = value(me, i, k);
    int* recv = filled(rtotal, kGuard);
    int* rbytes = filled(n, 0);
    for (int i = 0; i < n; ++i) {
        sdispls[i] *= (int)sizeof(int);
        rbytes[i] = rdispls[i] * (int)sizeof(int);
    }
    MPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rbytes, rtypes, comm);
    char* covered = calloc((size_t)rtotal, 1);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < rcounts[i] && errs < 5; ++k) {
            const int at = rdispls[i] + k * rstride[i];
            covered[at] = 1;
            errs += MT_CHECK(recv[at] == value(i, me, k), "%s alltoallw: block %d item %d is %d",
                             name, i, k, recv[at]);
        }
    for (int j = 0; j < rtotal && errs < 5; ++j)
        if (!covered[j])
            errs += MT_CHECK(recv[j] == kGuard, "%s alltoallw: gap %d is %d", name, j, recv[j]);
    free(covered);
    MPI_Type_free(&every_other);
    free(send);
    free(recv);
    free(rbytes);
    free(rstride);
    free(stypes);
    free(rtypes);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    return errs;
}

/* Bad arguments that every rank passes alike, so every rank fails before
 * communicating. */
static int bad_arguments(void) {
    int errs = 0, n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int* counts = filled(n, 1);
    int* displs = filled(n, 0);
    int* buf = filled(n, 0);
    int one = 0;
    counts[n - 1] = -1;
    errs += MT_CLASS(MPI_Allgatherv(&one, 1, MPI_INT, buf, counts, displs, MPI_INT, MPI_COMM_WORLD),
                     MPI_ERR_COUNT);
    errs += MT_CLASS(
        MPI_Alltoallv(buf, counts, displs, MPI_INT, buf, counts, displs, MPI_INT, MPI_COMM_WORLD),
        MPI_ERR_COUNT);
    counts[n - 1] = 1;
    errs += MT_CLASS(
        MPI_Allgatherv(&one, 1, MPI_INT, buf, counts, displs, MPI_DATATYPE_NULL, MPI_COMM_WORLD),
        MPI_ERR_TYPE);
#ifdef SI_MPI
    /* MPICH does not check these arrays for NULL. */
    errs += MT_CLASS(MPI_Allgatherv(&one, 1, MPI_INT, buf, NULL, displs, MPI_INT, MPI_COMM_WORLD),
                     MPI_ERR_ARG);
    errs += MT_CLASS(
        MPI_Alltoallw(buf, counts, displs, NULL, buf, counts, displs, NULL, MPI_COMM_WORLD),
        MPI_ERR_ARG);
    errs += MT_CLASS(
        MPI_Allgatherv(&one, 1, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, MPI_COMM_WORLD),
        MPI_ERR_BUFFER);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(counts);
    free(displs);
    free(buf);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    if (argc > 1) g_scale = atoi(argv[1]);
    int errs = 0;
    MPI_Comm comm;
    const char* name;
    for (int i = 0; mtest_comm_get(i, &comm, &name); ++i) {
        if (comm == MPI_COMM_NULL) continue;
        errs += gatherv(comm, name);
        errs += scatterv(comm, name);
        errs += allgatherv(comm, name);
        errs += alltoallv(comm, name);
        errs += alltoallw(comm, name);
        mtest_comm_release(&comm);
    }
    errs += bad_arguments();
    return mtest_finish(errs);
}
