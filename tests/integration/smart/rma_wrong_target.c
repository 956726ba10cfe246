/*
 * The futile wake-up of the thesis' one-sided SmartInterrupts (an origin
 * with several targets, woken by a target it does not wait for), and its
 * removal. Rank 0 requests shared locks on ranks 1 and 2, each of which
 * holds an exclusive lock on itself, puts 256 KiB to rank 2 only, and
 * computes 300 ms. Rank 1 releases its lock (and so grants rank 0's) after
 * 50 ms: nothing waits for that grant. Rank 2 releases after 150 ms: the Put
 * waits for it.
 *
 * With one flag per peer (SI_RMA_ICB=peers, the default) rank 0 awaits rank
 * 2 only: one wake-up per round, none futile. With the thesis' single flag
 * (SI_RMA_ICB=single) rank 1's grant wakes rank 0 too, for nothing: the
 * check expects futile wake-ups, which is what the per-peer flags remove.
 * Three processes exactly; the others of a larger job take no part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kBytes = 256 << 10, kRounds = 3 };

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    if (nranks < 3) return 0;
    const long long started = stats_counter(0, "rma_started_in_background");
    const long long wakeups = stats_counter(0, "wakeups");
    const long long futile = stats_counter(0, "futile_wakeups");
    printf("rank 0: %lld wake-ups, %lld futile, %lld operations started in the background\n",
           wakeups, futile, started);
    int errs = MT_CHECK(started >= kRounds,
                        "rank 0: %lld Puts started in the background, expected one per round",
                        started);
    const char* icb = getenv("SI_RMA_ICB");
    if (icb != NULL && strcmp(icb, "single") == 0)
        return errs + MT_CHECK(futile >= 1,
                               "rank 0: no futile wake-up with the single ICB: the scenario did "
                               "not arise");
    return errs + MT_CHECK(futile == 0, "rank 0: %lld futile wake-ups with per-peer flags", futile);
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* mem = NULL;
    MPI_Win win;
    MPI_Win_allocate(kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    unsigned char* out = mtest_malloc(kBytes);
    for (int round = 0; round < kRounds && size >= 3; ++round) {
        const unsigned seed = 21u + (unsigned)round;
        if (rank == 1 || rank == 2) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            mtest_fill(out, kBytes, seed);
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
            MPI_Put(out, kBytes, MPI_BYTE, 2, 0, kBytes, MPI_BYTE, win);
            work_until(0.3, NULL, NULL);
            MPI_Win_unlock(2, win);
            MPI_Win_unlock(1, win);
        } else if (rank == 1 || rank == 2) {
            usleep(rank == 1 ? 50 * 1000 : 150 * 1000);
            MPI_Win_unlock(rank, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 2) {
            MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
            errs += MT_VERIFY("the Put", mem, kBytes, seed);
            MPI_Win_unlock(2, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    free(out);
    return stats_finish(errs, 0, check_counters);
}
