/*
 * The reordering flags of seed 002 (window hints under the paper's names):
 * with one on, an epoch may activate while an earlier one of the named kinds
 * is closed but not complete. Rank 0 opens an epoch with a late peer (rank
 * 1) and closes it without waiting, then an epoch with a prompt peer (rank
 * 2). The late peer does its part only when rank 0 says so, which rank 0
 * does after the second epoch completed: with the flag on this finishes,
 * without it it could not (the second epoch waits for the first), so with
 * the flags off rank 0 checks instead that the second epoch stays incomplete
 * while it polls, then releases the late peer. Every pair of kinds (access
 * after access, access after exposure, exposure after exposure, exposure
 * after access); MPI_Win_create's info and MPI_Win_set_info/get_info.
 * This runtime only: MPICH has no MPIX_Win_i* calls and ignores the hints.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

enum { kX = 0, kLate = 1, kPrompt = 2, kGoTag = 7, kPollMs = 100 };
enum Kind { kAccess, kExposure };

static const char* const kKeys[2][2] = {
    /* [second][first] */
    {"MPI_WIN_ACCESS_AFTER_ACCESS_REORDER", "MPI_WIN_ACCESS_AFTER_EXPOSURE_REORDER"},
    {"MPI_WIN_EXPOSURE_AFTER_ACCESS_REORDER", "MPI_WIN_EXPOSURE_AFTER_EXPOSURE_REORDER"},
};

static int g_rank;
static MPI_Group g_world;

static MPI_Group only(int rank) {
    MPI_Group group;
    MPI_Group_incl(g_world, 1, &rank, &group);
    return group;
}

/* Opens and closes, without waiting, an epoch of `kind` with `peer`; an
 * access epoch puts `value` into the peer's slot for this rank. */
static MPI_Request open_and_close(enum Kind kind, int peer, const int* value, MPI_Win win) {
    MPI_Group group = only(peer);
    MPI_Request open, close;
    if (kind == kAccess) {
        MPIX_Win_istart(group, 0, win, &open);
        MPI_Put(value, 1, MPI_INT, peer, g_rank, 1, MPI_INT, win);
        MPIX_Win_icomplete(win, &close);
    } else {
        MPIX_Win_ipost(group, 0, win, &open);
        MPIX_Win_iwait(win, &close);
    }
    MPI_Wait(&open, MPI_STATUS_IGNORE);
    MPI_Group_free(&group);
    return close;
}

/* The peer's side of rank 0's epoch of `kind`, blocking; checks what rank 0
 * put, or puts `value` for rank 0 to check. */
static int counterpart(enum Kind kind, int value, MPI_Win win, const int* base) {
    MPI_Group group = only(kX);
    int errs = 0;
    if (kind == kAccess) {
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
        errs += MT_EQ(base[kX], value);
    } else {
        MPI_Win_start(group, 0, win);
        MPI_Put(&value, 1, MPI_INT, kX, g_rank, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&group);
    return errs;
}

/* One scenario: rank 0's epochs `first` (with the late peer) then `second`
 * (with the prompt one); `reordered` says whether the flag for the pair is on. */
static int scenario(enum Kind first, enum Kind second, int reordered, int value, MPI_Win win,
                    int* base) {
    int errs = 0;
    const int late_value = value, prompt_value = value + 1;
    if (g_rank == kX) {
        MPI_Request first_done = open_and_close(first, kLate, &late_value, win);
        MPI_Request second_done = open_and_close(second, kPrompt, &prompt_value, win);
        if (reordered) {
            MPI_Wait(&second_done, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            const double until = MPI_Wtime() + kPollMs / 1000.0;
            while (!flag && MPI_Wtime() < until) MPI_Test(&second_done, &flag, MPI_STATUS_IGNORE);
            errs += MT_CHECK(!flag,
                             "%s: with the flag off, the second epoch completed while "
                             "the first still waited for its late peer",
                             kKeys[second][first]);
        }
        MPI_Send(NULL, 0, MPI_INT, kLate, kGoTag, MPI_COMM_WORLD);
        MPI_Wait(&first_done, MPI_STATUS_IGNORE);
        if (!reordered) MPI_Wait(&second_done, MPI_STATUS_IGNORE);
        /* rank 0's exposures: what the peers put is here now */
        if (first == kExposure) errs += MT_EQ(base[kLate], late_value);
        if (second == kExposure) errs += MT_EQ(base[kPrompt], prompt_value);
    } else if (g_rank == kLate) {
        MPI_Recv(NULL, 0, MPI_INT, kX, kGoTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errs += counterpart(first, late_value, win, base);
    } else if (g_rank == kPrompt) {
        errs += counterpart(second, prompt_value, win, base);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return errs;
}

/* Sets exactly one flag (or none: key NULL) on every member. */
static void set_only(const char* key, MPI_Win win) {
    MPI_Info info;
    MPI_Info_create(&info);
    for (int s = 0; s < 2; ++s)
        for (int f = 0; f < 2; ++f)
            MPI_Info_set(info, kKeys[s][f],
                         key != NULL && !strcmp(key, kKeys[s][f]) ? "true" : "false");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

static int reported(const char* key, MPI_Win win) {
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, key, MPI_MAX_INFO_VAL - 1, value, &flag);
    MPI_Info_free(&used);
    return flag && !strcmp(value, "true");
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &g_world);
    int errs = 0;
    int base[4] = {0, 0, 0, 0};
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "MPI_WIN_ACCESS_AFTER_ACCESS_REORDER", "1");
    MPI_Win win;
    MPI_Win_create(base, sizeof base, sizeof(int), info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    errs += MT_CHECK(reported("MPI_WIN_ACCESS_AFTER_ACCESS_REORDER", win),
                     "MPI_Win_get_info does not report the flag MPI_Win_create was given");
    errs += MT_CHECK(!reported("MPI_WIN_EXPOSURE_AFTER_ACCESS_REORDER", win),
                     "MPI_Win_get_info reports a flag nobody set");
    if (size >= 3) {
        /* the flag from MPI_Win_create */
        errs += scenario(kAccess, kAccess, 1, 100, win, base);
        int value = 200;
        for (int second = 0; second < 2; ++second)
            for (int first = 0; first < 2; ++first) {
                set_only(kKeys[second][first], win);
                errs += MT_CHECK(reported(kKeys[second][first], win),
                                 "MPI_Win_get_info does not report %s", kKeys[second][first]);
                errs += scenario((enum Kind)first, (enum Kind)second, 1, value, win, base);
                set_only(NULL, win);
                errs += scenario((enum Kind)first, (enum Kind)second, 0, value + 50, win, base);
                value += 100;
            }
    }
    MPI_Win_free(&win);
    MPI_Group_free(&g_world);
    return mtest_finish(errs);
}
