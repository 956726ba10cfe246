/*
 * Nonblocking collectives on intercommunicators (MPI-3.1 5.12 with 5.2.2):
 * MPI_Ibarrier, Ibcast, Igather(v), Iscatter(v), Iallgather(v),
 * Ialltoall(v,w), Ireduce, Iallreduce and Ireduce_scatter(_block), on the
 * three intercommunicators of coll_inter.c (1 vs n-1, even vs odd with each
 * group's order reversed, low vs high half: uneven splits from 3 ranks on).
 *
 * Each batch starts every one of them at once, seventeen requests in flight
 * on one intercommunicator, with one root for the rooted calls (MPI_ROOT at
 * the root, MPI_PROC_NULL in the rest of its group, whose buffers must stay
 * untouched, the root's rank in the other group); over the batches every
 * process of either group is the root once. A batch completes in reverse
 * order of starting: by MPI_Wait from the last request to the first, by
 * MPI_Waitall or by polling MPI_Testall on the reversed array, in turn. Then
 * every item of every buffer is checked: blocks differ in size between ranks
 * (some empty) and lie in reverse order with a guard before each; the
 * broadcast uses a strided type (freed while the call runs) and alltoallw
 * two types; the reductions also use a non-commutative operator, which the
 * other group must apply in its rank order.
 *
 * Also: a nonblocking allreduce on a duplicate of the intercommunicator in
 * flight with a blocking allreduce on the original, and the errors:
 * MPI_Iscan and MPI_Iexscan (MPI_ERR_COMM, naming the call), MPI_IN_PLACE
 * (MPI_ERR_BUFFER) and a root out of range (MPI_ERR_ROOT). Needs 2 ranks or
 * more.
 *
 * Arguments: an optional item count per block (10000, 80 KB, goes through
 * the rendezvous protocol). Built against MPICH, the reference, the test
 * broadcasts only from rank 0 of a group: MPICH 4.0.2's MPI_Ibcast on an
 * intercommunicator delivers wrong data from any other root.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_inter.h"

enum { kMaxRequests = 20, kMaxChecks = 24, kMaxOwned = 96 };

/* One batch: its requests in starting order, the buffers to check when they
 * are over, and the memory to free. */
typedef struct {
    const Inter* t;
    int root;
    MPI_Request requests[kMaxRequests];
    int started;
    struct {
        const char* what;
        const item* got;
        const item* want;
        int n;
    } checks[kMaxChecks];
    int nchecks;
    void* owned[kMaxOwned];
    int nowned;
} Batch;

static MPI_Request* next_request(Batch* b) {
    if (b->started == kMaxRequests) MT_FATAL("too many requests in one batch");
    return &b->requests[b->started++];
}

static void* keep(Batch* b, void* memory) {
    if (b->nowned == kMaxOwned) MT_FATAL("too many buffers in one batch");
    b->owned[b->nowned++] = memory;
    return memory;
}

static item* batch_items(Batch* b, int n) {
    return keep(b, items(n));
}

static int* batch_ints(Batch* b, int n) {
    return keep(b, mtest_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)));
}

static void expect(Batch* b, const char* what, const item* got, const item* want, int n) {
    if (b->nchecks == kMaxChecks) MT_FATAL("too many checks in one batch");
    b->checks[b->nchecks].what = what;
    b->checks[b->nchecks].got = got;
    b->checks[b->nchecks].want = want;
    b->checks[b->nchecks].n = n;
    ++b->nchecks;
}

/* The blocks of a v-form gather: this rank sends vcount(its group, rank)
 * items; remote rank j's vcount(its group, j) land in reverse order of the
 * ranks (reverse_layout). `want` is filled only where the data lands. */
typedef struct {
    int *counts, *displs;
    int mine, total;
    item *send, *recv, *want;
} VectorBlocks;

static VectorBlocks vector_blocks(Batch* b, int receives) {
    const Inter* t = b->t;
    VectorBlocks v;
    v.counts = batch_ints(b, t->rsize);
    v.displs = batch_ints(b, t->rsize);
    for (int j = 0; j < t->rsize; ++j) v.counts[j] = vcount(1 - t->g, j);
    v.total = reverse_layout(t->rsize, v.counts, v.displs);
    v.mine = vcount(t->g, t->rank);
    v.send = batch_items(b, v.mine);
    v.recv = batch_items(b, v.total);
    v.want = batch_items(b, v.total);
    for (int k = 0; k < v.mine; ++k) v.send[k] = val(t->g, t->rank, k);
    if (receives)
        for (int j = 0; j < t->rsize; ++j)
            for (int k = 0; k < v.counts[j]; ++k) v.want[v.displs[j] + k] = val(1 - t->g, j, k);
    return v;
}

/* ---- Rooted: b->root is the argument, (rg, r) the root's group and rank. */

static void start_bcast(Batch* b, int rg, int r) {
    const Inter* t = b->t;
    const int n = g_n, root = b->root;
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, ITEM, &strided);
    MPI_Type_commit(&strided);
    item *buf = batch_items(b, 2 * n), *want = batch_items(b, 2 * n);
    for (int k = 0; k < n; ++k) {
        if (root != MPI_PROC_NULL) want[2 * k] = val(rg, r, k);
        if (root == MPI_ROOT) buf[2 * k] = val(rg, r, k);
    }
    MPI_Ibcast(buf, 1, strided, root, t->comm, next_request(b));
    MPI_Type_free(&strided); /* the call keeps what it needs */
    expect(b, "MPI_Ibcast", buf, want, 2 * n);
}

static void start_gathers(Batch* b) {
    const Inter* t = b->t;
    const int n = g_n, all = t->rsize * n, root = b->root;
    item *send = batch_items(b, n), *recv = batch_items(b, all), *want = batch_items(b, all);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    if (root == MPI_ROOT)
        for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, j % n);
    MPI_Igather(send, n, ITEM, recv, n, ITEM, root, t->comm, next_request(b));
    expect(b, "MPI_Igather", recv, want, all);

    VectorBlocks v = vector_blocks(b, root == MPI_ROOT);
    MPI_Igatherv(v.send, v.mine, ITEM, v.recv, v.counts, v.displs, ITEM, root, t->comm,
                 next_request(b));
    expect(b, "MPI_Igatherv", v.recv, v.want, v.total);
}

static void start_scatters(Batch* b, int rg, int r) {
    const Inter* t = b->t;
    const int n = g_n, all = t->rsize * n, root = b->root;
    item *send = batch_items(b, all), *recv = batch_items(b, n), *want = batch_items(b, n);
    if (root == MPI_ROOT)
        for (int j = 0; j < all; ++j) send[j] = val(t->g, t->rank, j);
    if (root >= 0)
        for (int k = 0; k < n; ++k) want[k] = val(rg, r, t->rank * n + k);
    MPI_Iscatter(send, n, ITEM, recv, n, ITEM, root, t->comm, next_request(b));
    expect(b, "MPI_Iscatter", recv, want, n);

    /* The root's blocks in reverse order, the other group's rank j receiving
     * vcount(its group, j) items; that group works out the root's layout
     * from its own counts. */
    const int blocks = root == MPI_ROOT ? t->rsize : t->size;
    const int blocks_g = root == MPI_ROOT ? 1 - t->g : t->g;
    int *counts = batch_ints(b, blocks), *displs = batch_ints(b, blocks);
    for (int j = 0; j < blocks; ++j) counts[j] = vcount(blocks_g, j);
    const int total = reverse_layout(blocks, counts, displs);
    const int mine = vcount(t->g, t->rank);
    item *vsend = batch_items(b, total), *vrecv = batch_items(b, mine),
         *vwant = batch_items(b, mine);
    if (root == MPI_ROOT)
        for (int j = 0; j < total; ++j) vsend[j] = val(t->g, t->rank, j);
    if (root >= 0)
        for (int k = 0; k < mine; ++k) vwant[k] = val(rg, r, displs[t->rank] + k);
    MPI_Iscatterv(vsend, counts, displs, ITEM, vrecv, mine, ITEM, root, t->comm, next_request(b));
    expect(b, "MPI_Iscatterv", vrecv, vwant, mine);
}

static void start_reduces(Batch* b) {
    const Inter* t = b->t;
    const int n = g_n, root = b->root;
    item *send = batch_items(b, n), *recv = batch_items(b, n), *want = batch_items(b, n);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    if (root == MPI_ROOT) sums(1 - t->g, t->rsize, 0, n, want);
    MPI_Ireduce(send, recv, n, ITEM, MPI_SUM, root, t->comm, next_request(b));
    expect(b, "MPI_Ireduce (MPI_SUM)", recv, want, n);

    item *psend = batch_items(b, 2 * n), *precv = batch_items(b, 2 * n),
         *pwant = batch_items(b, 2 * n);
    for (int k = 0; k < n; ++k) affine_item(t->g, t->rank, k, &psend[2 * k]);
    if (root == MPI_ROOT) composition(1 - t->g, t->rsize, n, pwant);
    MPI_Ireduce(psend, precv, n, g_pair, g_affine, root, t->comm, next_request(b));
    expect(b, "MPI_Ireduce (non-commutative)", precv, pwant, 2 * n);
}

/* ---- Without a root: each group receives from the other. */

static void start_allgathers(Batch* b) {
    const Inter* t = b->t;
    const int n = g_n, all = t->rsize * n;
    item *send = batch_items(b, n), *recv = batch_items(b, all), *want = batch_items(b, all);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, j % n);
    MPI_Iallgather(send, n, ITEM, recv, n, ITEM, t->comm, next_request(b));
    expect(b, "MPI_Iallgather", recv, want, all);

    VectorBlocks v = vector_blocks(b, 1);
    MPI_Iallgatherv(v.send, v.mine, ITEM, v.recv, v.counts, v.displs, ITEM, t->comm,
                    next_request(b));
    expect(b, "MPI_Iallgatherv", v.recv, v.want, v.total);
}

static void start_alltoalls(Batch* b) {
    const Inter* t = b->t;
    const int n = g_n, all = t->rsize * n, stride = 6 * n, m = t->rsize;
    item *send = batch_items(b, all), *recv = batch_items(b, all), *want = batch_items(b, all);
    for (int j = 0; j < all; ++j) send[j] = val(t->g, t->rank, j);
    for (int j = 0; j < all; ++j) want[j] = val(1 - t->g, j / n, t->rank * n + j % n);
    MPI_Ialltoall(send, n, ITEM, recv, n, ITEM, t->comm, next_request(b));
    expect(b, "MPI_Ialltoall", recv, want, all);

    /* Alltoallv: pcount items from each rank to each rank. */
    int *scounts = batch_ints(b, m), *sdispls = batch_ints(b, m);
    int *rcounts = batch_ints(b, m), *rdispls = batch_ints(b, m);
    for (int j = 0; j < m; ++j) {
        scounts[j] = pcount(t->g, t->rank, j);
        rcounts[j] = pcount(1 - t->g, j, t->rank);
    }
    const int stotal = reverse_layout(m, scounts, sdispls);
    const int rtotal = reverse_layout(m, rcounts, rdispls);
    item *vsend = batch_items(b, stotal), *vrecv = batch_items(b, rtotal),
         *vwant = batch_items(b, rtotal);
    for (int j = 0; j < m; ++j) {
        for (int k = 0; k < scounts[j]; ++k)
            vsend[sdispls[j] + k] = val(t->g, t->rank, j * stride + k);
        for (int k = 0; k < rcounts[j]; ++k)
            vwant[rdispls[j] + k] = val(1 - t->g, j, t->rank * stride + k);
    }
    MPI_Ialltoallv(vsend, scounts, sdispls, ITEM, vrecv, rcounts, rdispls, ITEM, t->comm,
                   next_request(b));
    expect(b, "MPI_Ialltoallv", vrecv, vwant, rtotal);

    /* Alltoallw: sent as 2 pcount items, received as pcount pairs, with
     * byte displacements. */
    int *wscounts = batch_ints(b, m), *wsdispls = batch_ints(b, m);
    int *wrcounts = batch_ints(b, m), *wrdispls = batch_ints(b, m);
    MPI_Datatype* types = keep(b, mtest_malloc(sizeof(MPI_Datatype) * 2 * (size_t)m));
    for (int j = 0; j < m; ++j) {
        wscounts[j] = 2 * pcount(t->g, t->rank, j);
        wrcounts[j] = 2 * pcount(1 - t->g, j, t->rank);
    }
    const int wstotal = reverse_layout(m, wscounts, wsdispls);
    const int wrtotal = reverse_layout(m, wrcounts, wrdispls);
    item *wsend = batch_items(b, wstotal), *wrecv = batch_items(b, wrtotal),
         *wwant = batch_items(b, wrtotal);
    for (int j = 0; j < m; ++j) {
        for (int k = 0; k < wscounts[j]; ++k)
            wsend[wsdispls[j] + k] = val(t->g, t->rank, j * stride + k);
        for (int k = 0; k < wrcounts[j]; ++k)
            wwant[wrdispls[j] + k] = val(1 - t->g, j, t->rank * stride + k);
        wsdispls[j] *= (int)sizeof(item);
        wrdispls[j] *= (int)sizeof(item);
        wrcounts[j] /= 2;
        types[j] = ITEM;
        types[m + j] = g_pair;
    }
    MPI_Ialltoallw(wsend, wscounts, wsdispls, types, wrecv, wrcounts, wrdispls, types + m, t->comm,
                   next_request(b));
    expect(b, "MPI_Ialltoallw", wrecv, wwant, wrtotal);
}

static void start_allreduces(Batch* b) {
    const Inter* t = b->t;
    const int n = g_n;
    item *send = batch_items(b, n), *recv = batch_items(b, n), *want = batch_items(b, n);
    for (int k = 0; k < n; ++k) send[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, 0, n, want);
    MPI_Iallreduce(send, recv, n, ITEM, MPI_SUM, t->comm, next_request(b));
    expect(b, "MPI_Iallreduce (MPI_SUM)", recv, want, n);

    item *psend = batch_items(b, 2 * n), *precv = batch_items(b, 2 * n),
         *pwant = batch_items(b, 2 * n);
    for (int k = 0; k < n; ++k) affine_item(t->g, t->rank, k, &psend[2 * k]);
    composition(1 - t->g, t->rsize, n, pwant);
    MPI_Iallreduce(psend, precv, n, g_pair, g_affine, t->comm, next_request(b));
    expect(b, "MPI_Iallreduce (non-commutative)", precv, pwant, 2 * n);
}

static void start_reduce_scatters(Batch* b) {
    const Inter* t = b->t;
    /* Both groups' counts add up to the same total, in uneven blocks (some
     * empty). */
    const int unit = g_n / 2 + 1, total = 8 * unit;
    int* counts = batch_ints(b, t->size);
    int used = 0, offset = 0;
    for (int i = 0; i < t->size - 1; ++i) used += counts[i] = (i % 3) * unit;
    counts[t->size - 1] = total - used;
    for (int i = 0; i < t->rank; ++i) offset += counts[i];
    const int mine = counts[t->rank];
    item *send = batch_items(b, total), *recv = batch_items(b, mine), *want = batch_items(b, mine);
    for (int k = 0; k < total; ++k) send[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, offset, mine, want);
    MPI_Ireduce_scatter(send, recv, counts, ITEM, MPI_SUM, t->comm, next_request(b));
    expect(b, "MPI_Ireduce_scatter", recv, want, mine);

    /* rsize * n items for each local rank. */
    const int block = t->rsize * g_n;
    item *bsend = batch_items(b, t->size * block), *brecv = batch_items(b, block),
         *bwant = batch_items(b, block);
    for (int k = 0; k < t->size * block; ++k) bsend[k] = val(t->g, t->rank, k);
    sums(1 - t->g, t->rsize, t->rank * block, block, bwant);
    MPI_Ireduce_scatter_block(bsend, brecv, block, ITEM, MPI_SUM, t->comm, next_request(b));
    expect(b, "MPI_Ireduce_scatter_block", brecv, bwant, block);
}

/* Completes the batch's requests, last started first, `how` choosing the
 * calls; then checks and frees everything. */
static int finish_batch(Batch* b, int how) {
    int errs = 0;
    MPI_Request reversed[kMaxRequests];
    for (int i = 0; i < b->started; ++i) reversed[i] = b->requests[b->started - 1 - i];
    if (how == 0) {
        for (int i = 0; i < b->started; ++i) MPI_Wait(&reversed[i], MPI_STATUS_IGNORE);
    } else if (how == 1) {
        MPI_Waitall(b->started, reversed, MPI_STATUSES_IGNORE);
    } else {
        int done = 0;
        while (!done) MPI_Testall(b->started, reversed, &done, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < b->started; ++i)
        errs += MT_CHECK(reversed[i] == MPI_REQUEST_NULL, "%s: request %d left active", b->t->name,
                         b->started - 1 - i);
    for (int i = 0; i < b->nchecks; ++i)
        errs += same(b->t, b->checks[i].what, b->root, b->checks[i].got, b->checks[i].want,
                     b->checks[i].n);
    for (int i = 0; i < b->nowned; ++i) free(b->owned[i]);
    return errs;
}

/* One batch per root: every process of either group in turn. */
static int batches(const Inter* t) {
    int errs = 0, number = 0;
    for (int rg = 0; rg < 2; ++rg) {
        const int members = rg == t->g ? t->size : t->rsize;
        for (int r = 0; r < members; ++r, ++number) {
            Batch b;
            memset(&b, 0, sizeof b);
            b.t = t;
            b.root = r;
            if (rg == t->g) b.root = t->rank == r ? MPI_ROOT : MPI_PROC_NULL;
            MPI_Ibarrier(t->comm, next_request(&b));
#ifndef SI_MPI
            /* MPICH 4.0.2's MPI_Ibcast on an intercommunicator delivers
             * wrong data when the root is not rank 0 of its group (its
             * MPI_Bcast is right). */
            if (r == 0)
#endif
                start_bcast(&b, rg, r);
            start_gathers(&b);
            start_scatters(&b, rg, r);
            start_reduces(&b);
            start_allgathers(&b);
            start_alltoalls(&b);
            start_allreduces(&b);
            start_reduce_scatters(&b);
            errs += finish_batch(&b, number % 3);
        }
    }
    return errs;
}

/* A nonblocking collective on a duplicate stays apart from a blocking one
 * on the original started while it runs. */
static int beside_blocking(const Inter* t) {
    int errs = 0;
    MPI_Comm dup;
    MPI_Comm_dup(t->comm, &dup);
    item mine = t->g + 1, nonblocking = 0, blocking = 0, ten = 10 * (t->g + 1);
    MPI_Request request;
    MPI_Iallreduce(&ten, &nonblocking, 1, ITEM, MPI_SUM, dup, &request);
    MPI_Allreduce(&mine, &blocking, 1, ITEM, MPI_SUM, t->comm);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_EQ(blocking, (item)(2 - t->g) * t->rsize);
    errs += MT_EQ(nonblocking, (item)10 * (2 - t->g) * t->rsize);
    MPI_Comm_free(&dup);
    return errs;
}

static int names_call(int rc, const char* call) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return MT_CHECK(strstr(text, call) != NULL, "the error does not name %s: %s", call, text);
}

static int errors(const Inter* t) {
    int errs = 0;
    item a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    int rc = MPI_Iscan(a, b, 1, ITEM, MPI_SUM, t->comm, &request);
    errs += MT_CLASS(rc, MPI_ERR_COMM);
    errs += names_call(rc, "MPI_Iscan");
    rc = MPI_Iexscan(a, b, 1, ITEM, MPI_SUM, t->comm, &request);
    errs += MT_CLASS(rc, MPI_ERR_COMM);
    errs += names_call(rc, "MPI_Iexscan");
#ifdef SI_MPI
    /* MPICH 4.0 checks fewer of these. */
    rc = MPI_Iallreduce(MPI_IN_PLACE, b, 1, ITEM, MPI_SUM, t->comm, &request);
    errs += MT_CLASS(rc, MPI_ERR_BUFFER);
    errs += names_call(rc, "MPI_Iallreduce");
    errs += MT_CLASS(MPI_Iallgather(MPI_IN_PLACE, 1, ITEM, b, 1, ITEM, t->comm, &request),
                     MPI_ERR_BUFFER);
    errs += MT_CLASS(MPI_Ialltoall(MPI_IN_PLACE, 1, ITEM, b, 1, ITEM, t->comm, &request),
                     MPI_ERR_BUFFER);
    errs += MT_CLASS(MPI_Ibcast(a, 1, ITEM, t->rsize + 1000, t->comm, &request), MPI_ERR_ROOT);
    const int root = t->g == 0 ? (t->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (root != MPI_PROC_NULL)
        errs += MT_CLASS(
            MPI_Igather(root == MPI_ROOT ? a : MPI_IN_PLACE, 1, ITEM,
                        root == MPI_ROOT ? MPI_IN_PLACE : b, 1, ITEM, root, t->comm, &request),
            MPI_ERR_BUFFER);
#endif
    errs += MT_CHECK(request == MPI_REQUEST_NULL, "a refused call set its request");
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    inter_init(&argc, &argv);
    int errs = 0;

    for (int kind = 0; kind < 3; ++kind) {
        Inter t;
        make_inter(kind, &t);
        errs += batches(&t);
        errs += beside_blocking(&t);
        errs += errors(&t);
        MPI_Barrier(t.comm);
        MPI_Comm_free(&t.comm);
    }
    MPI_Op_free(&g_affine);
    MPI_Type_free(&g_pair);
    return mtest_finish(errs);
}
