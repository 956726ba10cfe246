/*
 * Random traffic for fault injection (fault_inject.py): rounds of
 * point-to-point exchanges between shifted pairs, with sizes on both sides
 * of the eager limit and every third round received with MPI_ANY_SOURCE,
 * an allreduce every fourth round, and a one-sided Put + fence every fifth.
 * Every payload is checked. Rank 0 decides when `seconds` have passed; the
 * others follow it round by round. With `counters` (the soak, soak.py), the
 * runtime's counters must add up at the end: every wake-up a helper or a
 * blocked rank fired was received by a rank, and none received more futile
 * or late ones than wake-ups.
 *
 *   traffic [seconds] [counters]     (default 2 s)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../integration/mtest.h"
#include "../integration/smart/stats.h"

static const int kSizes[] = {8, 1024, 16384, 65536, 262144, 1048576};
enum { kSizeCount = sizeof kSizes / sizeof kSizes[0], kMaxBytes = 1048576 };

/* The byte at position i of what `source` sends in round r. */
static unsigned char byte_of(int source, int round, int i) {
    return (unsigned char)(source * 31 + round * 7 + i);
}

static int counters_add_up(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    long long fired = 0, received = 0;
    for (int r = 0; r < nranks; ++r) {
        const long long wakeups = stats_counter(r, "wakeups");
        const long long futile =
            stats_counter(r, "futile_wakeups") + stats_counter(r, "late_wakeups");
        errs += MT_CHECK(wakeups >= 0 && futile >= 0 && futile <= wakeups,
                         "rank %d: futile or late %lld of %lld wake-ups", r, futile, wakeups);
        received += wakeups;
        fired += stats_sum(r, "helper", "_wakes") + stats_counter(r, "blocked_wakes");
    }
    printf("wake-ups: %lld fired by helpers and blocked ranks, %lld received\n", fired, received);
    errs += MT_CHECK(fired == received, "%lld wake-ups fired, %lld received", fired, received);
    return errs;
}

int main(int argc, char** argv) {
    const int counters = argc > 2 && strcmp(argv[2], "counters") == 0;
    if (counters) stats_enable();
    mtest_init(&argc, &argv);
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* out = malloc(kMaxBytes);
    unsigned char* in = malloc(kMaxBytes);
    int* window_memory = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &window_memory, &win);
    const double start = MPI_Wtime();
    int go_on = 1;
    for (int round = 0; go_on && size > 1; ++round) {
        const int shift = 1 + round % (size - 1);
        const int to = (rank + shift) % size, from = (rank - shift + size) % size;
        const int bytes = kSizes[(round * 7 + 3) % kSizeCount];
        for (int i = 0; i < bytes; ++i) out[i] = byte_of(rank, round, i);
        MPI_Request requests[2];
        const int any = round % 3 == 0;
        MPI_Irecv(in, bytes, MPI_BYTE, any ? MPI_ANY_SOURCE : from, round % 100, MPI_COMM_WORLD,
                  &requests[0]);
        MPI_Isend(out, bytes, MPI_BYTE, to, round % 100, MPI_COMM_WORLD, &requests[1]);
        MPI_Status statuses[2];
        MPI_Waitall(2, requests, statuses);
        /* Shifted pairs: the only message of this round and tag is from `from`. */
        errs += MT_EQ(statuses[0].MPI_SOURCE, from);
        for (int i = 0; i < bytes; ++i)
            if (in[i] != byte_of(from, round, i)) {
                errs += MT_CHECK(0, "round %d: byte %d from rank %d is wrong", round, i, from);
                break;
            }
        if (round % 4 == 0) {
            int sum = 0;
            MPI_Allreduce(&round, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            errs += MT_EQ(sum, round * size);
        }
        if (round % 5 == 0) {
            MPI_Win_fence(0, win);
            MPI_Put(&round, 1, MPI_INT, to, rank, 1, MPI_INT, win);
            MPI_Win_fence(0, win);
            errs += MT_EQ(window_memory[from], round);
        }
        go_on = MPI_Wtime() - start < seconds;
        MPI_Bcast(&go_on, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    free(out);
    free(in);
    return counters ? stats_finish(errs, 0, counters_add_up) : mtest_finish(errs);
}
