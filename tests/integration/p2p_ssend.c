/*
 * Synchronous sends. MPI_Ssend / MPI_Issend complete only once the matching
 * receive has started (MPI 3.1, section 3.4), whatever the size: a runtime
 * that sends small messages eagerly must not complete a synchronous one on
 * the eager path, and a zero-byte synchronous send still synchronises.
 *
 * Each rank Issends to its right neighbour, which posts its receive only
 * when told to on another tag, after the sender has watched MPI_Test say
 * "not complete" for a while. In between, the receiver MPI_Probes the
 * message (so it has certainly arrived): a probe is not a receive, so the
 * send must still be incomplete. Then blocking MPI_Ssend, with the receive
 * posted first and with the message arriving first, and MPI_Ssend to self
 * into a posted receive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kData = 1, kGo1 = 2, kProbed = 3, kGo2 = 4, kPolls = 20 };
static const int kSizes[] = {0, 8, 16384, 16385, 32768, 32769, 1 << 20};

static int g_rank, g_size;

/* Polls the synchronous send for about kPolls ms; it must stay incomplete. */
static void expect_incomplete(MPI_Request* req, const char* when, int bytes) {
    int flag = 0;
    for (int i = 0; i < kPolls && !flag; ++i) {
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (!flag) mtest_sleep_ms(1);
    }
    /* Fatal rather than counted: the protocol below would then wait forever. */
    if (flag) MT_FATAL("MPI_Issend of %d bytes completed %s", bytes, when);
}

static int issend_with_handshake(int bytes) {
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int errs = 0, count, token = 0;
    unsigned char* sbuf = mtest_malloc((size_t)bytes);
    unsigned char* rbuf = mtest_malloc((size_t)bytes);
    MPI_Request sreq, tokens[3];
    MPI_Status status;
    mtest_fill(sbuf, (size_t)bytes, (unsigned)(bytes + g_rank));

    MPI_Issend(sbuf, bytes, MPI_BYTE, right, kData, MPI_COMM_WORLD, &sreq);
    expect_incomplete(&sreq, "before the receiver did anything", bytes);
    MPI_Isend(&token, 0, MPI_INT, right, kGo1, MPI_COMM_WORLD, &tokens[0]);

    /* As receiver: see the message arrive, without receiving it. */
    MPI_Recv(NULL, 0, MPI_INT, left, kGo1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Probe(left, kData, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, bytes);
    MPI_Isend(&token, 0, MPI_INT, left, kProbed, MPI_COMM_WORLD, &tokens[1]);

    /* As sender: the receiver has probed our message; still not received. */
    MPI_Recv(NULL, 0, MPI_INT, right, kProbed, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_incomplete(&sreq, "after the receiver only probed it", bytes);
    MPI_Isend(&token, 0, MPI_INT, right, kGo2, MPI_COMM_WORLD, &tokens[2]);

    /* As receiver: now receive; that lets our left neighbour's send complete. */
    MPI_Recv(NULL, 0, MPI_INT, left, kGo2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(rbuf, bytes, MPI_BYTE, left, kData, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, bytes);
    errs += MT_VERIFY("Issend data", rbuf, (size_t)bytes, (unsigned)(bytes + left));

    MPI_Wait(&sreq, MPI_STATUS_IGNORE); /* our right neighbour has received */
    MPI_Waitall(3, tokens, MPI_STATUSES_IGNORE);
    free(sbuf);
    free(rbuf);
    return errs;
}

/* Blocking MPI_Ssend from each rank to the next in turn, the receive posted
 * first (Irecv + token) or the message first (receiver Probes before
 * receiving; the Ssend is blocked meanwhile). */
static int blocking_ssend(int bytes, int recv_first) {
    int errs = 0;
    unsigned char* buf = mtest_malloc((size_t)bytes);
    for (int s = 0; s < g_size; ++s) {
        int d = (s + 1) % g_size;
        if (s == d) break; /* one rank: see ssend_to_self */
        if (g_rank == s) {
            mtest_fill(buf, (size_t)bytes, (unsigned)(bytes * 3 + s));
            if (recv_first) MPI_Recv(NULL, 0, MPI_INT, d, kGo1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ssend(buf, bytes, MPI_BYTE, d, kData, MPI_COMM_WORLD);
        } else if (g_rank == d) {
            MPI_Status status;
            MPI_Request req;
            if (recv_first) {
                MPI_Irecv(buf, bytes, MPI_BYTE, s, kData, MPI_COMM_WORLD, &req);
                MPI_Send(NULL, 0, MPI_INT, s, kGo1, MPI_COMM_WORLD);
                MPI_Wait(&req, &status);
            } else {
                MPI_Probe(s, kData, MPI_COMM_WORLD, &status);
                MPI_Recv(buf, bytes, MPI_BYTE, s, kData, MPI_COMM_WORLD, &status);
            }
            int count;
            MPI_Get_count(&status, MPI_BYTE, &count);
            errs += MT_EQ(count, bytes);
            errs += MT_VERIFY("Ssend data", buf, (size_t)bytes, (unsigned)(bytes * 3 + s));
        }
    }
    free(buf);
    return errs;
}

/* A blocking synchronous send to self completes when the receive was posted. */
static int ssend_to_self(int bytes) {
    int errs = 0;
    unsigned char* sbuf = mtest_malloc((size_t)bytes);
    unsigned char* rbuf = mtest_malloc((size_t)bytes);
    MPI_Request req;
    mtest_fill(sbuf, (size_t)bytes, 4242);
    MPI_Irecv(rbuf, bytes, MPI_BYTE, g_rank, kData, MPI_COMM_WORLD, &req);
    MPI_Ssend(sbuf, bytes, MPI_BYTE, g_rank, kData, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    errs += MT_VERIFY("Ssend to self", rbuf, (size_t)bytes, 4242);
    free(sbuf);
    free(rbuf);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    for (size_t k = 0; k < sizeof kSizes / sizeof kSizes[0]; ++k) {
        errs += issend_with_handshake(kSizes[k]);
        errs += blocking_ssend(kSizes[k], 1);
        errs += blocking_ssend(kSizes[k], 0);
        errs += ssend_to_self(kSizes[k]);
    }
    return mtest_finish(errs);
}
