/*
 * A passive target that computes: rank 1 computes 300 ms without calling MPI
 * while rank 0 locks its window exclusively, accumulates into it (or puts
 * 1 MiB, or fetches and adds) and unlocks. The lock request, the accumulate
 * and the fetch are eager messages that rank 1's own MPI must serve. With
 * SmartInterrupts (SI_PROGRESS=smart) its window's receive wakes its
 * interrupt thread for them: rank 0's epoch must end while rank 1 still
 * computes, every wake-up of rank 1 useful. In mode none (argument "waits")
 * it must end only after, which shows that the scenario arises. Both ranks
 * share a host, so the ends of the epoch and of the computation compare on
 * one monotonic clock: that holds however slowly a loaded machine (or
 * ThreadSanitizer) runs the wake-ups, which a bound on the epoch's length
 * did not. The data is checked either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kBytes = 1 << 20, kPatterns = 3 };
static const double kComputeSeconds = 0.3;
static const char* const kNames[kPatterns] = {"accumulate", "put 1 MiB", "fetch and add"};

static int g_waits = 0; /* "waits": mode none, the origin waits for the target */

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    if (nranks < 2 || g_waits) return 0;
    const long long wakeups = stats_counter(1, "wakeups");
    const long long futile = stats_counter(1, "futile_wakeups");
    /* Late ones (the target entered MPI and served itself first) may come
     * under load; they are not futile. */
    const long long late = stats_counter(1, "late_wakeups");
    printf("rank 1 (target): %lld wake-ups, %lld futile, %lld late\n", wakeups, futile, late);
    return MT_CHECK(wakeups >= kPatterns, "rank 1: %lld wake-ups, expected one per pattern",
                    wakeups) +
           MT_CHECK(futile == 0, "rank 1: %lld futile wake-ups", futile);
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    g_waits = argc > 1 && strcmp(argv[1], "waits") == 0;
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* mem = NULL;
    MPI_Win win;
    MPI_Win_allocate(kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, kBytes);
    unsigned char* out = mtest_malloc(kBytes);
    for (int pattern = 0; pattern < kPatterns && size >= 2; ++pattern) {
        const unsigned seed = 31u + (unsigned)pattern;
        long long one = 1, fetched = -1;
        double computed_until = 0.0, epoch_end = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            work_until(kComputeSeconds, NULL, NULL);
            computed_until = work_now();
        }
        if (rank == 0) {
            mtest_fill(out, kBytes, seed);
            const double start = MPI_Wtime();
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            if (pattern == 0)
                MPI_Accumulate(&one, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, MPI_SUM, win);
            if (pattern == 1) MPI_Put(out, kBytes, MPI_BYTE, 1, 0, kBytes, MPI_BYTE, win);
            if (pattern == 2) MPI_Fetch_and_op(&one, &fetched, MPI_LONG_LONG, 1, 0, MPI_SUM, win);
            MPI_Win_unlock(1, win);
            epoch_end = work_now();
            printf("%-14s epoch %6.1f ms while the target computes %.0f ms\n", kNames[pattern],
                   (MPI_Wtime() - start) * 1e3, kComputeSeconds * 1e3);
            if (pattern == 2)
                errs += MT_CHECK(fetched == 1, "fetch and add returned %lld, expected 1", fetched);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&computed_until, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
        if (rank == 0) {
            const double margin_ms = (computed_until - epoch_end) * 1e3;
            if (g_waits)
                errs += MT_CHECK(margin_ms < 0,
                                 "%s: the epoch ended %.1f ms before the target stopped "
                                 "computing: it did not hold the epoch up",
                                 kNames[pattern], margin_ms);
            else
                errs += MT_CHECK(margin_ms > 0,
                                 "%s: the epoch ended %.1f ms after the target stopped "
                                 "computing: nobody served the computing target",
                                 kNames[pattern], -margin_ms);
        }
        if (rank == 1) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            long long first;
            memcpy(&first, mem, sizeof first);
            if (pattern == 0)
                errs += MT_CHECK(first == 1, "accumulate left %lld, expected 1", first);
            if (pattern == 1) {
                errs += MT_VERIFY("the Put", mem, kBytes, seed);
                /* Back to the accumulated 1 for the fetch and add. */
                memset(mem, 0, kBytes);
                memcpy(mem, &one, sizeof one);
            }
            if (pattern == 2)
                errs += MT_CHECK(first == 2, "fetch and add left %lld, expected 2", first);
            MPI_Win_unlock(1, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(out);
    return stats_finish(errs, 0, check_counters);
}
