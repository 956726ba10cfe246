/*
 * MPI_Sendrecv. Its point is that the send and the receive progress together:
 * a ring shift where every rank sends a rendezvous-sized message to the
 * right while receiving from the left must not deadlock, which a runtime
 * that runs the send to completion before posting the receive would.
 * Also: each rank sending a different size (the status tells the receiver
 * how much came), wildcards in the receive half, the same peer for both
 * halves (pairwise exchange), and self as the peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kSizes[] = {0, 1, 16384, 16385, 32768, 32769, 1 << 20, 4 << 20};
enum { kMax = 4 << 20, kTag = 17 };

static int g_rank, g_size;
static unsigned char *g_sbuf, *g_rbuf;

static int check(const char* what, const MPI_Status* status, int src, int tag, int bytes,
                 unsigned seed) {
    int errs = 0, count = -1;
    MPI_Get_count(status, MPI_BYTE, &count);
    errs += MT_CHECK(status->MPI_SOURCE == src && status->MPI_TAG == tag && count == bytes,
                     "%s: status (source %d, tag %d, count %d), expected (%d, %d, %d)", what,
                     status->MPI_SOURCE, status->MPI_TAG, count, src, tag, bytes);
    errs += MT_VERIFY(what, g_rbuf, (size_t)bytes, seed);
    return errs;
}

/* Everyone sends `bytes` to the rank `shift` places away and receives from
 * the rank `shift` places back, at the same time. */
static int shift(int bytes, int shift_by, int wildcard) {
    const int dst = (g_rank + shift_by + g_size) % g_size;
    const int src = (g_rank - shift_by + g_size) % g_size;
    char what[96];
    snprintf(what, sizeof what, "shift by %d, %d bytes%s", shift_by, bytes,
             wildcard ? ", wildcard receive" : "");
    MPI_Status status;
    mtest_fill(g_sbuf, (size_t)bytes, (unsigned)(g_rank * 31 + bytes));
    MPI_Sendrecv(g_sbuf, bytes, MPI_BYTE, dst, kTag, g_rbuf, kMax, MPI_BYTE,
                 wildcard ? MPI_ANY_SOURCE : src, wildcard ? MPI_ANY_TAG : kTag, MPI_COMM_WORLD,
                 &status);
    return check(what, &status, src, kTag, bytes, (unsigned)(src * 31 + bytes));
}

/* Every rank sends a different amount (rank 0 a small message, the others
 * larger ones); the receiver learns the size from the status. */
static int uneven(void) {
    const int dst = (g_rank + 1) % g_size, src = (g_rank + g_size - 1) % g_size;
    const int mine = g_rank == 0 ? 10 : 20000 * g_rank + 1,
              theirs = src == 0 ? 10 : 20000 * src + 1;
    MPI_Status status;
    mtest_fill(g_sbuf, (size_t)mine, 555 + (unsigned)g_rank);
    MPI_Sendrecv(g_sbuf, mine, MPI_BYTE, dst, 3, g_rbuf, kMax, MPI_BYTE, src, 3, MPI_COMM_WORLD,
                 &status);
    return check("uneven sizes", &status, src, 3, theirs, 555 + (unsigned)src);
}

/* Pairwise exchange: ranks 2k and 2k+1 swap data with one call each; an odd
 * rank out exchanges with itself. Different send and receive tags. */
static int exchange(int bytes) {
    int peer = g_rank ^ 1;
    if (peer >= g_size) peer = g_rank;
    MPI_Status status;
    mtest_fill(g_sbuf, (size_t)bytes, (unsigned)(g_rank + 7 * bytes));
    MPI_Sendrecv(g_sbuf, bytes, MPI_BYTE, peer, 100 + g_rank, g_rbuf, bytes, MPI_BYTE, peer,
                 100 + peer, MPI_COMM_WORLD, &status);
    return check("pairwise exchange", &status, peer, 100 + peer, bytes,
                 (unsigned)(peer + 7 * bytes));
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_sbuf = mtest_malloc(kMax);
    g_rbuf = mtest_malloc(kMax);

    for (size_t k = 0; k < sizeof kSizes / sizeof kSizes[0]; ++k) {
        errs += shift(kSizes[k], 1, 0);
        errs += shift(kSizes[k], -1, 0);
        errs += shift(kSizes[k], 0, 0); /* to self */
        errs += exchange(kSizes[k]);
    }
    /* Wildcard receives: only one sender targets each rank in a shift, so
     * the match is still unique. */
    errs += shift(100, 1, 1);
    errs += shift(100000, 1, 1);
    errs += uneven();

    free(g_sbuf);
    free(g_rbuf);
    return mtest_finish(errs);
}
