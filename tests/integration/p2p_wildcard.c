/*
 * MPI_ANY_SOURCE and MPI_ANY_TAG. A wildcard receive cannot be matched with
 * a per-peer queue alone, so runtimes tend to get it wrong in the corners:
 * a rendezvous message matched by a wildcard, a wildcard posted before the
 * message arrives versus after, and the rule that a message matches the
 * EARLIEST posted receive it fits, whether that one is a wildcard or not.
 * Every receive checks MPI_SOURCE, MPI_TAG and MPI_Get_count from the status
 * against what the sender encoded in the payload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kTags = 4, kTagBase = 100, kMaxBytes = 40000 };

static int g_rank, g_size;

/* Message (src -> dst, tag index t): a zero-byte, an eager and a rendezvous size. */
static int msg_bytes(int src, int t) {
    static const int sizes[] = {0, 24, 40000, 16385};
    return sizes[(src + t) % 4];
}
static unsigned msg_seed(int src, int dst, int t) {
    return (unsigned)(src * 7919 + dst * 131 + t * 17 + 3);
}

/* Every rank sends kTags messages to every rank (itself included); each rank
 * receives them all with MPI_ANY_SOURCE/MPI_ANY_TAG and identifies each from
 * its status. `prepost` decides whether the wildcard receives are posted
 * before any message is sent or after all have arrived at least partially. */
static int all_to_all_wildcard(int prepost) {
    const int n = g_size * kTags;
    int errs = 0;
    unsigned char* sendbuf = mtest_malloc((size_t)n * kMaxBytes);
    unsigned char* recvbuf = mtest_malloc((size_t)n * kMaxBytes);
    MPI_Request* sreq = mtest_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Request* rreq = mtest_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status* status = mtest_malloc(sizeof(MPI_Status) * (size_t)n);
    char* seen = calloc((size_t)n, 1);

    if (prepost) {
        for (int i = 0; i < n; ++i)
            MPI_Irecv(recvbuf + (size_t)i * kMaxBytes, kMaxBytes, MPI_BYTE, MPI_ANY_SOURCE,
                      MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[i]);
        MPI_Barrier(MPI_COMM_WORLD); /* every wildcard is posted before any send */
    }
    for (int dst = 0; dst < g_size; ++dst)
        for (int t = 0; t < kTags; ++t) {
            int i = dst * kTags + t;
            unsigned char* buf = sendbuf + (size_t)i * kMaxBytes;
            mtest_fill(buf, (size_t)msg_bytes(g_rank, t), msg_seed(g_rank, dst, t));
            MPI_Isend(buf, msg_bytes(g_rank, t), MPI_BYTE, dst, kTagBase + t, MPI_COMM_WORLD,
                      &sreq[i]);
        }
    if (!prepost) {
        MPI_Barrier(MPI_COMM_WORLD); /* sends are out before the receives are posted */
        for (int i = 0; i < n; ++i)
            MPI_Irecv(recvbuf + (size_t)i * kMaxBytes, kMaxBytes, MPI_BYTE, MPI_ANY_SOURCE,
                      MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[i]);
    }
    MPI_Waitall(n, rreq, status);
    MPI_Waitall(n, sreq, MPI_STATUSES_IGNORE);
    /* A rank that is done must not send the next round's messages while a
     * slower rank still has wildcard receives of this round posted. */
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < n; ++i) {
        int src = status[i].MPI_SOURCE, t = status[i].MPI_TAG - kTagBase, count = -1;
        if (src < 0 || src >= g_size || t < 0 || t >= kTags) {
            errs += MT_CHECK(0, "prepost=%d: receive %d has source %d, tag %d", prepost, i, src,
                             status[i].MPI_TAG);
            continue;
        }
        errs += MT_CHECK(!seen[src * kTags + t], "prepost=%d: message (%d, tag %d) twice", prepost,
                         src, t);
        seen[src * kTags + t] = 1;
        MPI_Get_count(&status[i], MPI_BYTE, &count);
        errs += MT_EQ(count, msg_bytes(src, t));
        char what[64];
        snprintf(what, sizeof what, "prepost=%d, from %d tag %d", prepost, src, t);
        errs += MT_VERIFY(what, recvbuf + (size_t)i * kMaxBytes, (size_t)msg_bytes(src, t),
                          msg_seed(src, g_rank, t));
    }
    free(sendbuf);
    free(recvbuf);
    free(sreq);
    free(rreq);
    free(status);
    free(seen);
    return errs;
}

/* Receives that name one field and leave the other wild must skip messages
 * that do not fit without disturbing their order. Every rank sends tag A then
 * tag B to `root`; root takes all B messages with MPI_ANY_SOURCE first, then
 * from each source (in descending order) with MPI_ANY_TAG, which must yield
 * that source's A message: the only one left. */
static int half_wildcards(int root) {
    enum { kTagA = 11, kTagB = 12, kBytes = 20000 };
    int errs = 0;
    unsigned char* buf = mtest_malloc(2 * kBytes);
    MPI_Request req[2];
    mtest_fill(buf, kBytes, msg_seed(g_rank, root, kTagA));
    mtest_fill(buf + kBytes, 8, msg_seed(g_rank, root, kTagB));
    MPI_Isend(buf, kBytes, MPI_BYTE, root, kTagA, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf + kBytes, 8, MPI_BYTE, root, kTagB, MPI_COMM_WORLD, &req[1]);
    if (g_rank == root) {
        unsigned char* rbuf = mtest_malloc(kBytes);
        char* seen = calloc((size_t)g_size, 1);
        MPI_Status status;
        int count;
        for (int i = 0; i < g_size; ++i) {
            MPI_Recv(rbuf, kBytes, MPI_BYTE, MPI_ANY_SOURCE, kTagB, MPI_COMM_WORLD, &status);
            int src = status.MPI_SOURCE;
            errs += MT_EQ(status.MPI_TAG, kTagB);
            if (src < 0 || src >= g_size || seen[src]) {
                errs += MT_CHECK(0, "ANY_SOURCE receive %d: bad or repeated source %d", i, src);
                continue;
            }
            seen[src] = 1;
            MPI_Get_count(&status, MPI_BYTE, &count);
            errs += MT_EQ(count, 8);
            errs += MT_VERIFY("ANY_SOURCE, tag B", rbuf, 8, msg_seed(src, root, kTagB));
        }
        for (int src = g_size - 1; src >= 0; --src) {
            MPI_Recv(rbuf, kBytes, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            errs += MT_EQ(status.MPI_SOURCE, src);
            errs += MT_EQ(status.MPI_TAG, kTagA);
            MPI_Get_count(&status, MPI_BYTE, &count);
            errs += MT_EQ(count, kBytes);
            errs += MT_VERIFY("ANY_TAG, tag A", rbuf, kBytes, msg_seed(src, root, kTagA));
        }
        free(rbuf);
        free(seen);
    }
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    free(buf);
    return errs;
}

/* A message that fits several posted receives goes to the earliest posted
 * one, wildcard or not. Rank `from` sends "first" then "second" (same tag,
 * one eager, one rendezvous) to rank 0, which had posted two receives that
 * both fit the first message. */
static int earliest_posted_wins(int wildcard_first) {
    enum { kTag = 21, kBig = 70000 };
    const int from = g_size - 1;
    int errs = 0;
    if (g_rank == 0) {
        unsigned char* first = mtest_malloc(kBig);
        unsigned char* second = mtest_malloc(kBig);
        MPI_Request req[2];
        MPI_Status status[2];
        int src0 = wildcard_first ? MPI_ANY_SOURCE : from;
        int src1 = wildcard_first ? from : MPI_ANY_SOURCE;
        MPI_Irecv(first, kBig, MPI_BYTE, src0, wildcard_first ? MPI_ANY_TAG : kTag, MPI_COMM_WORLD,
                  &req[0]);
        MPI_Irecv(second, kBig, MPI_BYTE, src1, kTag, MPI_COMM_WORLD, &req[1]);
        if (from != 0) MPI_Send(NULL, 0, MPI_BYTE, from, 1, MPI_COMM_WORLD); /* both posted */
        if (from == 0) { /* one rank: send to self, nonblocking */
            MPI_Request s[2];
            unsigned char* a = mtest_malloc(kBig);
            unsigned char* b = mtest_malloc(kBig);
            mtest_fill(a, 8, 501);
            mtest_fill(b, kBig, 502);
            MPI_Isend(a, 8, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, &s[0]);
            MPI_Isend(b, kBig, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, &s[1]);
            MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
            MPI_Waitall(2, req, status);
            free(a);
            free(b);
        } else {
            MPI_Waitall(2, req, status);
        }
        int count;
        MPI_Get_count(&status[0], MPI_BYTE, &count);
        errs += MT_CHECK(count == 8,
                         "wildcard_first=%d: earliest posted receive got %d bytes, "
                         "expected the first message (8 bytes)",
                         wildcard_first, count);
        errs += MT_EQ(status[0].MPI_SOURCE, from);
        errs += MT_EQ(status[0].MPI_TAG, kTag);
        errs += MT_VERIFY("first message", first, 8, 501);
        MPI_Get_count(&status[1], MPI_BYTE, &count);
        errs += MT_EQ(count, kBig);
        errs += MT_EQ(status[1].MPI_SOURCE, from);
        errs += MT_VERIFY("second message", second, kBig, 502);
        free(first);
        free(second);
    } else if (g_rank == from) {
        unsigned char* buf = mtest_malloc(kBig);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mtest_fill(buf, 8, 501);
        MPI_Send(buf, 8, MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
        mtest_fill(buf, kBig, 502);
        MPI_Send(buf, kBig, MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
        free(buf);
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    errs += all_to_all_wildcard(1);
    errs += all_to_all_wildcard(0);
    for (int root = 0; root < g_size; ++root) {
        errs += half_wildcards(root);
    }
    errs += earliest_posted_wins(1);
    errs += earliest_posted_wins(0);
    return mtest_finish(errs);
}
