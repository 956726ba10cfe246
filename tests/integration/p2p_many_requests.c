/*
 * Hundreds of outstanding requests: about 500 receives and 500 sends per rank,
 * spread over all pairs (self included), mostly small with every 25th message
 * above the eager limit, completed in one array of mixed send and receive
 * requests by each of MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Testall and
 * MPI_Testany. This is what fills a runtime's request pool, its matching
 * queues and the transport's send slots all at once.
 *
 * Also checked: a receive cannot complete before anything was sent (Testall
 * and Testany say "not yet"), completed requests become MPI_REQUEST_NULL, and
 * the all-null cases (index/outcount MPI_UNDEFINED, flag true).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kTarget = 500, kBigEvery = 25, kBig = 32768 };

typedef enum { WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY } Method;
static const char* kMethodNames[] = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testall",
                                     "MPI_Testany"};

static int g_rank, g_size, g_per_peer;

static int msg_bytes(int j) {
    return j % kBigEvery == kBigEvery - 1 ? kBig : 4 + j % 61;
}
static unsigned msg_seed(int src, int dst, int j) {
    return (unsigned)(src * 65537 + dst * 257 + j * 3 + 11);
}

/* Request array layout: slot 2k is a receive, 2k+1 a send; k = peer * per_peer + j. */
static int run(Method method) {
    const int pairs = g_size * g_per_peer, n = 2 * pairs;
    const char* name = kMethodNames[method];
    int errs = 0;
    MPI_Request* req = mtest_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status* status = mtest_malloc(sizeof(MPI_Status) * (size_t)n);
    int* indices = mtest_malloc(sizeof(int) * (size_t)n);
    char* done = calloc((size_t)n, 1);
    unsigned char** rbuf = mtest_malloc(sizeof(void*) * (size_t)pairs);
    unsigned char** sbuf = mtest_malloc(sizeof(void*) * (size_t)pairs);

    for (int k = 0; k < pairs; ++k) {
        int peer = k / g_per_peer, j = k % g_per_peer;
        rbuf[k] = mtest_malloc((size_t)msg_bytes(j));
        MPI_Irecv(rbuf[k], msg_bytes(j), MPI_BYTE, peer, j, MPI_COMM_WORLD, &req[2 * k]);
        req[2 * k + 1] = MPI_REQUEST_NULL;
    }
    /* Nothing has been sent yet, so no receive can be complete. */
    int flag = 1, index = -1;
    MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE);
    errs += MT_CHECK(!flag, "%s: MPI_Testall says complete before any send", name);
    MPI_Testany(n, req, &index, &flag, MPI_STATUS_IGNORE);
    errs += MT_CHECK(!flag, "%s: MPI_Testany completed request %d before any send", name, index);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Send in the reverse order of the receives, so matching walks the queues. */
    for (int k = pairs - 1; k >= 0; --k) {
        int peer = k / g_per_peer, j = k % g_per_peer;
        sbuf[k] = mtest_malloc((size_t)msg_bytes(j));
        mtest_fill(sbuf[k], (size_t)msg_bytes(j), msg_seed(g_rank, peer, j));
        MPI_Isend(sbuf[k], msg_bytes(j), MPI_BYTE, peer, j, MPI_COMM_WORLD, &req[2 * k + 1]);
    }

    int completed = 0, outcount;
    switch (method) {
        case WAITALL:
            MPI_Waitall(n, req, status);
            memset(done, 1, (size_t)n);
            completed = n;
            break;
        case TESTALL:
            for (flag = 0; !flag;) MPI_Testall(n, req, &flag, status);
            memset(done, 1, (size_t)n);
            completed = n;
            break;
        case WAITANY:
        case TESTANY:
            for (;;) {
                MPI_Status one;
                if (method == WAITANY) {
                    MPI_Waitany(n, req, &index, &one);
                } else {
                    MPI_Testany(n, req, &index, &flag, &one);
                    if (!flag) continue;
                }
                if (index == MPI_UNDEFINED) break;
                if (index < 0 || index >= n || done[index]) {
                    errs += MT_CHECK(0, "%s: bad or repeated index %d", name, index);
                    break;
                }
                errs += MT_CHECK(req[index] == MPI_REQUEST_NULL,
                                 "%s: request %d not set to MPI_REQUEST_NULL", name, index);
                done[index] = 1;
                status[index] = one;
                ++completed;
            }
            break;
        case WAITSOME:
            for (;;) {
                MPI_Status* some = mtest_malloc(sizeof(MPI_Status) * (size_t)n);
                MPI_Waitsome(n, req, &outcount, indices, some);
                if (outcount == MPI_UNDEFINED) {
                    free(some);
                    break;
                }
                errs += MT_CHECK(outcount >= 1, "%s: outcount %d", name, outcount);
                for (int i = 0; i < outcount; ++i) {
                    int at = indices[i];
                    if (at < 0 || at >= n || done[at]) {
                        errs += MT_CHECK(0, "%s: bad or repeated index %d", name, at);
                        continue;
                    }
                    errs += MT_CHECK(req[at] == MPI_REQUEST_NULL,
                                     "%s: request %d not set to MPI_REQUEST_NULL", name, at);
                    done[at] = 1;
                    status[at] = some[i];
                    ++completed;
                }
                free(some);
            }
            break;
    }
    errs += MT_CHECK(completed == n, "%s: %d of %d requests completed", name, completed, n);

    for (int k = 0; k < pairs && completed == n; ++k) {
        int peer = k / g_per_peer, j = k % g_per_peer, count = -1;
        const MPI_Status* st = &status[2 * k];
        MPI_Get_count(st, MPI_BYTE, &count);
        errs += MT_CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == j && count == msg_bytes(j),
                         "%s: receive %d: source %d tag %d count %d, expected %d %d %d", name, k,
                         st->MPI_SOURCE, st->MPI_TAG, count, peer, j, msg_bytes(j));
        char what[64];
        snprintf(what, sizeof what, "%s: message %d from %d", name, j, peer);
        errs += MT_VERIFY(what, rbuf[k], (size_t)msg_bytes(j), msg_seed(peer, g_rank, j));
    }
    for (int i = 0; i < n; ++i)
        errs += MT_CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d still active", name, i);

    for (int k = 0; k < pairs; ++k) {
        free(rbuf[k]);
        free(sbuf[k]);
    }
    free(rbuf);
    free(sbuf);
    free(req);
    free(status);
    free(indices);
    free(done);
    return errs;
}

/* Completion calls on arrays with nothing active return at once. */
static int all_null(void) {
    int errs = 0, index = 0, flag = 0, outcount = 0, indices[3];
    MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status status[3];
    MPI_Waitall(3, req, status);
    MPI_Waitany(3, req, &index, &status[0]);
    errs += MT_EQ(index, MPI_UNDEFINED);
    MPI_Testany(3, req, &index, &flag, &status[0]);
    errs += MT_EQ(flag, 1);
    errs += MT_EQ(index, MPI_UNDEFINED);
    MPI_Waitsome(3, req, &outcount, indices, status);
    errs += MT_EQ(outcount, MPI_UNDEFINED);
    MPI_Testall(3, req, &flag, status);
    errs += MT_EQ(flag, 1);
    MPI_Waitany(0, req, &index, &status[0]);
    errs += MT_EQ(index, MPI_UNDEFINED);
    MPI_Waitall(0, req, status);
    /* Waiting on MPI_REQUEST_NULL gives an empty status. */
    int count = -1;
    MPI_Wait(&req[0], &status[0]);
    MPI_Get_count(&status[0], MPI_BYTE, &count);
    errs += MT_EQ(status[0].MPI_SOURCE, MPI_ANY_SOURCE);
    errs += MT_EQ(status[0].MPI_TAG, MPI_ANY_TAG);
    errs += MT_EQ(count, 0);
    return errs;
}

/* MPI_Request_free on an active send: the send still completes (the receiver
 * sees the data), the handle becomes MPI_REQUEST_NULL at once. */
static int free_active_send(void) {
    enum { kBytes = 50000 };
    int errs = 0;
    int dst = (g_rank + 1) % g_size, src = (g_rank + g_size - 1) % g_size;
    unsigned char* sbuf = mtest_malloc(kBytes);
    unsigned char* rbuf = mtest_malloc(kBytes);
    MPI_Request sreq, rreq;
    mtest_fill(sbuf, kBytes, 1234 + (unsigned)g_rank);
    MPI_Irecv(rbuf, kBytes, MPI_BYTE, src, 99, MPI_COMM_WORLD, &rreq);
    MPI_Isend(sbuf, kBytes, MPI_BYTE, dst, 99, MPI_COMM_WORLD, &sreq);
    MPI_Request_free(&sreq);
    errs += MT_CHECK(sreq == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
    MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    errs += MT_VERIFY("after MPI_Request_free of the send", rbuf, kBytes, 1234 + (unsigned)src);
    /* Our own send is complete once its receiver has the data. */
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_per_peer = (kTarget + g_size - 1) / g_size;

    for (Method method = WAITALL; method <= TESTANY; ++method) {
        errs += run(method);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    errs += all_null();
    errs += free_active_send();
    return mtest_finish(errs);
}
