/*
 * MPI_Ibarrier and MPI_Ibcast.
 *
 *  1. An Ibarrier does not complete before the last rank has entered it:
 *     rank 0 enters 200 ms late, and every other rank's MPI_Test must keep
 *     saying "not yet" for the first 50 ms.
 *  2. Many collectives in flight at once on three communicators (world, a
 *     dup, a reversed split), mixed with a ring of point-to-point messages:
 *     Ibcasts from every root of eager and rendezvous sizes (1 MiB) and of a
 *     non-contiguous vector type, and Ibarriers, completed in reverse order,
 *     one by MPI_Test polling, the rest by MPI_Waitall. Non-root buffers
 *     start as garbage and must end equal to the root's.
 *  3. A broadcast progresses while its request is only tested: a root that
 *     starts a 1 MiB Ibcast and polls MPI_Test sees it complete.
 *  4. Iallgather and Ialltoall in flight together on two communicators:
 *     eager and rendezvous block sizes, MPI_IN_PLACE, a non-contiguous
 *     receive type; every block checked against its sender's pattern.
 *  5. Igather and Iscatter in flight together, eager and rendezvous blocks,
 *     MPI_IN_PLACE at the root.
 *  6. Argument errors: a bad root, a null request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

enum { kFill = 0xAB, kMaxOps = 64 };

/* Rank 0 enters late; a rank whose MPI_Test completes the barrier before
 * then fails. Checked on the host's clock (every rank of these tests shares
 * one host), not by a time limit: on a loaded machine a rank may leave the
 * MPI_Barrier before it tens of milliseconds after rank 0 did. */
static int barrier_waits_for_the_last_rank(void) {
    int errs = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) usleep(200 * 1000);
    double entered = MPI_Wtime(), done_at = 0;
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    if (rank != 0) {
        const double until = MPI_Wtime() + 0.05;
        int done = 0;
        while (!done && MPI_Wtime() < until) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) done_at = MPI_Wtime();
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(request == MPI_REQUEST_NULL, "MPI_Wait left the request active");
    MPI_Bcast(&entered, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    errs += MT_CHECK(done_at == 0 || done_at >= entered,
                     "rank %d left MPI_Ibarrier %.3f ms before rank 0 entered it", rank,
                     (entered - done_at) * 1e3);
    return errs;
}

struct Bcast {
    unsigned char* buf;
    size_t bytes;
    unsigned seed;
    int root;
    int is_root;
    char what[96];
};

static void start_bcast(struct Bcast* b, MPI_Comm comm, const char* name, int root, int count,
                        MPI_Datatype type, size_t bytes, unsigned seed, MPI_Request* request) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    b->buf = mtest_malloc(bytes + 16);
    b->bytes = bytes;
    b->seed = seed;
    b->root = root;
    b->is_root = rank == root;
    if (b->is_root)
        mtest_fill(b->buf, bytes, seed);
    else
        memset(b->buf, kFill, bytes);
    memset(b->buf + bytes, kFill, 16);
    snprintf(b->what, sizeof b->what, "Ibcast on %s, root %d, %zu bytes", name, root, bytes);
    MPI_Ibcast(b->buf, count, type, root, comm, request);
}

static int check_bcast(struct Bcast* b, MPI_Datatype vector) {
    int errs = 0;
    if (vector == MPI_DATATYPE_NULL) {
        errs += MT_VERIFY(b->what, b->buf, b->bytes, b->seed);
    } else {
        /* The vector type covers every other 4-byte int: the gaps keep kFill
         * at the non-roots. */
        unsigned char* expect = mtest_malloc(b->bytes);
        mtest_fill(expect, b->bytes, b->seed);
        for (size_t i = 0; i < b->bytes; ++i) {
            const int covered = (i / 4) % 2 == 0;
            const unsigned char want = (b->is_root || covered) ? expect[i] : kFill;
            if (b->buf[i] != want) {
                errs += MT_CHECK(0, "%s: byte %zu is %d, expected %d", b->what, i, b->buf[i], want);
                break;
            }
        }
        free(expect);
    }
    errs += MT_VERIFY_VALUE(b->what, b->buf + b->bytes, 16, kFill);
    free(b->buf);
    return errs;
}

static int many_in_flight(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, dup, reversed};
    const char* names[3] = {"world", "dup", "reversed"};
    /* 64 ints, every other one, resized to 512 bytes: item k covers the
     * even ints of bytes [512k, 512k + 512). */
    MPI_Datatype vector, every_other;
    MPI_Type_vector(64, 1, 2, MPI_INT, &vector);
    MPI_Type_create_resized(vector, 0, 512, &every_other);
    MPI_Type_free(&vector);
    MPI_Type_commit(&every_other);

    MPI_Request requests[kMaxOps];
    struct Bcast bcasts[kMaxOps];
    MPI_Datatype vector_of[kMaxOps];
    int is_bcast[kMaxOps];
    int n = 0;
    for (int c = 0; c < 3; ++c) {
        for (int root = 0; root < size && n + 4 <= kMaxOps; ++root) {
            const unsigned seed = (unsigned)(c * 100 + root * 7);
            start_bcast(&bcasts[n], comms[c], names[c], root, 1000, MPI_INT, 4000, seed,
                        &requests[n]);
            vector_of[n] = MPI_DATATYPE_NULL;
            is_bcast[n++] = 1;
            MPI_Ibarrier(comms[c], &requests[n]);
            is_bcast[n++] = 0;
            start_bcast(&bcasts[n], comms[c], names[c], root, 1 << 18, MPI_INT, 1 << 20,
                        seed + 1, &requests[n]);
            vector_of[n] = MPI_DATATYPE_NULL;
            is_bcast[n++] = 1;
            start_bcast(&bcasts[n], comms[c], names[c], root, 4, every_other, 4 * 512, seed + 2,
                        &requests[n]);
            vector_of[n] = every_other;
            is_bcast[n++] = 1;
        }
    }
    /* A ring of point-to-point messages through the collectives' traffic. */
    int token = rank, got = -1;
    MPI_Request ring[2];
    MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &ring[0]);
    MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &ring[1]);

    /* The last one by polling, the rest at once, in reverse. */
    int done = 0;
    while (!done) MPI_Test(&requests[n - 1], &done, MPI_STATUS_IGNORE);
    MPI_Request reversed_requests[kMaxOps];
    for (int i = 0; i < n - 1; ++i) reversed_requests[i] = requests[n - 2 - i];
    errs += MT_EQ(MPI_Waitall(n - 1, reversed_requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
    errs += MT_EQ(got, (rank + size - 1) % size);
    for (int i = 0; i < n; ++i)
        if (is_bcast[i]) errs += check_bcast(&bcasts[i], vector_of[i]);

    MPI_Type_free(&every_other);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&reversed);
    return errs;
}

static int progresses_under_test(void) {
    int errs = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct Bcast b;
    MPI_Request request;
    start_bcast(&b, MPI_COMM_WORLD, "world (tested)", 0, 1 << 18, MPI_INT, 1 << 20, 99, &request);
    int done = 0;
    const double until = MPI_Wtime() + 30;
    while (!done && MPI_Wtime() < until) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    errs += MT_CHECK(done, "a 1 MiB MPI_Ibcast did not complete in 30 s of MPI_Test");
    if (!done) MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += check_bcast(&b, MPI_DATATYPE_NULL);
    return errs;
}

/* Value i of the block rank `from` sends to rank `to` in operation `op`. */
static int value_of(int op, int from, int to, int i) { return op * 1000003 + from * 7919 + to * 31 + i; }

static int exchanges_in_flight(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    /* One int, then a gap of one: the receive type of op 4. */
    MPI_Datatype spread;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spread);
    MPI_Type_commit(&spread);
    enum { kOps = 6 };
    const int counts[kOps] = {16, 1 << 15, 16, 1 << 15, 100, 64};
    int* send[kOps];
    int* recv[kOps];
    MPI_Request requests[kOps];
    for (int op = 0; op < kOps; ++op) {
        const int count = counts[op];
        const size_t total = (size_t)count * (size_t)size;
        send[op] = mtest_malloc(total * sizeof(int));
        recv[op] = mtest_malloc(2 * total * sizeof(int));
        for (size_t i = 0; i < 2 * total; ++i) recv[op][i] = -1;
        for (int to = 0; to < size; ++to)
            for (int i = 0; i < count; ++i)
                /* Allgather ops (0, 1, 4) send the same block to everyone. */
                send[op][(size_t)to * count + i] =
                    value_of(op, rank, (op == 0 || op == 1 || op == 4) ? 0 : to, i);
    }
    MPI_Comm comm_of[kOps] = {MPI_COMM_WORLD, dup, MPI_COMM_WORLD, dup, dup, MPI_COMM_WORLD};
    MPI_Iallgather(send[0], counts[0], MPI_INT, recv[0], counts[0], MPI_INT, comm_of[0], &requests[0]);
    MPI_Iallgather(send[1], counts[1], MPI_INT, recv[1], counts[1], MPI_INT, comm_of[1], &requests[1]);
    MPI_Ialltoall(send[2], counts[2], MPI_INT, recv[2], counts[2], MPI_INT, comm_of[2], &requests[2]);
    MPI_Ialltoall(send[3], counts[3], MPI_INT, recv[3], counts[3], MPI_INT, comm_of[3], &requests[3]);
    MPI_Iallgather(send[4], counts[4], MPI_INT, recv[4], counts[4], spread, comm_of[4], &requests[4]);
    /* In place: this rank's own block already sits in recvbuf. */
    for (int to = 0; to < size; ++to)
        for (int i = 0; i < counts[5]; ++i)
            recv[5][(size_t)to * counts[5] + i] = value_of(5, rank, to, i);
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv[5], counts[5], MPI_INT, comm_of[5],
                  &requests[5]);
    errs += MT_EQ(MPI_Waitall(kOps, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int op = 0; op < kOps; ++op) {
        const int count = counts[op];
        const int stride = op == 4 ? 2 : 1;
        int bad = 0;
        for (int from = 0; from < size && !bad; ++from)
            for (int i = 0; i < count && !bad; ++i) {
                const int expected = value_of(op, from, (op == 0 || op == 1 || op == 4) ? 0 : rank, i);
                const int got = recv[op][((size_t)from * count + i) * stride];
                if (got != expected) {
                    errs += MT_CHECK(0, "op %d: item %d from rank %d is %d, expected %d", op, i,
                                     from, got, expected);
                    bad = 1;
                }
            }
        if (op == 4) errs += MT_CHECK(recv[4][1] == -1, "op 4 wrote into the gaps of its type");
        free(send[op]);
        free(recv[op]);
    }
    MPI_Type_free(&spread);
    MPI_Comm_free(&dup);
    return errs;
}

static int rooted_in_flight(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { kSmall = 100, kLarge = 1 << 16 };
    const int gather_root = size - 1, scatter_root = 0;
    int* mine = mtest_malloc(kLarge * sizeof(int));
    int* all_small = mtest_malloc((size_t)size * kSmall * sizeof(int));
    int* all_large = mtest_malloc((size_t)size * kLarge * sizeof(int));
    int* scattered = mtest_malloc(kLarge * sizeof(int));
    for (int i = 0; i < kLarge; ++i) mine[i] = value_of(7, rank, 0, i);
    for (int i = 0; i < size * kSmall; ++i) all_small[i] = -1;
    /* In place at the gather's root: its block is already in recvbuf. */
    if (rank == gather_root)
        for (int i = 0; i < kSmall; ++i) all_small[rank * kSmall + i] = value_of(7, rank, 0, i);
    if (rank == scatter_root)
        for (int to = 0; to < size; ++to)
            for (int i = 0; i < kLarge; ++i) all_large[(size_t)to * kLarge + i] = value_of(8, 0, to, i);
    for (int i = 0; i < kLarge; ++i) scattered[i] = -1;
    MPI_Request requests[2];
    MPI_Igather(rank == gather_root ? MPI_IN_PLACE : mine, kSmall, MPI_INT, all_small, kSmall,
                MPI_INT, gather_root, MPI_COMM_WORLD, &requests[0]);
    MPI_Iscatter(all_large, kLarge, MPI_INT, rank == scatter_root ? MPI_IN_PLACE : scattered,
                 kLarge, MPI_INT, scatter_root, MPI_COMM_WORLD, &requests[1]);
    errs += MT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    if (rank == gather_root)
        for (int from = 0; from < size; ++from)
            for (int i = 0; i < kSmall; ++i)
                if (all_small[from * kSmall + i] != value_of(7, from, 0, i)) {
                    errs += MT_CHECK(0, "Igather: item %d from rank %d is %d", i, from,
                                     all_small[from * kSmall + i]);
                    from = size;
                    break;
                }
    if (rank != scatter_root)
        for (int i = 0; i < kLarge; ++i)
            if (scattered[i] != value_of(8, 0, rank, i)) {
                errs += MT_CHECK(0, "Iscatter: item %d is %d", i, scattered[i]);
                break;
            }
    free(mine);
    free(all_small);
    free(all_large);
    free(scattered);
    return errs;
}

static int argument_errors(void) {
    int errs = 0, size, value = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request request = MPI_REQUEST_NULL;
    errs += MT_CLASS(MPI_Ibcast(&value, 1, MPI_INT, size, MPI_COMM_WORLD, &request), MPI_ERR_ROOT);
    errs += MT_CLASS(MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Ibarrier(MPI_COMM_NULL, &request), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    errs += barrier_waits_for_the_last_rank();
    errs += many_in_flight();
    errs += progresses_under_test();
    errs += exchanges_in_flight();
    errs += rooted_in_flight();
    errs += argument_errors();
    return mtest_finish(errs);
}
