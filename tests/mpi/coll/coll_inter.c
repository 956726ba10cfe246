/*
 * Collectives on intercommunicators (MPI-3.1 5.2.2): barrier, broadcast,
 * gather(v), scatter(v), allgather(v), alltoall(v,w), reduce, allreduce,
 * reduce-scatter (and _block), on three intercommunicators of the world:
 * world rank 0 against the rest (1 vs n-1), even against odd world ranks with
 * keys reversing each group's order, and the low half against the high half.
 * Every process of either group is the root in turn (MPI_ROOT at the root,
 * MPI_PROC_NULL in the rest of its group, whose buffers must stay untouched,
 * the root's rank in the other group). Blocks differ in size between ranks
 * (some empty) and lie in reverse order with a guard before each; broadcast
 * and alltoallw use derived types; reductions also use a non-commutative
 * user operator, which the other group must apply in its rank order. A
 * wildcard receive posted on each intercommunicator before the collectives
 * must get only the message sent to it after them. Errors: MPI_IN_PLACE
 * (MPI_ERR_BUFFER, as MPICH), MPI_Scan and MPI_Exscan (MPI_ERR_COMM), a root
 * out of range (MPI_ERR_ROOT). Needs 2 ranks or more.
 *
 * Arguments: an optional item count per block (large ones go through the
 * rendezvous protocol).
 */
#include <stdlib.h>
#include <string.h>

#include "coll_inter.h"

/* ---- Rooted: root is the argument, (rg, r) the root's group and rank. */

static int bcast(const Inter* t, int root, int rg, int r) {
    const int n = g_n;
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, ITEM, &strided);
    MPI_Type_commit(&strided);
    item *buf = items(2 * n), *want = items(2 * n);
    for (int k = 0; k < n; ++k) {
        if (root != MPI_PROC_NULL) want[2 * k] = val(rg, r, k);
        if (root == MPI_ROOT) buf[2 * k] = val(rg, r, k);
    }
    MPI_Bcast(buf, 1, strided, root, t->comm);
    const int errs = same(t, "MPI_Bcast", root, buf, want, 2 * n);
    MPI_Type_free(&strided);
    free(buf);
    free(want);
    return errs;
}

static int gather(const Inter* t, int root, int rg, int r) {
    (void)rg, (void)r;
    const int n = g_n, all = t->rsize * n;
    int errs = 0;
    item *send = items(n), *recv = items(all), *want = items(all);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    if (root == MPI_ROOT)
        for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, j % n);
    MPI_Gather(send, n, ITEM, recv, n, ITEM, root, t->comm);
    errs += same(t, "MPI_Gather", root, recv, want, all);

    /* Gatherv: remote rank j sends vcount(its group, j) items. */
    int *counts = malloc(sizeof(int) * (size_t)t->rsize),
        *displs = malloc(sizeof(int) * (size_t)t->rsize);
    for (int j = 0; j < t->rsize; ++j) counts[j] = vcount(1 - t->g, j);
    const int total = reverse_layout(t->rsize, counts, displs);
    item *vsend = items(vcount(t->g, t->rank)), *vrecv = items(total), *vwant = items(total);
    for (int k = 0; k < vcount(t->g, t->rank); ++k) vsend[k] = val(t->g, t->rank, k);
    if (root == MPI_ROOT)
        for (int j = 0; j < t->rsize; ++j)
            for (int k = 0; k < counts[j]; ++k) vwant[displs[j] + k] = val(1 - t->g, j, k);
    MPI_Gatherv(vsend, vcount(t->g, t->rank), ITEM, vrecv, counts, displs, ITEM, root, t->comm);
    errs += same(t, "MPI_Gatherv", root, vrecv, vwant, total);
    free(send), free(recv), free(want), free(vsend), free(vrecv), free(vwant);
    free(counts), free(displs);
    return errs;
}

static int scatter(const Inter* t, int root, int rg, int r) {
    const int n = g_n, all = t->rsize * n;
    int errs = 0;
    item *send = items(all), *recv = items(n), *want = items(n);
    if (root == MPI_ROOT)
        for (int j = 0; j < all; ++j) send[j] = val(t->g, t->rank, j);
    if (root >= 0)
        for (int k = 0; k < n; ++k) want[k] = val(rg, r, t->rank * n + k);
    MPI_Scatter(send, n, ITEM, recv, n, ITEM, root, t->comm);
    errs += same(t, "MPI_Scatter", root, recv, want, n);

    /* Scatterv: the root's blocks in reverse order, the other group's rank
     * j receiving vcount(its group, j) items. The other group works out the
     * root's layout from its own counts. */
    const int blocks = root == MPI_ROOT ? t->rsize : t->size;
    const int blocks_g = root == MPI_ROOT ? 1 - t->g : t->g;
    int *counts = malloc(sizeof(int) * (size_t)blocks),
        *displs = malloc(sizeof(int) * (size_t)blocks);
    for (int j = 0; j < blocks; ++j) counts[j] = vcount(blocks_g, j);
    const int total = reverse_layout(blocks, counts, displs);
    const int mine = vcount(t->g, t->rank);
    item *vsend = items(total), *vrecv = items(mine), *vwant = items(mine);
    if (root == MPI_ROOT)
        for (int j = 0; j < total; ++j) vsend[j] = val(t->g, t->rank, j);
    if (root >= 0)
        for (int k = 0; k < mine; ++k) vwant[k] = val(rg, r, displs[t->rank] + k);
    MPI_Scatterv(vsend, counts, displs, ITEM, vrecv, mine, ITEM, root, t->comm);
    errs += same(t, "MPI_Scatterv", root, vrecv, vwant, mine);
    free(send), free(recv), free(want), free(vsend), free(vrecv), free(vwant);
    free(counts), free(displs);
    return errs;
}

static int reduce(const Inter* t, int root, int rg, int r) {
    (void)rg, (void)r;
    const int n = g_n;
    int errs = 0;
    item *send = items(2 * n), *recv = items(2 * n), *want = items(2 * n);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    if (root == MPI_ROOT) sums(1 - t->g, t->rsize, 0, n, want);
    MPI_Reduce(send, recv, n, ITEM, MPI_SUM, root, t->comm);
    errs += same(t, "MPI_Reduce (MPI_SUM)", root, recv, want, n);

    for (int k = 0; k < 2 * n; ++k) recv[k] = want[k] = kGuard;
    for (int k = 0; k < n; ++k) affine_item(t->g, t->rank, k, &send[2 * k]);
    if (root == MPI_ROOT) composition(1 - t->g, t->rsize, n, want);
    MPI_Reduce(send, recv, n, g_pair, g_affine, root, t->comm);
    errs += same(t, "MPI_Reduce (non-commutative)", root, recv, want, 2 * n);
    free(send), free(recv), free(want);
    return errs;
}

typedef int (*rooted_fn)(const Inter* t, int root, int rg, int r);

/* Every process of either group as the root in turn. */
static int each_root(const Inter* t, rooted_fn f) {
    int errs = 0;
    for (int rg = 0; rg < 2; ++rg) {
        const int members = rg == t->g ? t->size : t->rsize;
        for (int r = 0; r < members; ++r) {
            int root = r;
            if (rg == t->g) root = t->rank == r ? MPI_ROOT : MPI_PROC_NULL;
            errs += f(t, root, rg, r);
        }
    }
    return errs;
}

/* ---- Without a root: each group receives from the other. */

static int allgather(const Inter* t) {
    const int n = g_n, all = t->rsize * n;
    int errs = 0;
    item *send = items(n), *recv = items(all), *want = items(all);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, j % n);
    MPI_Allgather(send, n, ITEM, recv, n, ITEM, t->comm);
    errs += same(t, "MPI_Allgather", 0, recv, want, all);

    int *counts = malloc(sizeof(int) * (size_t)t->rsize),
        *displs = malloc(sizeof(int) * (size_t)t->rsize);
    for (int j = 0; j < t->rsize; ++j) counts[j] = vcount(1 - t->g, j);
    const int total = reverse_layout(t->rsize, counts, displs);
    const int mine = vcount(t->g, t->rank);
    item *vsend = items(mine), *vrecv = items(total), *vwant = items(total);
    for (int k = 0; k < mine; ++k) vsend[k] = val(t->g, t->rank, k);
    for (int j = 0; j < t->rsize; ++j)
        for (int k = 0; k < counts[j]; ++k) vwant[displs[j] + k] = val(1 - t->g, j, k);
    MPI_Allgatherv(vsend, mine, ITEM, vrecv, counts, displs, ITEM, t->comm);
    errs += same(t, "MPI_Allgatherv", 0, vrecv, vwant, total);
    free(send), free(recv), free(want), free(vsend), free(vrecv), free(vwant);
    free(counts), free(displs);
    return errs;
}

static int alltoall(const Inter* t) {
    const int n = g_n, all = t->rsize * n, stride = 6 * n, m = t->rsize;
    int errs = 0;
    item *send = items(all), *recv = items(all), *want = items(all);
    for (int j = 0; j < all; ++j) send[j] = val(t->g, t->rank, j);
    for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, t->rank * n + j % n);
    MPI_Alltoall(send, n, ITEM, recv, n, ITEM, t->comm);
    errs += same(t, "MPI_Alltoall", 0, recv, want, all);

    /* Alltoallv: pcount items from each rank to each rank. */
    int* a = malloc(sizeof(int) * 4 * (size_t)m);
    int *scounts = a, *sdispls = a + m, *rcounts = a + 2 * m, *rdispls = a + 3 * m;
    for (int j = 0; j < m; ++j) {
        scounts[j] = pcount(t->g, t->rank, j);
        rcounts[j] = pcount(1 - t->g, j, t->rank);
    }
    const int stotal = reverse_layout(m, scounts, sdispls);
    const int rtotal = reverse_layout(m, rcounts, rdispls);
    item *vsend = items(stotal), *vrecv = items(rtotal), *vwant = items(rtotal);
    for (int j = 0; j < m; ++j) {
        for (int k = 0; k < scounts[j]; ++k)
            vsend[sdispls[j] + k] = val(t->g, t->rank, j * stride + k);
        for (int k = 0; k < rcounts[j]; ++k)
            vwant[rdispls[j] + k] = val(1 - t->g, j, t->rank * stride + k);
    }
    MPI_Alltoallv(vsend, scounts, sdispls, ITEM, vrecv, rcounts, rdispls, ITEM, t->comm);
    errs += same(t, "MPI_Alltoallv", 0, vrecv, vwant, rtotal);
    free(vsend), free(vrecv), free(vwant);

    /* Alltoallw: sent as 2 pcount items, received as pcount pairs, with
     * byte displacements. */
    MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * 2 * (size_t)m);
    for (int j = 0; j < m; ++j) {
        scounts[j] = 2 * pcount(t->g, t->rank, j);
        rcounts[j] = 2 * pcount(1 - t->g, j, t->rank);
    }
    const int wstotal = reverse_layout(m, scounts, sdispls);
    const int wrtotal = reverse_layout(m, rcounts, rdispls);
    vsend = items(wstotal), vrecv = items(wrtotal), vwant = items(wrtotal);
    for (int j = 0; j < m; ++j) {
        for (int k = 0; k < scounts[j]; ++k)
            vsend[sdispls[j] + k] = val(t->g, t->rank, j * stride + k);
        for (int k = 0; k < rcounts[j]; ++k)
            vwant[rdispls[j] + k] = val(1 - t->g, j, t->rank * stride + k);
        sdispls[j] *= (int)sizeof(item);
        rdispls[j] *= (int)sizeof(item);
        rcounts[j] /= 2;
        types[j] = ITEM;
        types[m + j] = g_pair;
    }
    MPI_Alltoallw(vsend, scounts, sdispls, types, vrecv, rcounts, rdispls, types + m, t->comm);
    errs += same(t, "MPI_Alltoallw", 0, vrecv, vwant, wrtotal);
    free(send), free(recv), free(want), free(vsend), free(vrecv), free(vwant);
    free(a), free(types);
    return errs;
}

static int reductions(const Inter* t) {
    const int n = g_n;
    int errs = 0;
    item *send = items(2 * n), *recv = items(2 * n), *want = items(2 * n);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, 0, n, want);
    MPI_Allreduce(send, recv, n, ITEM, MPI_SUM, t->comm);
    errs += same(t, "MPI_Allreduce (MPI_SUM)", 0, recv, want, n);
    for (int k = 0; k < n; ++k) affine_item(t->g, t->rank, k, &send[2 * k]);
    composition(1 - t->g, t->rsize, n, want);
    MPI_Allreduce(send, recv, n, g_pair, g_affine, t->comm);
    errs += same(t, "MPI_Allreduce (non-commutative)", 0, recv, want, 2 * n);
    free(send), free(recv), free(want);

    /* Reduce_scatter: both groups' counts add up to the same total, in
     * uneven blocks (some empty). */
    const int unit = n / 2 + 1, total = 8 * unit;
    int* counts = malloc(sizeof(int) * (size_t)t->size);
    int used = 0, offset = 0;
    for (int i = 0; i < t->size - 1; ++i) used += counts[i] = (i % 3) * unit;
    counts[t->size - 1] = total - used;
    for (int i = 0; i < t->rank; ++i) offset += counts[i];
    const int mine = counts[t->rank];
    send = items(total), recv = items(mine), want = items(mine);
    for (int k = 0; k < total; ++k) send[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, offset, mine, want);
    MPI_Reduce_scatter(send, recv, counts, ITEM, MPI_SUM, t->comm);
    errs += same(t, "MPI_Reduce_scatter", 0, recv, want, mine);
    free(send), free(recv), free(want), free(counts);

    /* Reduce_scatter_block: rsize * n items each, size * rsize * n in all. */
    const int block = t->rsize * n;
    send = items(t->size * block), recv = items(block), want = items(block);
    for (int k = 0; k < t->size * block; ++k) send[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, t->rank * block, block, want);
    MPI_Reduce_scatter_block(send, recv, block, ITEM, MPI_SUM, t->comm);
    errs += same(t, "MPI_Reduce_scatter_block", 0, recv, want, block);
    free(send), free(recv), free(want);
    return errs;
}

static int errors(const Inter* t) {
    int errs = 0;
    item a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    const int rc = MPI_Allreduce(MPI_IN_PLACE, b, 1, ITEM, MPI_SUM, t->comm);
    errs += MT_CLASS(rc, MPI_ERR_BUFFER);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    errs += MT_CHECK(strstr(text, "MPI_Allreduce") != NULL, "the error does not name the call: %s",
                     text);
    errs += MT_CLASS(MPI_Scan(a, b, 1, ITEM, MPI_SUM, t->comm), MPI_ERR_COMM);
    errs += MT_CLASS(MPI_Exscan(a, b, 1, ITEM, MPI_SUM, t->comm), MPI_ERR_COMM);
    errs += MT_CLASS(MPI_Bcast(a, 1, ITEM, t->rsize + 1000, t->comm), MPI_ERR_ROOT);
#ifdef SI_MPI
    /* MPICH 4.0 takes some of these, or crashes. */
    errs += MT_CLASS(MPI_Allgather(MPI_IN_PLACE, 1, ITEM, b, 1, ITEM, t->comm), MPI_ERR_BUFFER);
    errs += MT_CLASS(MPI_Alltoall(MPI_IN_PLACE, 1, ITEM, b, 1, ITEM, t->comm), MPI_ERR_BUFFER);
    errs += MT_CLASS(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, ITEM, MPI_SUM, t->comm),
                     MPI_ERR_BUFFER);
    /* The root's recvbuf, the other group's sendbuf; the rest of the root's
     * group passes nothing that is looked at. */
    const int root = t->g == 0 ? (t->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    errs +=
        MT_CLASS(MPI_Reduce(root == MPI_ROOT ? a : MPI_IN_PLACE,
                            root == MPI_ROOT ? MPI_IN_PLACE : b, 1, ITEM, MPI_SUM, root, t->comm),
                 root == MPI_PROC_NULL ? MPI_SUCCESS : MPI_ERR_BUFFER);
#endif
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    inter_init(&argc, &argv);
    int errs = 0;

    for (int kind = 0; kind < 3; ++kind) {
        Inter t;
        make_inter(kind, &t);
        /* Collective traffic must not match a wildcard receive. */
        item got = -1, note = val(t.g, 99, 0);
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Status status;
        if (t.rank == 0) MPI_Irecv(&got, 1, ITEM, MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm, &request);

        for (int i = 0; i < 3; ++i) MPI_Barrier(t.comm);
        errs += each_root(&t, bcast);
        errs += each_root(&t, gather);
        errs += each_root(&t, scatter);
        errs += each_root(&t, reduce);
        errs += allgather(&t);
        errs += alltoall(&t);
        errs += reductions(&t);
        errs += errors(&t);

        /* A duplicate has collectives of its own. */
        MPI_Comm dup;
        MPI_Comm_dup(t.comm, &dup);
        item mine = t.g + 1, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, ITEM, MPI_SUM, dup);
        errs += MT_EQ(sum, (item)(2 - t.g) * t.rsize);
        MPI_Comm_free(&dup);

        if (t.rank == 0) {
            MPI_Send(&note, 1, ITEM, 0, 3, t.comm);
            MPI_Wait(&request, &status);
            errs += MT_EQ(got, val(1 - t.g, 99, 0));
            errs += MT_EQ(status.MPI_TAG, 3);
        }
        MPI_Barrier(t.comm);
        MPI_Comm_free(&t.comm);
    }
    MPI_Op_free(&g_affine);
    MPI_Type_free(&g_pair);
    return mtest_finish(errs);
}
