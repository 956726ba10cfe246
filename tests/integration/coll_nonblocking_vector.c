/*
 * The nonblocking vector collectives: MPI_Igatherv, MPI_Iscatterv,
 * MPI_Iallgatherv, MPI_Ialltoallv, MPI_Ialltoallw.
 *
 *  1. All five in flight at once, twice (an eager and a rendezvous scale),
 *     with per-rank counts that differ (rank 1's block empty), displacements
 *     in reverse rank order with gaps the collectives must leave alone, and
 *     completion by MPI_Waitall. Every element is checked against the value
 *     its sender put there; every gap must still hold the fill value.
 *  2. MPI_IN_PLACE: Igatherv and Iscatterv at the root, Iallgatherv and
 *     Ialltoallv everywhere.
 *  3. Ialltoallw with a non-contiguous receive type (every other int).
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kFill = -7 };

/* The value sender `from` sends as element i of its block for rank `to`. */
static int value(int from, int to, int i) {
    return from * 1000003 + to * 1009 + i;
}

/* Items rank r contributes (or receives) at `scale`: rank 1 none. */
static int count_of(int r, int scale) {
    return r == 1 ? 0 : scale * (r + 1);
}

struct Layout {
    int* counts;
    int* displs;
    int total; /* ints in the whole buffer, gaps included */
};

/* Blocks in reverse rank order, each followed by a gap of 3 ints. */
static struct Layout layout_for(int n, int scale, int of_rank /* -1: count_of(i) */) {
    struct Layout l;
    l.counts = mtest_malloc(sizeof(int) * (size_t)n);
    l.displs = mtest_malloc(sizeof(int) * (size_t)n);
    int at = 0;
    for (int i = n - 1; i >= 0; --i) {
        l.counts[i] = of_rank < 0 ? count_of(i, scale) : count_of(of_rank, scale);
        l.displs[i] = at;
        at += l.counts[i] + 3;
    }
    l.total = at;
    return l;
}

static int* filled(int total) {
    int* v = mtest_malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    for (int i = 0; i < total; ++i) v[i] = kFill;
    return v;
}

/* Block i of buf (per l) must hold value(from(i), to(i), k); gaps kFill. */
static int check_blocks(const char* what, const int* buf, const struct Layout* l, int n,
                        int me, int by_sender) {
    int errs = 0;
    char* expected_fill = calloc((size_t)l->total + 1, 1);
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < l->counts[i]; ++k) {
            const int want = by_sender ? value(i, me, k) : value(me, i, k);
            const int got = buf[l->displs[i] + k];
            if (got != want && errs++ == 0)
                MT_CHECK(0, "%s: block %d item %d is %d, expected %d", what, i, k, got, want);
            expected_fill[l->displs[i] + k] = 1;
        }
    }
    for (int j = 0; j < l->total; ++j)
        if (!expected_fill[j] && buf[j] != kFill && errs++ == 0)
            MT_CHECK(0, "%s: gap at %d overwritten with %d", what, j, buf[j]);
    free(expected_fill);
    return errs;
}

static int all_in_flight(int scale) {
    int errs = 0, rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int root = n - 1;
    const int mine = count_of(rank, scale);

    /* Igatherv: my block for the root. */
    int* gather_send = mtest_malloc(sizeof(int) * (size_t)(mine + 1));
    for (int k = 0; k < mine; ++k) gather_send[k] = value(rank, root, k);
    struct Layout gl = layout_for(n, scale, -1);
    int* gathered = filled(gl.total);

    /* Iscatterv: the root's block for each rank. */
    struct Layout sl = layout_for(n, scale, -1);
    int* scatter_send = filled(sl.total);
    if (rank == root)
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < sl.counts[i]; ++k) scatter_send[sl.displs[i] + k] = value(root, i, k);
    int* scattered = filled(mine + 3);

    /* Iallgatherv: my block for everyone (value(rank, 0, k) at every rank). */
    int* allgather_send = mtest_malloc(sizeof(int) * (size_t)(mine + 1));
    for (int k = 0; k < mine; ++k) allgather_send[k] = value(rank, 0, k);
    int* allgathered = filled(gl.total);

    /* Ialltoallv: block for rank i has count_of(rank) items... sizes must
     * pair up: what rank s sends to r is count_of(s), received as such. */
    struct Layout out = layout_for(n, scale, rank); /* I send count_of(me) to each */
    struct Layout in = layout_for(n, scale, -1);    /* I get count_of(i) from i */
    int* a2a_send = filled(out.total);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < out.counts[i]; ++k) a2a_send[out.displs[i] + k] = value(rank, i, k);
    int* a2a_recv = filled(in.total);

    /* Ialltoallw: the same exchange with byte displacements and a type per rank. */
    int* w_recv = filled(in.total);
    int* sdispls = mtest_malloc(sizeof(int) * (size_t)n);
    int* rdispls = mtest_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype* types = mtest_malloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        sdispls[i] = out.displs[i] * (int)sizeof(int);
        rdispls[i] = in.displs[i] * (int)sizeof(int);
        types[i] = MPI_INT;
    }

    MPI_Request req[5];
    MPI_Igatherv(gather_send, mine, MPI_INT, gathered, gl.counts, gl.displs, MPI_INT, root,
                 MPI_COMM_WORLD, &req[0]);
    MPI_Iscatterv(scatter_send, sl.counts, sl.displs, MPI_INT, scattered, mine, MPI_INT, root,
                  MPI_COMM_WORLD, &req[1]);
    MPI_Iallgatherv(allgather_send, mine, MPI_INT, allgathered, gl.counts, gl.displs, MPI_INT,
                    MPI_COMM_WORLD, &req[2]);
    MPI_Ialltoallv(a2a_send, out.counts, out.displs, MPI_INT, a2a_recv, in.counts, in.displs,
                   MPI_INT, MPI_COMM_WORLD, &req[3]);
    MPI_Ialltoallw(a2a_send, out.counts, sdispls, types, w_recv, in.counts, rdispls, types,
                   MPI_COMM_WORLD, &req[4]);
    MPI_Waitall(5, req, MPI_STATUSES_IGNORE);

    if (rank == root) errs += check_blocks("Igatherv", gathered, &gl, n, root, 1);
    for (int k = 0; k < mine; ++k)
        if (scattered[k] != value(root, rank, k) && errs++ == 0)
            MT_CHECK(0, "Iscatterv: item %d is %d", k, scattered[k]);
    errs += MT_CHECK(scattered[mine] == kFill, "Iscatterv wrote past the block");
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < gl.counts[i]; ++k)
            if (allgathered[gl.displs[i] + k] != value(i, 0, k) && errs++ == 0)
                MT_CHECK(0, "Iallgatherv: block %d item %d is %d", i, k,
                         allgathered[gl.displs[i] + k]);
    errs += check_blocks("Ialltoallv", a2a_recv, &in, n, rank, 1);
    errs += check_blocks("Ialltoallw", w_recv, &in, n, rank, 1);

    free(gather_send); free(gathered); free(scatter_send); free(scattered);
    free(allgather_send); free(allgathered); free(a2a_send); free(a2a_recv); free(w_recv);
    free(sdispls); free(rdispls); free(types);
    free(gl.counts); free(gl.displs); free(sl.counts); free(sl.displs);
    free(out.counts); free(out.displs); free(in.counts); free(in.displs);
    return errs;
}

static int in_place(int scale) {
    int errs = 0, rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int root = 0;
    struct Layout l = layout_for(n, scale, -1);
    /* Igatherv at the root: its own block already in place. */
    int* gathered = filled(l.total);
    int* mine = mtest_malloc(sizeof(int) * (size_t)(count_of(rank, scale) + 1));
    for (int k = 0; k < count_of(rank, scale); ++k) mine[k] = value(rank, root, k);
    if (rank == root)
        for (int k = 0; k < l.counts[root]; ++k) gathered[l.displs[root] + k] = value(root, root, k);
    /* Iscatterv at the root: its own block stays in sendbuf. */
    int* scatter_send = filled(l.total);
    if (rank == root)
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < l.counts[i]; ++k) scatter_send[l.displs[i] + k] = value(root, i, k);
    int* scattered = filled(count_of(rank, scale) + 1);
    /* Iallgatherv everywhere: every rank's block already in place. */
    int* allgathered = filled(l.total);
    for (int k = 0; k < l.counts[rank]; ++k) allgathered[l.displs[rank] + k] = value(rank, 0, k);
    /* Ialltoallv in place: block i holds what goes to i, then what came from i; the
     * counts must be symmetric, so every block has `scale` items. */
    int* counts = mtest_malloc(sizeof(int) * (size_t)n);
    int* displs = mtest_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        counts[i] = scale;
        displs[i] = (n - 1 - i) * (scale + 2);
    }
    const int a2a_total = n * (scale + 2);
    int* a2a = filled(a2a_total);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < scale; ++k) a2a[displs[i] + k] = value(rank, i, k);

    MPI_Request req[4];
    if (rank == root)
        MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INT, gathered, l.counts, l.displs, MPI_INT, root,
                     MPI_COMM_WORLD, &req[0]);
    else
        MPI_Igatherv(mine, count_of(rank, scale), MPI_INT, NULL, NULL, NULL, MPI_INT, root,
                     MPI_COMM_WORLD, &req[0]);
    if (rank == root)
        MPI_Iscatterv(scatter_send, l.counts, l.displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root,
                      MPI_COMM_WORLD, &req[1]);
    else
        MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, scattered, count_of(rank, scale), MPI_INT, root,
                      MPI_COMM_WORLD, &req[1]);
    MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, allgathered, l.counts, l.displs, MPI_INT,
                    MPI_COMM_WORLD, &req[2]);
    MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, a2a, counts, displs, MPI_INT,
                   MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

    if (rank == root) errs += check_blocks("Igatherv in place", gathered, &l, n, root, 1);
    if (rank != root)
        for (int k = 0; k < count_of(rank, scale); ++k)
            if (scattered[k] != value(root, rank, k) && errs++ == 0)
                MT_CHECK(0, "Iscatterv: item %d is %d", k, scattered[k]);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < l.counts[i]; ++k)
            if (allgathered[l.displs[i] + k] != value(i, 0, k) && errs++ == 0)
                MT_CHECK(0, "Iallgatherv in place: block %d item %d is %d", i, k,
                         allgathered[l.displs[i] + k]);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < scale; ++k)
            if (a2a[displs[i] + k] != value(i, rank, k) && errs++ == 0)
                MT_CHECK(0, "Ialltoallv in place: block %d item %d is %d", i, k,
                         a2a[displs[i] + k]);
    free(gathered); free(mine); free(scatter_send); free(scattered); free(allgathered);
    free(counts); free(displs); free(a2a);
    free(l.counts); free(l.displs);
    return errs;
}

/* Ialltoallw receiving every other int: a vector type per block. */
static int strided_receive(void) {
    int errs = 0, rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    enum { kItems = 5 };
    MPI_Datatype strided;
    MPI_Type_vector(kItems, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int* send = mtest_malloc(sizeof(int) * (size_t)(n * kItems));
    int* recv = filled(n * 2 * kItems);
    int* scounts = mtest_malloc(sizeof(int) * (size_t)n);
    int* rcounts = mtest_malloc(sizeof(int) * (size_t)n);
    int* sdispls = mtest_malloc(sizeof(int) * (size_t)n);
    int* rdispls = mtest_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype* stypes = mtest_malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype* rtypes = mtest_malloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < kItems; ++k) send[i * kItems + k] = value(rank, i, k);
        scounts[i] = kItems;
        sdispls[i] = i * kItems * (int)sizeof(int);
        stypes[i] = MPI_INT;
        rcounts[i] = 1;
        rdispls[i] = i * 2 * kItems * (int)sizeof(int);
        rtypes[i] = strided;
    }
    MPI_Request request;
    MPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes,
                   MPI_COMM_WORLD, &request);
    MPI_Type_free(&strided); /* allowed while the collective runs */
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < kItems; ++k) {
            const int got = recv[i * 2 * kItems + 2 * k], gap = recv[i * 2 * kItems + 2 * k + 1];
            if ((got != value(i, rank, k) || gap != kFill) && errs++ == 0)
                MT_CHECK(0, "Ialltoallw strided: block %d item %d is %d (gap %d)", i, k, got, gap);
        }
    free(send); free(recv); free(scounts); free(rcounts); free(sdispls); free(rdispls);
    free(stypes); free(rtypes);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    errs += all_in_flight(3);
    errs += all_in_flight(20000); /* up to 80 KB per block and more: the rendezvous */
    errs += in_place(4);
    errs += in_place(30000);
    errs += strided_receive();
    return mtest_finish(errs);
}
