/*
 * One-sided operations move while their origin computes: rank 0 opens an
 * access epoch towards rank 1, issues a 1 MiB Put and computes 300 ms without
 * calling MPI, while rank 1 opens the matching exposure (PSCW), releases the
 * lock it holds (exclusive lock), or reaches the fence that opens the epoch
 * 100 ms late (rank 0 opens it with MPIX_Win_ifence, as a blocking fence
 * would wait for rank 1 itself). The Put is
 * recorded in its epoch until the target's grant arrives; then only a
 * background pass can start it (SI_PROGRESS=thread), counted in
 * rma_started_in_background on rank 0, which must be > 0 in every pattern
 * (one per pattern at least); the data must be there after the epoch.
 * In SI_PROGRESS=smart a helper wakes rank 0's interrupt thread for the
 * target's signal: at least one wake-up per pattern, none of them futile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kBytes = 1 << 20, kPatterns = 3 };

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    if (nranks < 2) return 0;
    const long long background = stats_counter(0, "rma_started_in_background");
    printf("rank 0: %lld RMA operations started in the background\n", background);
    int errs = MT_CHECK(background >= kPatterns,
                        "rank 0: %lld operations started in the background, expected one per "
                        "pattern (%d)", background, kPatterns);
    const char* mode = getenv("SI_PROGRESS");
    if (mode == NULL || strcmp(mode, "smart") != 0) return errs;
    /* SmartInterrupts wakes rank 0 for the target's signal, and only for it. */
    const long long wakeups = stats_counter(0, "wakeups");
    const long long futile = stats_counter(0, "futile_wakeups");
    printf("rank 0: %lld wake-ups, %lld futile\n", wakeups, futile);
    errs += MT_CHECK(wakeups >= kPatterns, "rank 0: %lld wake-ups, expected one per pattern",
                     wakeups);
    errs += MT_CHECK(futile == 0, "rank 0: %lld futile wake-ups", futile);
    return errs;
}

static MPI_Group only(int rank) {
    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &rank, &group);
    MPI_Group_free(&world);
    return group;
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
    if (size >= 2 && rank < 2) {
        MPI_Group peer = only(1 - rank);
        for (int pattern = 0; pattern < kPatterns; ++pattern) {
            const unsigned seed = 11u + (unsigned)pattern;
            mtest_fill(out, kBytes, seed);
            if (pattern == 1 && rank == 1) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                /* A blocking fence would wait for rank 1 right here: the
                 * nonblocking one opens the epoch and returns. */
                MPI_Request opening = MPI_REQUEST_NULL;
                if (pattern == 0) MPI_Win_start(peer, 0, win);
                if (pattern == 1) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                if (pattern == 2) MPIX_Win_ifence(0, win, &opening);
                MPI_Put(out, kBytes, MPI_BYTE, 1, 0, kBytes, MPI_BYTE, win);
                work_until(0.3, NULL, NULL);
                MPI_Wait(&opening, MPI_STATUS_IGNORE);
                if (pattern == 0) MPI_Win_complete(win);
                if (pattern == 1) MPI_Win_unlock(1, win);
                if (pattern == 2) MPI_Win_fence(0, win);
            } else {
                usleep(100 * 1000);
                if (pattern == 0) {
                    MPI_Win_post(peer, 0, win);
                    MPI_Win_wait(win);
                }
                if (pattern == 1) MPI_Win_unlock(1, win);
                if (pattern == 2) {
                    MPI_Win_fence(0, win);
                    MPI_Win_fence(0, win);
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 1) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                errs += MT_VERIFY("the Put", mem, kBytes, seed);
                MPI_Win_unlock(1, win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Group_free(&peer);
    } else {
        for (int pattern = 0; pattern < kPatterns; ++pattern) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (pattern == 2) {
                MPI_Win_fence(0, win);
                MPI_Win_fence(0, win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Win_free(&win);
    free(out);
    return stats_finish(errs, 0, check_counters);
}
