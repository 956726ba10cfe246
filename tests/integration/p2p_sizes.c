/*
 * Point-to-point transfers of 0 B to 4 MiB, across the eager/rendezvous
 * thresholds (32 KiB on shared memory and 16 KiB over verbs by default; the
 * testlist also moves them with SI_EAGER_LIMIT), blocking and nonblocking, in both arrival orders:
 *
 *   receiver first: the receive is posted before the message arrives, so the
 *     data must land in the posted buffer (the "expected" path);
 *   sender first: the message (or the rendezvous request-to-send) arrives
 *     before any receive matches it, so it must wait in the unexpected queue.
 *
 * The order is forced by a handshake on a separate tag ("I have posted" /
 * "I have sent"), or by MPI_Probe, which returns only once the message is
 * there. Every transfer checks the data pattern, the status, MPI_Get_count,
 * and that nothing was written past the message in the receive buffer.
 *
 * Each rank sends to its right neighbour in turn (one pair at a time), so
 * with one rank every message is a message to self; variants whose blocking
 * calls would wait for themselves are skipped then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kSyncTag = 1, kDataTag = 7, kSlack = 1000, kGuard = 64 };
enum { kFill = 0xEE };
static const int kMaxBytes = 4 << 20;

static const int kSizes[] = {0,     1,     8,     1024,  16383,  16384,   16385,   32767,
                             32768, 32769, 65535, 65536, 65537, 100000, 1 << 20, 4 << 20};

static int g_rank;
static unsigned char* g_send;
static unsigned char* g_recv;

/* What one variant does; see run_variant. */
typedef enum {
    IRECV_SEND,        /* recv first: Irecv, "posted" token, blocking Send, Wait */
    IRECV_ISEND,       /* recv first: Irecv, token, Isend/Wait, Wait */
    RECV_SEND,         /* recv first (very likely): token, blocking Recv; sender waits 2 ms */
    SEND_PROBE_RECV,   /* send first: blocking Send; Probe proves arrival, then Recv */
    ISEND_PROBE_IRECV, /* send first: Isend; Probe, then Irecv/Wait */
    ISEND_TOKEN_RECV,  /* send first (very likely): Isend, "sent" token, blocking Recv */
    ISEND_TOKEN_IRECV, /* same with Irecv + Test loop on the receiving side */
} Variant;

static const struct {
    Variant variant;
    const char* name;
    int self_ok; /* can the rank be its own peer? */
    int bigger;  /* receive buffer larger than the message */
} kVariants[] = {
    {IRECV_SEND, "recv-first Irecv/Send", 1, 0},
    {IRECV_ISEND, "recv-first Irecv/Isend", 1, 1},
    {RECV_SEND, "recv-first Recv/Send", 0, 1},
    {SEND_PROBE_RECV, "send-first Send/Probe+Recv", 0, 0},
    {ISEND_PROBE_IRECV, "send-first Isend/Probe+Irecv", 1, 1},
    {ISEND_TOKEN_RECV, "send-first Isend/Recv", 1, 0},
    {ISEND_TOKEN_IRECV, "send-first Isend/Irecv+Test", 1, 1},
};

static void token_send(int to) {
    if (to != g_rank) MPI_Send(NULL, 0, MPI_BYTE, to, kSyncTag, MPI_COMM_WORLD);
}
static void token_recv(int from) {
    if (from != g_rank)
        MPI_Recv(NULL, 0, MPI_BYTE, from, kSyncTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int check_status(const char* what, const MPI_Status* status, int src, int bytes) {
    int errs = 0, count = -1;
    errs += MT_CHECK(status->MPI_SOURCE == src, "%s: MPI_SOURCE %d, expected %d", what,
                     status->MPI_SOURCE, src);
    errs += MT_CHECK(status->MPI_TAG == kDataTag, "%s: MPI_TAG %d, expected %d", what,
                     status->MPI_TAG, kDataTag);
    MPI_Get_count(status, MPI_BYTE, &count);
    errs += MT_CHECK(count == bytes, "%s: MPI_Get_count %d, expected %d", what, count, bytes);
    return errs;
}

/* One message of `bytes` bytes from rank s to rank d. Written so that the
 * phases run in the right order when s == d as well. */
static int run_variant(int v, int s, int d, int bytes, unsigned seed) {
    const Variant variant = kVariants[v].variant;
    const int posted = bytes + (kVariants[v].bigger ? kSlack : 0);
    char what[128];
    snprintf(what, sizeof what, "%s, %d bytes, %d->%d", kVariants[v].name, bytes, s, d);
    int errs = 0;
    MPI_Request rreq = MPI_REQUEST_NULL, sreq = MPI_REQUEST_NULL;
    MPI_Status status;

    if (g_rank == s) mtest_fill(g_send, (size_t)bytes, seed);
    if (g_rank == d) memset(g_recv, kFill, (size_t)posted + kGuard);

    switch (variant) {
        case IRECV_SEND:
        case IRECV_ISEND:
            if (g_rank == d) {
                MPI_Irecv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &rreq);
                token_send(s);
            }
            if (g_rank == s) {
                token_recv(d);
                if (variant == IRECV_SEND) {
                    MPI_Send(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD);
                } else {
                    MPI_Isend(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD, &sreq);
                    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
                }
            }
            if (g_rank == d) MPI_Wait(&rreq, &status);
            break;
        case RECV_SEND:
            if (g_rank == d) {
                token_send(s);
                MPI_Recv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &status);
            }
            if (g_rank == s) {
                token_recv(d);
                mtest_sleep_ms(2); /* let the receiver get into MPI_Recv first */
                MPI_Send(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD);
            }
            break;
        case SEND_PROBE_RECV:
            if (g_rank == s) MPI_Send(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD);
            if (g_rank == d) {
                MPI_Probe(s, kDataTag, MPI_COMM_WORLD, &status);
                errs += check_status(what, &status, s, bytes);
                MPI_Recv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &status);
            }
            break;
        case ISEND_PROBE_IRECV:
            if (g_rank == s) MPI_Isend(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD, &sreq);
            if (g_rank == d) {
                MPI_Probe(s, kDataTag, MPI_COMM_WORLD, &status);
                errs += check_status(what, &status, s, bytes);
                MPI_Irecv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &rreq);
                MPI_Wait(&rreq, &status);
            }
            if (g_rank == s) MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            break;
        case ISEND_TOKEN_RECV:
        case ISEND_TOKEN_IRECV:
            if (g_rank == s) {
                MPI_Isend(g_send, bytes, MPI_BYTE, d, kDataTag, MPI_COMM_WORLD, &sreq);
                token_send(d);
            }
            if (g_rank == d) {
                token_recv(s);
                if (variant == ISEND_TOKEN_RECV) {
                    MPI_Recv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &status);
                } else {
                    /* Completion through MPI_Test only, as a polling application would. */
                    int flag = 0;
                    MPI_Irecv(g_recv, posted, MPI_BYTE, s, kDataTag, MPI_COMM_WORLD, &rreq);
                    while (!flag) MPI_Test(&rreq, &flag, &status);
                    errs += MT_CHECK(rreq == MPI_REQUEST_NULL,
                                     "%s: MPI_Test did not free the request", what);
                }
            }
            if (g_rank == s) MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            break;
    }

    if (g_rank == s) errs += MT_CHECK(sreq == MPI_REQUEST_NULL, "%s: send request not freed", what);
    if (g_rank == d) {
        errs += MT_CHECK(rreq == MPI_REQUEST_NULL, "%s: receive request not freed", what);
        errs += check_status(what, &status, s, bytes);
        errs += MT_VERIFY(what, g_recv, (size_t)bytes, seed);
        /* Only the bytes of the message may change, not the rest of the buffer. */
        errs += MT_VERIFY_VALUE(what, g_recv + bytes, (size_t)(posted - bytes) + kGuard, kFill);
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_send = mtest_malloc((size_t)kMaxBytes);
    g_recv = mtest_malloc((size_t)kMaxBytes + kSlack + kGuard);

    const int nsizes = (int)(sizeof kSizes / sizeof kSizes[0]);
    const int nvariants = (int)(sizeof kVariants / sizeof kVariants[0]);
    for (int v = 0; v < nvariants; ++v) {
        if (size == 1 && !kVariants[v].self_ok) continue;
        for (int k = 0; k < nsizes; ++k) {
            /* One pair at a time: s sends to its right neighbour. */
            for (int s = 0; s < size; ++s) {
                int d = (s + 1) % size;
                if (g_rank != s && g_rank != d) continue;
                unsigned seed = (unsigned)(v * 1000003 + k * 1009 + s * 17 + 1);
                errs += run_variant(v, s, d, kSizes[k], seed);
            }
        }
    }

    free(g_send);
    free(g_recv);
    return mtest_finish(errs);
}
