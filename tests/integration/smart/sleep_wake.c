/*
 * A blocked MPI call that sleeps must be woken by the message it waits for.
 * Pairs of ranks (0<->1, 2<->3, ...) ping-pong messages of eager and
 * rendezvous sizes; before each send the sender computes a little, so its
 * peer, run with SI_WAIT_SPIN_US=0, is asleep when the message comes, in
 * MPI_Recv, MPI_Wait, MPI_Probe, MPI_Waitany, MPI_Waitsome and MPI_Mprobe in
 * turn. A lost wake-up does not hang the run: the sleep ends after 200 ms
 * (wait_timeouts), the rank polls again and finds the message that should
 * have woken it, which the runtime counts as lost_wakeups. So
 * the test requires, from every rank's counters:
 *   wait_sleeps > 0    the ranks really slept (the test did not pass by
 *                      never reaching the path it tests),
 *   lost_wakeups = 0   every message that came during a sleep ended it.
 * wait_timeouts alone is no error: on a loaded machine a peer can be off its
 * core for 200 ms (seen under ctest -j3), and the sleep then times out with
 * nothing to find. Every round starts with an MPI_Barrier, which sleeps and
 * must be woken too.
 *
 *   sleep_wake [rounds]     (default 200)
 */
#include <stdio.h>
#include <stdlib.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

static const int kSizes[] = {8, 16385, 1 << 20};
enum { kSizeCount = sizeof kSizes / sizeof kSizes[0], kLargest = 1 << 20 };

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    for (int r = 0; r < nranks - (nranks % 2); ++r) {
        const long long sleeps = stats_counter(r, "wait_sleeps");
        const long long lost = stats_counter(r, "lost_wakeups");
        const long long timeouts = stats_counter(r, "wait_timeouts");
        errs += MT_CHECK(sleeps > 0, "rank %d never slept in a blocked call (wait_sleeps %lld)", r,
                         sleeps);
        errs += MT_CHECK(lost == 0, "rank %d: %lld lost wake-ups in %lld sleeps", r, lost, sleeps);
        if (timeouts > 0)
            printf("rank %d: %lld of %lld sleeps outlasted a peer off its core for 200 ms\n", r,
                   timeouts, sleeps);
    }
    return errs;
}

/* Receives the round's message blocked in one of the calls that block,
 * taking turns: each must sleep and be woken. */
static void receive_blocked(void* in, int bytes, int peer, int round) {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Message message;
    int index, count, indices[2];
    switch ((round / 2) % 6) {
        case 0:
            MPI_Recv(in, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case 1:
            MPI_Irecv(in, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, &requests[0]);
            MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
            break;
        case 2:
            MPI_Probe(peer, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(in, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case 3:
            MPI_Irecv(in, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, &requests[1]);
            MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
            break;
        case 4:
            MPI_Irecv(in, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, &requests[0]);
            MPI_Waitsome(2, requests, &count, indices, MPI_STATUSES_IGNORE);
            break;
        default:
            MPI_Mprobe(peer, round, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
            MPI_Mrecv(in, bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
            break;
    }
}

int main(int argc, char** argv) {
    stats_enable();
    setenv("SI_WAIT_SPIN_US", "0", 1);
    mtest_init(&argc, &argv);
    const int rounds = argc > 1 ? atoi(argv[1]) : 200;
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* out = mtest_malloc(kLargest);
    unsigned char* in = mtest_malloc(kLargest);

    const int paired = rank < size - (size % 2);
    const int peer = rank ^ 1;
    for (int round = 0; round < rounds; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (paired) {
            const int bytes = kSizes[round % kSizeCount];
            const int my_turn = (round % 2) == (rank % 2);
            if (my_turn) {
                /* 0.1-1 ms: long enough for the peer to fall asleep. */
                work_until(1e-4 * (double)(1 + (round * 7 + rank) % 10), NULL, NULL);
                mtest_fill(out, (size_t)bytes, (unsigned)(round * 2 + rank));
                MPI_Send(out, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD);
            } else {
                receive_blocked(in, bytes, peer, round);
                errs += MT_VERIFY("received", in, (size_t)bytes, (unsigned)(round * 2 + peer));
            }
        }
    }
    free(out);
    free(in);
    return stats_finish(errs, 0, check_counters);
}
