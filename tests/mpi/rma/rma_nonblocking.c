/*
 * Nonblocking epochs (seed 002, this runtime's MPIX_Win_i* calls): openings
 * complete at once, closings complete later; epochs opened behind a closed
 * one are deferred, their operations recorded and replayed in order; blocking
 * and nonblocking calls mix. Then the paper's five inefficiency patterns,
 * each run blocking and nonblocking: a peer delays its part by kDelayMs and
 * the victim's time inside the synchronization calls is measured. Blocking,
 * the delay must show (at least half of it: the pattern is real); with
 * nonblocking epochs the victim must get out in under a tenth of it. A
 * blocking fence with MPI_MODE_NOPRECEDE must not wait for a late member.
 * This runtime only: MPICH has no MPIX_Win_i* calls.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

enum { kDelayMs = 200, kEpochs = 8 };

static int g_rank, g_size;
static MPI_Group g_world;

static MPI_Group only(int rank) {
    MPI_Group group;
    MPI_Group_incl(g_world, 1, &rank, &group);
    return group;
}

static int opening_completes_at_once(MPI_Win win) {
    int errs = 0, flag = 0;
    MPI_Request open, close;
    MPIX_Win_ilock(MPI_LOCK_SHARED, 0, 0, win, &open);
    MPI_Test(&open, &flag, MPI_STATUS_IGNORE);
    errs += MT_CHECK(flag, "the request of MPIX_Win_ilock is not complete at once");
    MPIX_Win_iunlock(0, win, &close);
    MPI_Wait(&close, MPI_STATUS_IGNORE);
    return errs;
}

/* Back-to-back exclusive epochs towards one target: all but the first are
 * deferred behind a closed one; each Put is recorded and replayed. */
static int deferred_lock_epochs(MPI_Win win, int* base) {
    int errs = 0;
    int values[kEpochs];
    MPI_Request requests[2 * kEpochs];
    const int target = (g_rank + 1) % g_size;
    for (int e = 0; e < kEpochs; ++e) {
        values[e] = 1000 * g_rank + e;
        MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, target, 0, win, &requests[2 * e]);
        MPI_Put(&values[e], 1, MPI_INT, target, g_rank, 1, MPI_INT, win);
        MPIX_Win_iunlock(target, win, &requests[2 * e + 1]);
    }
    MPI_Waitall(2 * kEpochs, requests, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);
    const int from = (g_rank + g_size - 1) % g_size;
    errs += MT_EQ(base[from], 1000 * from + kEpochs - 1);
    MPI_Win_unlock(g_rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    return errs;
}

/* Nonblocking fences in a row, a Put in each epoch: the last value stays. */
static int fences_in_a_row(MPI_Win win, int* base) {
    int errs = 0;
    int values[kEpochs];
    MPI_Request requests[kEpochs + 1];
    const int target = (g_rank + 1) % g_size;
    MPIX_Win_ifence(0, win, &requests[0]);
    for (int e = 0; e < kEpochs; ++e) {
        values[e] = 100 * g_rank + e;
        MPI_Put(&values[e], 1, MPI_INT, target, g_rank, 1, MPI_INT, win);
        MPIX_Win_ifence(e + 1 == kEpochs ? MPI_MODE_NOSUCCEED : 0, win, &requests[e + 1]);
    }
    MPI_Waitall(kEpochs + 1, requests, MPI_STATUSES_IGNORE);
    const int from = (g_rank + g_size - 1) % g_size;
    errs += MT_EQ(base[from], 100 * from + kEpochs - 1);
    MPI_Barrier(MPI_COMM_WORLD);
    return errs;
}

/* PSCW with every closing nonblocking, completed with MPI_Test. */
static int pscw_tested(MPI_Win win, int* base) {
    int errs = 0;
    const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
    MPI_Group to = only(next), from = only(prev);
    MPI_Request requests[4];
    const int value = 7 + g_rank;
    MPIX_Win_ipost(from, 0, win, &requests[0]);
    MPIX_Win_istart(to, 0, win, &requests[1]);
    MPI_Put(&value, 1, MPI_INT, next, g_size + 1, 1, MPI_INT, win);
    MPIX_Win_icomplete(win, &requests[2]);
    MPIX_Win_iwait(win, &requests[3]);
    int done = 0;
    while (!done) MPI_Testall(4, requests, &done, MPI_STATUSES_IGNORE);
    errs += MT_EQ(base[g_size + 1], 7 + prev);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Barrier(MPI_COMM_WORLD);
    return errs;
}

/* The blocking MPI_Win_fence(MPI_MODE_NOPRECEDE) has nothing to complete: it
 * returns before rank 1 reaches its fence kDelayMs late, and the Put issued
 * after it waits for that fence as a recorded operation. */
static int fence_noprecede_returns_at_once(MPI_Win win, int* base) {
    int errs = 0;
    if (g_size < 2) return 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 1) mtest_sleep_ms(kDelayMs);
    const double start = MPI_Wtime();
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    const double opening = MPI_Wtime() - start;
    const int value = 300 + g_rank;
    if (g_rank == 0) MPI_Put(&value, 1, MPI_INT, 1, g_size + 1, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (g_rank == 0)
        errs += MT_CHECK(opening < 0.1 * kDelayMs / 1000.0,
                         "MPI_Win_fence(MPI_MODE_NOPRECEDE) waited %.1f ms for a late member",
                         opening * 1e3);
    if (g_rank == 1)
        errs += MT_CHECK(base[g_size + 1] == 300, "the Put after the fence left %d, expected 300",
                         base[g_size + 1]);
    return errs;
}

/* ---- the inefficiency patterns (ranks 0 and 1) ------------------------------ */

enum Pattern { kLatePost, kLateComplete, kEarlyFence, kWaitAtFence, kLateUnlock, kPatterns };
static const char* const kNames[kPatterns] = {"Late Post", "Late Complete", "Early Fence",
                                              "Wait at Fence", "Late Unlock"};

static void wait_request(MPI_Request* r) { MPI_Wait(r, MPI_STATUS_IGNORE); }

/* Returns the victim's seconds inside the synchronization calls (on the
 * victim's rank; 0 elsewhere). */
static double run_pattern(enum Pattern p, int nonblocking, MPI_Win win) {
    const int value = 42;
    double victim = 0, t0;
    MPI_Request r1 = MPI_REQUEST_NULL, r2 = MPI_REQUEST_NULL;
    MPI_Group zero = only(0), one = only(1);
    if (p == kEarlyFence || p == kWaitAtFence) MPI_Win_fence(0, win);
    if (p == kLateUnlock && g_rank == 0) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    switch (p) {
        case kLatePost: /* target 1 posts late; victim: origin 0 */
            if (g_rank == 1) {
                mtest_sleep_ms(kDelayMs);
                MPI_Win_post(zero, 0, win);
                MPI_Win_wait(win);
            } else if (g_rank == 0) {
                t0 = MPI_Wtime();
                if (nonblocking) MPIX_Win_istart(one, 0, win, &r1); else MPI_Win_start(one, 0, win);
                MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                if (nonblocking) MPIX_Win_icomplete(win, &r2); else MPI_Win_complete(win);
                victim = MPI_Wtime() - t0;
            }
            break;
        case kLateComplete: /* origin 0 completes late; victim: target 1 */
            if (g_rank == 0) {
                MPI_Win_start(one, 0, win);
                MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                mtest_sleep_ms(kDelayMs);
                MPI_Win_complete(win);
            } else if (g_rank == 1) {
                t0 = MPI_Wtime();
                MPI_Win_post(zero, 0, win);
                if (nonblocking) MPIX_Win_iwait(win, &r2); else MPI_Win_wait(win);
                victim = MPI_Wtime() - t0;
            }
            break;
        case kEarlyFence: /* 1 fences early after a Put to 0, which fences late */
        case kWaitAtFence: /* the same with the Put the other way round */
            if (g_rank == 0) {
                if (p == kWaitAtFence) MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                mtest_sleep_ms(kDelayMs);
                MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
            } else if (g_rank == 1) {
                t0 = MPI_Wtime();
                if (p == kEarlyFence) MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
                if (nonblocking) MPIX_Win_ifence(MPI_MODE_NOSUCCEED, win, &r2);
                else MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
                victim = MPI_Wtime() - t0;
            } else {
                MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
            }
            break;
        case kLateUnlock: /* 0 holds its own lock long; victim: 1 wanting it */
            if (g_rank == 0) {
                mtest_sleep_ms(kDelayMs);
                MPI_Win_unlock(0, win);
            } else if (g_rank == 1) {
                t0 = MPI_Wtime();
                if (nonblocking) MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, 0, 0, win, &r1);
                else MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
                MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
                if (nonblocking) MPIX_Win_iunlock(0, win, &r2); else MPI_Win_unlock(0, win);
                victim = MPI_Wtime() - t0;
            }
            break;
        default: break;
    }
    /* The victim's own work would go here; then its requests complete. */
    if (nonblocking && victim > 0) mtest_sleep_ms(kDelayMs);
    wait_request(&r1);
    wait_request(&r2);
    MPI_Group_free(&zero);
    MPI_Group_free(&one);
    MPI_Barrier(MPI_COMM_WORLD);
    return victim;
}

static int patterns(MPI_Win win, int* base) {
    int errs = 0;
    if (g_size < 2) return 0;
    for (int p = 0; p < kPatterns; ++p) {
        const double blocking = run_pattern((enum Pattern)p, 0, win);
        const double nonblocking = run_pattern((enum Pattern)p, 1, win);
        const int victim = p == kLateComplete ? 1 : (p == kLatePost ? 0 : 1);
        if (g_rank != victim) continue;
        const double delay = kDelayMs / 1000.0;
        printf("%-14s victim delay: blocking %6.1f ms, nonblocking %6.2f ms (injected %d ms)\n",
               kNames[p], blocking * 1e3, nonblocking * 1e3, kDelayMs);
        errs += MT_CHECK(blocking > 0.5 * delay,
                         "%s: the blocking victim waited only %.1f ms; the pattern did not occur",
                         kNames[p], blocking * 1e3);
        errs += MT_CHECK(nonblocking < 0.1 * delay,
                         "%s: the nonblocking victim was delayed %.1f ms (limit %.1f ms)",
                         kNames[p], nonblocking * 1e3, 0.1 * delay * 1e3);
    }
    (void)base;
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_group(MPI_COMM_WORLD, &g_world);
    int errs = 0;
    int* base = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)((g_size + 2) * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    memset(base, 0, (size_t)(g_size + 2) * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    errs += opening_completes_at_once(win);
    errs += deferred_lock_epochs(win, base);
    errs += fences_in_a_row(win, base);
    errs += pscw_tested(win, base);
    errs += fence_noprecede_returns_at_once(win, base);
    errs += patterns(win, base);
    MPI_Win_free(&win);
    MPI_Group_free(&g_world);
    return mtest_finish(errs);
}
