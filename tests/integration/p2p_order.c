/*
 * Non-overtaking: two messages from the same sender that match the same
 * receive are received in the order they were sent (MPI 3.1, section 3.5).
 * The risky case for a runtime with two protocols is a large (rendezvous)
 * message followed by small (eager) ones: the small ones arrive first and
 * must still wait their turn. Every rank sends a sequence of mixed sizes to
 * every rank (itself included), all nonblocking, and receives them with
 *   - a specific source, sources taken in descending order,
 *   - MPI_ANY_SOURCE (the per-source order must still hold),
 *   - MPI_ANY_SOURCE and MPI_ANY_TAG while the senders alternate tags,
 *   - receives posted before anything is sent (specific and wildcard): the
 *     i-th matching receive posted gets the i-th message.
 * Each message's size and pattern identify its index in the sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kCount = 45, kTag = 5 };
static const int kSizes[] = {100000, 0, 8, 16385, 32769, 1, 70000, 16384, 32768, 300, 20000};
enum { kMaxBytes = 100000 };

typedef enum { SPECIFIC, ANY_SOURCE, ANY_SOURCE_ANY_TAG, PREPOSTED, PREPOSTED_ANY } Mode;
static const char* kModeNames[] = {"specific source", "MPI_ANY_SOURCE",
                                   "MPI_ANY_SOURCE+MPI_ANY_TAG", "preposted",
                                   "preposted MPI_ANY_SOURCE"};

static int g_rank, g_size;

static int msg_bytes(int src, int i) {
    return kSizes[(i + src) % (int)(sizeof kSizes / sizeof kSizes[0])];
}
static unsigned msg_seed(int src, int i) {
    return (unsigned)(src * 100003 + i * 31 + 7);
}
static int msg_tag(Mode mode, int i) {
    return mode == ANY_SOURCE_ANY_TAG ? kTag + i % 3 : kTag;
}

/* Checks that a received message is message `i` from `src`. */
static int check_message(Mode mode, const MPI_Status* status, const unsigned char* buf, int src,
                         int i) {
    int errs = 0, count = -1;
    char what[96];
    snprintf(what, sizeof what, "%s: message %d from %d", kModeNames[mode], i, src);
    MPI_Get_count(status, MPI_BYTE, &count);
    errs += MT_CHECK(status->MPI_SOURCE == src, "%s: MPI_SOURCE %d", what, status->MPI_SOURCE);
    errs += MT_CHECK(status->MPI_TAG == msg_tag(mode, i), "%s: MPI_TAG %d, expected %d", what,
                     status->MPI_TAG, msg_tag(mode, i));
    errs += MT_CHECK(count == msg_bytes(src, i), "%s: %d bytes, expected %d (out of order?)", what,
                     count, msg_bytes(src, i));
    if (count == msg_bytes(src, i)) errs += MT_VERIFY(what, buf, (size_t)count, msg_seed(src, i));
    return errs;
}

static int run_mode(Mode mode, unsigned char** sendbufs) {
    const int total = kCount * g_size;
    int errs = 0;
    int* next = calloc((size_t)g_size, sizeof(int)); /* next expected index per source */
    MPI_Request* sreq = mtest_malloc(sizeof(MPI_Request) * (size_t)total);
    MPI_Request* rreq = mtest_malloc(sizeof(MPI_Request) * (size_t)total);
    MPI_Status* status = mtest_malloc(sizeof(MPI_Status) * (size_t)total);
    int preposted = mode == PREPOSTED || mode == PREPOSTED_ANY;
    unsigned char* rbuf = mtest_malloc((size_t)kMaxBytes * (preposted ? (size_t)total : 1));

    if (preposted) {
        /* PREPOSTED: for each source, kCount receives in order. PREPOSTED_ANY:
         * total wildcard receives; the messages of one source must fill them
         * in increasing index order. */
        for (int k = 0; k < total; ++k) {
            int src = mode == PREPOSTED ? k / kCount : MPI_ANY_SOURCE;
            MPI_Irecv(rbuf + (size_t)k * kMaxBytes, kMaxBytes, MPI_BYTE, src, kTag, MPI_COMM_WORLD,
                      &rreq[k]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Interleave destinations so that every pair sees large and small back to back. */
    for (int i = 0; i < kCount; ++i)
        for (int dst = 0; dst < g_size; ++dst)
            MPI_Isend(sendbufs[i], msg_bytes(g_rank, i), MPI_BYTE, dst, msg_tag(mode, i),
                      MPI_COMM_WORLD, &sreq[i * g_size + dst]);

    switch (mode) {
        case SPECIFIC:
            for (int src = g_size - 1; src >= 0; --src)
                for (int i = 0; i < kCount; ++i) {
                    MPI_Recv(rbuf, kMaxBytes, MPI_BYTE, src, kTag, MPI_COMM_WORLD, &status[0]);
                    errs += check_message(mode, &status[0], rbuf, src, i);
                }
            break;
        case ANY_SOURCE:
        case ANY_SOURCE_ANY_TAG:
            for (int k = 0; k < total; ++k) {
                int tag = mode == ANY_SOURCE ? kTag : MPI_ANY_TAG;
                MPI_Recv(rbuf, kMaxBytes, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD,
                         &status[0]);
                int src = status[0].MPI_SOURCE;
                if (src < 0 || src >= g_size || next[src] >= kCount) {
                    errs += MT_CHECK(0, "%s: unexpected source %d", kModeNames[mode], src);
                    continue;
                }
                errs += check_message(mode, &status[0], rbuf, src, next[src]++);
            }
            break;
        case PREPOSTED:
        case PREPOSTED_ANY:
            MPI_Waitall(total, rreq, status);
            for (int k = 0; k < total; ++k) {
                int src = status[k].MPI_SOURCE;
                if (src < 0 || src >= g_size || next[src] >= kCount) {
                    errs += MT_CHECK(0, "%s: unexpected source %d", kModeNames[mode], src);
                    continue;
                }
                errs +=
                    check_message(mode, &status[k], rbuf + (size_t)k * kMaxBytes, src, next[src]++);
            }
            break;
    }
    MPI_Waitall(total, sreq, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* the next mode's wildcards must not see these messages */
    free(next);
    free(sreq);
    free(rreq);
    free(status);
    free(rbuf);
    return errs;
}

/* Different tags may be received out of order: a receive for a later tag
 * must not be blocked by an earlier unmatched message, and the earlier
 * message must still be there afterwards. */
static int other_tag_first(void) {
    enum { kBig = 100000 };
    int errs = 0, count;
    int src = (g_rank + g_size - 1) % g_size, dst = (g_rank + 1) % g_size;
    unsigned char* sbuf = mtest_malloc(kBig);
    unsigned char* rbuf = mtest_malloc(kBig);
    MPI_Request req[2];
    MPI_Status status;
    mtest_fill(sbuf, kBig, 77);
    MPI_Isend(sbuf, kBig, MPI_BYTE, dst, 1, MPI_COMM_WORLD, &req[0]); /* tag 1 first */
    MPI_Isend(sbuf, 10, MPI_BYTE, dst, 2, MPI_COMM_WORLD, &req[1]);   /* then tag 2 */
    MPI_Recv(rbuf, kBig, MPI_BYTE, src, 2, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, 10);
    errs += MT_EQ(status.MPI_TAG, 2);
    MPI_Recv(rbuf, kBig, MPI_BYTE, src, 1, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, kBig);
    errs += MT_VERIFY("tag 1 after tag 2", rbuf, kBig, 77);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    free(sbuf);
    free(rbuf);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    unsigned char* sendbufs[kCount];
    for (int i = 0; i < kCount; ++i) {
        sendbufs[i] = mtest_malloc((size_t)msg_bytes(g_rank, i));
        mtest_fill(sendbufs[i], (size_t)msg_bytes(g_rank, i), msg_seed(g_rank, i));
    }
    for (Mode mode = SPECIFIC; mode <= PREPOSTED_ANY; ++mode) errs += run_mode(mode, sendbufs);
    errs += other_tag_first();
    for (int i = 0; i < kCount; ++i) free(sendbufs[i]);
    return mtest_finish(errs);
}
