/*
 * MPI_THREAD_MULTIPLE: several threads of each rank communicate at the same
 * time. Thread t of every rank talks only on tag t (point-to-point) or on its
 * own dup of MPI_COMM_WORLD (collectives), so every operation is well
 * defined by the standard no matter how the threads interleave (MPI 3.1,
 * section 12.4: matching is per communicator/tag, and collectives on one
 * communicator must not run concurrently). What is exercised is the
 * runtime's own locking: request pool, matching queues, progress and the
 * transport used by several threads at once.
 *
 * Per thread: nonblocking ring exchanges of eager and rendezvous sizes,
 * MPI_Sendrecv, MPI_Probe on its tag with MPI_ANY_SOURCE then a receive sized
 * from the status, and Allreduce/Bcast loops on its communicator. Also
 * MPI_Is_thread_main in the threads and MPI_Query_thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kThreads = 4, kRounds = 16, kBig = 40000 };

static int g_rank, g_size;
static MPI_Comm g_comms[kThreads];

typedef struct {
    int id;
    int errs;
} ThreadArg;

static unsigned seed_of(int src, int thread, int round) {
    return (unsigned)(src * 1000003 + thread * 7919 + round * 31 + 1);
}

static int thread_body(int t) {
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int errs = 0, flag = 1;
    unsigned char* out = mtest_malloc(kBig);
    unsigned char* in = mtest_malloc(kBig);

    MPI_Is_thread_main(&flag);
    errs += MT_CHECK(!flag, "MPI_Is_thread_main is true in thread %d", t);

    for (int round = 0; round < kRounds; ++round) {
        const int bytes = round % 3 == 2 ? kBig : 8 + round;
        char what[80];
        MPI_Request req[2];
        MPI_Status status;
        int count = -1;

        /* Nonblocking ring exchange on tag t. */
        mtest_fill(out, (size_t)bytes, seed_of(g_rank, t, round));
        MPI_Irecv(in, kBig, MPI_BYTE, left, t, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, bytes, MPI_BYTE, right, t, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        snprintf(what, sizeof what, "thread %d round %d Isend/Irecv", t, round);
        errs += MT_VERIFY(what, in, (size_t)bytes, seed_of(left, t, round));

        /* The other direction with MPI_Sendrecv. */
        mtest_fill(out, (size_t)bytes, seed_of(g_rank, t, round + 1000));
        MPI_Sendrecv(out, bytes, MPI_BYTE, left, t, in, kBig, MPI_BYTE, right, t, MPI_COMM_WORLD,
                     &status);
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_CHECK(count == bytes && status.MPI_TAG == t,
                         "thread %d round %d Sendrecv: "
                         "%d bytes, tag %d",
                         t, round, count, status.MPI_TAG);
        snprintf(what, sizeof what, "thread %d round %d Sendrecv", t, round);
        errs += MT_VERIFY(what, in, (size_t)bytes, seed_of(right, t, round + 1000));

        /* Probe with MPI_ANY_SOURCE on tag t: only the left neighbour's thread t
         * sends this tag to us, so the probed message is ours to receive. */
        mtest_fill(out, (size_t)bytes, seed_of(g_rank, t, round + 2000));
        MPI_Isend(out, bytes, MPI_BYTE, right, t, MPI_COMM_WORLD, &req[0]);
        MPI_Probe(MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_CHECK(status.MPI_SOURCE == left && count == bytes,
                         "thread %d round %d Probe: source %d, %d bytes", t, round,
                         status.MPI_SOURCE, count);
        MPI_Recv(in, count, MPI_BYTE, status.MPI_SOURCE, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        snprintf(what, sizeof what, "thread %d round %d Probe+Recv", t, round);
        errs += MT_VERIFY(what, in, (size_t)bytes, seed_of(left, t, round + 2000));
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);

        /* Collectives on this thread's own communicator (every other round:
         * they are slow with MPICH when oversubscribed). */
        if (round % 2) continue;
        const int root = round % g_size;
        int sum = 0, value = g_rank == root ? t * 100 + round : -1;
        MPI_Allreduce(&g_rank, &sum, 1, MPI_INT, MPI_SUM, g_comms[t]);
        errs += MT_EQ(sum, g_size * (g_size - 1) / 2);
        MPI_Bcast(&value, 1, MPI_INT, root, g_comms[t]);
        int expected = t * 100 + round;
        errs += MT_EQ(value, expected);
    }
    free(out);
    free(in);
    return errs;
}

static void* thread_main(void* p) {
    ThreadArg* arg = p;
    arg->errs = thread_body(arg->id);
    return NULL;
}

int main(int argc, char** argv) {
    int provided = -1, errs = 0;
    mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    int queried = -1, is_main = 0;
    MPI_Query_thread(&queried);
    errs += MT_EQ(queried, provided);
    MPI_Is_thread_main(&is_main);
    errs += MT_CHECK(is_main, "MPI_Is_thread_main is false in the main thread");
    if (provided < MPI_THREAD_MULTIPLE) {
#ifdef SI_MPI
        errs += MT_CHECK(0, "MPI_THREAD_MULTIPLE requested, %d provided", provided);
#else
        if (g_rank == 0) printf("MPI_THREAD_MULTIPLE not provided (%d); skipping\n", provided);
#endif
        return mtest_finish(errs);
    }

    /* The dups are made here, in the same order on every rank. */
    for (int t = 0; t < kThreads; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &g_comms[t]);

    pthread_t threads[kThreads];
    ThreadArg args[kThreads];
    for (int t = 0; t < kThreads; ++t) {
        args[t].id = t;
        args[t].errs = 0;
        if (pthread_create(&threads[t], NULL, thread_main, &args[t]) != 0)
            MT_FATAL("pthread_create failed");
    }
    for (int t = 0; t < kThreads; ++t) {
        pthread_join(threads[t], NULL);
        errs += args[t].errs;
    }
    for (int t = 0; t < kThreads; ++t) MPI_Comm_free(&g_comms[t]);
    return mtest_finish(errs);
}
