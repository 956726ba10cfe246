/*
 * Matched probes (MPI 3.1, section 3.8.2). MPI_Mprobe / MPI_Improbe take
 * the message they find out of the matching queue: a later receive that
 * would match it matches the next message instead, and only MPI_Mrecv /
 * MPI_Imrecv with the returned handle receives it. Every rank sends two
 * messages to every rank (itself included), eager and rendezvous; each
 * rank mprobes them in turn with wildcards, receives some with MPI_Mrecv and
 * some with MPI_Imrecv, and checks that the status of the probe and of the
 * receive agree. MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive
 * completes at once.
 */
#include <stdlib.h>

#include "mtest.h"

enum { kSmall = 8, kLarge = 1 << 20 };

static int g_rank, g_size;

static int bytes_from(int source, int second) { return (source + second) % 2 ? kLarge : kSmall; }
static unsigned seed_of(int source, int dest, int second) {
    return (unsigned)(source * 1000 + dest * 10 + second);
}

static int exchange(int use_improbe) {
    int errs = 0;
    MPI_Request* sends = mtest_malloc(sizeof(MPI_Request) * 2 * (size_t)g_size);
    unsigned char** copies = mtest_malloc(sizeof(unsigned char*) * 2 * (size_t)g_size);
    for (int dest = 0; dest < g_size; ++dest)
        for (int second = 0; second < 2; ++second) {
            const int bytes = bytes_from(g_rank, second);
            unsigned char* copy = mtest_malloc((size_t)bytes);
            mtest_fill(copy, (size_t)bytes, seed_of(g_rank, dest, second));
            copies[dest * 2 + second] = copy;
            MPI_Isend(copy, bytes, MPI_BYTE, dest, second, MPI_COMM_WORLD,
                      &sends[dest * 2 + second]);
        }
    unsigned char* in = mtest_malloc(kLarge);
    for (int i = 0; i < 2 * g_size; ++i) {
        MPI_Message message = MPI_MESSAGE_NULL;
        MPI_Status probed, received;
        if (use_improbe) {
            int flag = 0;
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message,
                            &probed);
        } else {
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &probed);
        }
        int count = -1;
        MPI_Get_count(&probed, MPI_BYTE, &count);
        errs += MT_EQ(count, bytes_from(probed.MPI_SOURCE, probed.MPI_TAG));
        if (i % 2 == 0) {
            MPI_Mrecv(in, kLarge, MPI_BYTE, &message, &received);
        } else {
            MPI_Request request;
            MPI_Imrecv(in, kLarge, MPI_BYTE, &message, &request);
            MPI_Wait(&request, &received);
        }
        errs += MT_EQ(message, MPI_MESSAGE_NULL);
        errs += MT_EQ(received.MPI_SOURCE, probed.MPI_SOURCE);
        errs += MT_EQ(received.MPI_TAG, probed.MPI_TAG);
        MPI_Get_count(&received, MPI_BYTE, &count);
        errs += MT_EQ(count, bytes_from(probed.MPI_SOURCE, probed.MPI_TAG));
        errs += MT_VERIFY("received", in, (size_t)count,
                          seed_of(probed.MPI_SOURCE, g_rank, probed.MPI_TAG));
    }
    MPI_Waitall(2 * g_size, sends, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 2 * g_size; ++i) free(copies[i]);
    free(copies);
    free(sends);
    free(in);
    return errs;
}

/* A message taken by a matched probe is invisible to receives and probes. */
static int taken_out_of_queue(void) {
    int errs = 0, first = 1, second = 2, value = 0, flag = 1;
    MPI_Request sends[2];
    MPI_Isend(&first, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &sends[0]);
    MPI_Isend(&second, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &sends[1]);
    MPI_Message message;
    MPI_Mprobe(0, 7, MPI_COMM_SELF, &message, MPI_STATUS_IGNORE);
    MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    errs += MT_EQ(value, second);
    MPI_Iprobe(0, 7, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    errs += MT_EQ(flag, 0);
    MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
    errs += MT_EQ(value, first);
    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
    return errs;
}

static int proc_null(void) {
    int errs = 0, flag = 0, value = 5, count = -1;
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &message, &status);
    errs += MT_EQ(message, MPI_MESSAGE_NO_PROC);
    errs += MT_EQ(status.MPI_SOURCE, MPI_PROC_NULL);
    MPI_Mrecv(&value, 1, MPI_INT, &message, &status);
    errs += MT_EQ(message, MPI_MESSAGE_NULL);
    errs += MT_EQ(status.MPI_SOURCE, MPI_PROC_NULL);
    errs += MT_EQ(status.MPI_TAG, MPI_ANY_TAG);
    MPI_Get_count(&status, MPI_INT, &count);
    errs += MT_EQ(count, 0);
    errs += MT_EQ(value, 5);
    MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &message, &status);
    errs += MT_EQ(flag, 1);
    errs += MT_EQ(message, MPI_MESSAGE_NO_PROC);
    MPI_Request request;
    MPI_Imrecv(&value, 1, MPI_INT, &message, &request);
    MPI_Wait(&request, &status);
    errs += MT_EQ(status.MPI_SOURCE, MPI_PROC_NULL);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = exchange(0);
    MPI_Barrier(MPI_COMM_WORLD);
    errs += exchange(1);
    errs += taken_out_of_queue();
    errs += proc_null();
    return mtest_finish(errs);
}
