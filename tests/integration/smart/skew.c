/*
 * A message sent right after a rendezvous must reach its receiver at once,
 * whatever the progression mode. Pairs of ranks (0->1, 2->3, ...) repeat:
 * MPI_Barrier; the sender computes 300 us and sends `bytes` (a rendezvous);
 * the receiver, which got there first, receives it (MPI_Recv on even rounds,
 * MPI_Irecv + MPI_Wait on odd ones). The receiver reaches the next barrier a
 * little before its sender, so both should leave it within microseconds.
 *
 * The defect this guards against: with runtime threads free to run anywhere,
 * a rank woken in the barrier was queued behind its computing peer while the
 * other core ran a helper's or a progress thread's polling loop, and left the
 * barrier only when that peer next entered MPI: 300 us late in one round of
 * ten (smart), 4 ms late in every round (thread).
 *
 * Every rank timestamps its barrier exits (CLOCK_MONOTONIC, shared by the
 * ranks of a host); rank 0 gathers them and fails the run when more than 5 %
 * of the rounds after the first 20 have a receiver leaving more than 200 us
 * after its sender, twice in a row (a burst of another job's load can spoil one
 * attempt; the defect spoils both). A loaded machine adds noise of tens of
 * microseconds; the defect is ten times that. The median and 90th percentile
 * of each attempt are printed.
 *
 *   skew [bytes] [rounds]     (defaults 1048576 and 300)
 */
#include <stdio.h>
#include <stdlib.h>

#include "../mtest.h"
#include "work.h"

enum { kWarmup = 20 };
static const double kLateSeconds = 200e-6;
static const double kWorkSeconds = 300e-6;

static int compare_doubles(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* One attempt: `rounds` rounds; on rank 0, 1 if too many were late. */
static int attempt(int rank, int size, unsigned char* buffer, int bytes, int rounds, double* left,
                   double* all, double* skew) {
    const int paired = rank < size - (size % 2);
    const int sender = paired && rank % 2 == 0;
    for (int round = 0; round < rounds; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        left[round] = work_now();
        if (sender) {
            work_until(kWorkSeconds, NULL, NULL);
            MPI_Send(buffer, bytes, MPI_BYTE, rank + 1, round, MPI_COMM_WORLD);
        } else if (paired && round % 2 == 0) {
            MPI_Recv(buffer, bytes, MPI_BYTE, rank - 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (paired) {
            MPI_Request request;
            MPI_Irecv(buffer, bytes, MPI_BYTE, rank - 1, round, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
    MPI_Gather(left, rounds, MPI_DOUBLE, all, rounds, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int too_late = 0;
    if (rank == 0) {
        int count = 0, late = 0;
        for (int s = 0; s + 1 < size; s += 2)
            for (int round = kWarmup; round < rounds; ++round) {
                const double d = all[(s + 1) * rounds + round] - all[s * rounds + round];
                skew[count++] = d;
                late += d > kLateSeconds;
            }
        qsort(skew, (size_t)count, sizeof *skew, compare_doubles);
        printf("barrier exit after a %d-byte rendezvous, receiver minus sender: median %.1f us, "
               "90th percentile %.1f us, %d of %d rounds over %.0f us\n",
               bytes, 1e6 * skew[count / 2], 1e6 * skew[count * 9 / 10], late, count,
               1e6 * kLateSeconds);
        too_late = late * 20 > count;
    }
    MPI_Bcast(&too_late, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return too_late;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    const int bytes = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int rounds = argc > 2 ? atoi(argv[2]) : 300;
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* buffer = mtest_malloc((size_t)bytes);
    double* left = mtest_malloc(sizeof *left * (size_t)rounds);
    double* all = mtest_malloc(sizeof *all * (size_t)rounds * (size_t)size);
    double* skew = mtest_malloc(sizeof *skew * (size_t)rounds * (size_t)size);
    const int sender = rank < size - (size % 2) && rank % 2 == 0;
    if (sender) mtest_fill(buffer, (size_t)bytes, 3);
    /* A second attempt when the first fails: another job's burst of load can
     * delay a few tens of rounds once, the defect delays them every time. */
    int failed = attempt(rank, size, buffer, bytes, rounds, left, all, skew);
    if (failed) failed = attempt(rank, size, buffer, bytes, rounds, left, all, skew);
    errs += MT_CHECK(!failed, "twice, more than 5%% of the rounds left the barrier over %.0f us late",
                     1e6 * kLateSeconds);
    if (rank % 2 == 1 && rank < size - (size % 2))
        errs += MT_VERIFY("last message", buffer, (size_t)bytes, 3);
    free(skew);
    free(all);
    free(left);
    free(buffer);
    return mtest_finish(errs);
}
