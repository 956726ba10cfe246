/*
 * Many receives posted long before their messages, which come in the
 * opposite order: ranks pair up (0->1, 2->3, ...), the receiver posts
 * kCount nonblocking receives, tags 0..kCount-1, every third above the eager
 * limit, then meets its sender at a barrier; the sender sends tag
 * kCount-1 first with blocking calls (MPI_Send, and MPI_Ssend for every
 * fifth), which MPI lets wait until their receive is matched. Every
 * message must land in the receive of its tag. A runtime that keeps only
 * so many receives where they can match, and queues the rest until earlier
 * ones complete, hangs here: the first send matches a queued receive.
 *
 * The receiver computes (sleeps) 100 ms before it waits: a runtime that
 * progresses in the background completes most receives meanwhile, and must
 * keep every answer until the rank looks.
 *
 * Last, the other way round: 300 small messages sent before their
 * receives, which come in a burst.
 *
 * Also, one receive nobody sends to, posted behind as many others, is
 * cancelled: MPI_Test_cancelled says so, and the others still complete.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kCount = 300, kSmall = 24, kLarge = 40000 };

static int bytes_of(int tag) {
    return tag % 3 == 0 ? kLarge : kSmall + tag % 7;
}

static unsigned seed_of(int sender, int tag) {
    return 7919u * (unsigned)sender + (unsigned)tag;
}

static int receive_all(int sender, int cancel_one) {
    unsigned char** buffers = mtest_malloc(sizeof(unsigned char*) * kCount);
    MPI_Request* requests = mtest_malloc(sizeof(MPI_Request) * (kCount + 1));
    for (int tag = 0; tag < kCount; ++tag) {
        buffers[tag] = mtest_malloc((size_t)bytes_of(tag));
        memset(buffers[tag], 0, (size_t)bytes_of(tag));
        MPI_Irecv(buffers[tag], bytes_of(tag), MPI_BYTE, sender, tag, MPI_COMM_WORLD,
                  &requests[tag]);
    }
    int errs = 0;
    unsigned char never[8];
    if (cancel_one) {
        MPI_Irecv(never, (int)sizeof never, MPI_BYTE, sender, kCount, MPI_COMM_WORLD,
                  &requests[kCount]);
        MPI_Cancel(&requests[kCount]);
        MPI_Status status;
        MPI_Wait(&requests[kCount], &status);
        int cancelled = 0;
        MPI_Test_cancelled(&status, &cancelled);
        errs += MT_CHECK(cancelled, "the receive nobody sends to was not cancelled");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    // Computing a while, so that asynchronous progress may complete many
    // receives before this rank looks.
    mtest_sleep_ms(100);
    MPI_Status* statuses = mtest_malloc(sizeof(MPI_Status) * kCount);
    MPI_Waitall(kCount, requests, statuses);
    for (int tag = 0; tag < kCount; ++tag) {
        int count = -1;
        MPI_Get_count(&statuses[tag], MPI_BYTE, &count);
        errs += MT_EQ(statuses[tag].MPI_TAG, tag);
        errs += MT_EQ(count, bytes_of(tag));
        errs += MT_VERIFY("message", buffers[tag], (size_t)bytes_of(tag), seed_of(sender, tag));
        free(buffers[tag]);
    }
    free(statuses);
    free(requests);
    free(buffers);
    return errs;
}

/* The other way round: every message is sent (small, complete at once)
 * before its receive is posted, then the receives come in a burst. */
static int unexpected_first(int rank, int size) {
    enum { kBurst = 300 };
    const int paired = rank < size - size % 2;
    int errs = 0;
    unsigned char* buffers = mtest_malloc((size_t)kSmall * kBurst);
    MPI_Request* requests = mtest_malloc(sizeof(MPI_Request) * kBurst);
    if (paired && rank % 2 == 0)
        for (int tag = 0; tag < kBurst; ++tag) {
            mtest_fill(buffers + (size_t)kSmall * (size_t)tag, kSmall, seed_of(rank, tag));
            MPI_Isend(buffers + (size_t)kSmall * (size_t)tag, kSmall, MPI_BYTE, rank + 1, tag,
                      MPI_COMM_WORLD, &requests[tag]);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (paired && rank % 2 == 1)
        for (int tag = 0; tag < kBurst; ++tag)
            MPI_Irecv(buffers + (size_t)kSmall * (size_t)tag, kSmall, MPI_BYTE, rank - 1, tag,
                      MPI_COMM_WORLD, &requests[tag]);
    if (paired) MPI_Waitall(kBurst, requests, MPI_STATUSES_IGNORE);
    if (paired && rank % 2 == 1)
        for (int tag = 0; tag < kBurst; ++tag)
            errs += MT_VERIFY("early message", buffers + (size_t)kSmall * (size_t)tag, kSmall,
                              seed_of(rank - 1, tag));
    free(requests);
    free(buffers);
    return errs;
}

static void send_all(int rank, int receiver) {
    unsigned char* buffer = mtest_malloc(kLarge);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int tag = kCount - 1; tag >= 0; --tag) {
        mtest_fill(buffer, (size_t)bytes_of(tag), seed_of(rank, tag));
        if (tag % 5 == 0)
            MPI_Ssend(buffer, bytes_of(tag), MPI_BYTE, receiver, tag, MPI_COMM_WORLD);
        else
            MPI_Send(buffer, bytes_of(tag), MPI_BYTE, receiver, tag, MPI_COMM_WORLD);
    }
    free(buffer);
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int rank = 0, size = 0, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - size % 2;
    for (int round = 0; round < 2; ++round) {
        if (!paired)
            MPI_Barrier(MPI_COMM_WORLD);
        else if (rank % 2 == 0)
            send_all(rank, rank + 1);
        else
            errs += receive_all(rank - 1, round == 1);
    }
    errs += unexpected_first(rank, size);
    return mtest_finish(errs);
}
