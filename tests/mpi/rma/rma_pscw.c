/*
 * General active-target synchronization (MPI 3.1, section 11.5.2):
 * MPI_Win_post / MPI_Win_wait open and close an exposure epoch for a group of
 * origins, MPI_Win_start / MPI_Win_complete an access epoch to a group of
 * targets, and MPI_Win_test is the nonblocking MPI_Win_wait: it returns
 * flag 0 while an origin of the group has not completed, and 1 once the
 * epoch is over (after which the puts are visible in the target's memory).
 * Shapes: pairs (each even rank exposes to the next odd rank), one target
 * with every rank as an origin, one origin with every rank as a target, all
 * with groups from MPI_Group_incl. Every shape repeats its epochs 20 times
 * with new data, so that an epoch's end that leaks into the next one, or a
 * post matched with the wrong start, shows up as stale data.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kIterations = 20, kTagHold = 7 };

static int g_rank, g_size;
static MPI_Group g_world_group;

static MPI_Group group_of(int count, const int* ranks) {
    MPI_Group group;
    MPI_Group_incl(g_world_group, count, ranks, &group);
    return group;
}

static MPI_Group everyone(void) {
    int* ranks = mtest_malloc(sizeof(int) * (size_t)g_size);
    for (int r = 0; r < g_size; ++r) ranks[r] = r;
    MPI_Group group = group_of(g_size, ranks);
    free(ranks);
    return group;
}

/* Ends an exposure epoch: MPI_Win_wait in even iterations, MPI_Win_test
 * polled until it reports the end in odd ones. The poll is an MPI call, so
 * it drives progress while the origins finish. */
static void end_exposure(MPI_Win win, int iteration) {
    if (iteration % 2 == 0) {
        MPI_Win_wait(win);
        return;
    }
    int flag = 0;
    while (!flag) MPI_Win_test(win, &flag);
}

static unsigned seed_of(int bytes, int iteration, int rank) {
    return (unsigned)bytes * 7u + (unsigned)iteration * 131u + (unsigned)rank;
}

/* Each window holds two regions of `bytes`: the origin puts into the first
 * and gets the second, which the target refills before every post. In
 * iteration 1 the origin holds back its MPI_Win_complete until the target
 * has seen MPI_Win_test return flag 0. */
static int pairs(int bytes) {
    int errs = 0;
    const int is_target = g_rank % 2 == 0 && g_rank + 1 < g_size;
    const int is_origin = g_rank % 2 == 1;
    const int partner = is_target ? g_rank + 1 : g_rank - 1;
    unsigned char* mem = NULL;
    MPI_Win win;
    /* A multiple of 16 bytes: MPICH 4.0 misplaces the windows of MPI_Win_allocate
     * otherwise (see testlist). */
    MPI_Win_allocate((2 * (MPI_Aint)bytes + 15) / 16 * 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    unsigned char* out = mtest_malloc((size_t)bytes);
    unsigned char* in = mtest_malloc((size_t)bytes);
    MPI_Group peer = MPI_GROUP_NULL;
    if (is_target || is_origin) peer = group_of(1, &partner);

    for (int it = 0; it < kIterations; ++it) {
        if (is_target) {
            mtest_fill(mem + bytes, (size_t)bytes, seed_of(bytes, it, g_rank));
            MPI_Win_post(peer, 0, win);
            if (it == 1) {
                int flag = 1;
                MPI_Win_test(win, &flag);
                errs += MT_CHECK(!flag, "MPI_Win_test: flag 1 before the origin completed");
                MPI_Send(NULL, 0, MPI_BYTE, partner, kTagHold, MPI_COMM_WORLD);
            }
            end_exposure(win, it);
            errs +=
                MT_VERIFY("put under post/start", mem, (size_t)bytes, seed_of(bytes, it, partner));
        } else if (is_origin) {
            mtest_fill(out, (size_t)bytes, seed_of(bytes, it, g_rank));
            memset(in, 0, (size_t)bytes);
            MPI_Win_start(peer, 0, win);
            MPI_Put(out, bytes, MPI_BYTE, partner, 0, bytes, MPI_BYTE, win);
            MPI_Get(in, bytes, MPI_BYTE, partner, bytes, bytes, MPI_BYTE, win);
            if (it == 1)
                MPI_Recv(NULL, 0, MPI_BYTE, partner, kTagHold, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Win_complete(win);
            errs +=
                MT_VERIFY("get under post/start", in, (size_t)bytes, seed_of(bytes, it, partner));
        }
    }
    if (peer != MPI_GROUP_NULL) MPI_Group_free(&peer);
    MPI_Win_free(&win);
    free(out);
    free(in);
    return errs;
}

/* Rank 0 exposes to every rank, itself included; each puts its rank into
 * its own slot of rank 0's window. */
static int many_origins(void) {
    int errs = 0;
    int* slots = NULL;
    MPI_Win win;
    MPI_Win_allocate(g_rank == 0 ? (MPI_Aint)sizeof(int) * g_size : 0, sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &slots, &win);
    MPI_Group origins = everyone();
    const int zero = 0;
    MPI_Group target = group_of(1, &zero);
    for (int it = 0; it < kIterations; ++it) {
        const int value = it * 100 + g_rank;
        if (g_rank == 0) {
            for (int r = 0; r < g_size; ++r) slots[r] = -1;
            MPI_Win_post(origins, 0, win);
        }
        MPI_Win_start(target, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, g_rank, 1, MPI_INT, win);
        MPI_Win_complete(win);
        if (g_rank == 0) {
            end_exposure(win, it);
            for (int r = 0; r < g_size; ++r)
                errs += MT_CHECK(slots[r] == it * 100 + r,
                                 "iteration %d: slot %d of rank 0 is %d, expected %d", it, r,
                                 slots[r], it * 100 + r);
        }
    }
    MPI_Group_free(&origins);
    MPI_Group_free(&target);
    MPI_Win_free(&win);
    return errs;
}

/* The last rank accesses every rank, itself included, in one epoch: it puts
 * into slot 0 of each and gets slot 1, which each target sets before it
 * posts. */
static int many_targets(void) {
    int errs = 0;
    const int origin = g_size - 1;
    int* slots = NULL;
    MPI_Win win;
    /* 4 slots, 2 used: MPICH 4.0.2 misplaces windows whose size is not a
     * multiple of 16 bytes (see rma_win.c). */
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slots, &win);
    MPI_Group origin_group = group_of(1, &origin);
    MPI_Group targets = everyone();
    int* out = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* in = mtest_malloc(sizeof(int) * (size_t)g_size);
    for (int it = 0; it < kIterations; ++it) {
        slots[0] = -1;
        slots[1] = it * 1000 + g_rank;
        MPI_Win_post(origin_group, 0, win);
        if (g_rank == origin) {
            MPI_Win_start(targets, 0, win);
            for (int t = 0; t < g_size; ++t) {
                out[t] = it * 10000 + t;
                in[t] = -1;
                MPI_Put(&out[t], 1, MPI_INT, t, 0, 1, MPI_INT, win);
                MPI_Get(&in[t], 1, MPI_INT, t, 1, 1, MPI_INT, win);
            }
            MPI_Win_complete(win);
            for (int t = 0; t < g_size; ++t)
                errs += MT_CHECK(in[t] == it * 1000 + t,
                                 "iteration %d: got %d from rank %d, expected %d", it, in[t], t,
                                 it * 1000 + t);
        }
        end_exposure(win, it);
        errs += MT_CHECK(slots[0] == it * 10000 + g_rank, "iteration %d: slot 0 is %d, expected %d",
                         it, slots[0], it * 10000 + g_rank);
    }
    MPI_Group_free(&origin_group);
    MPI_Group_free(&targets);
    MPI_Win_free(&win);
    free(out);
    free(in);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_group(MPI_COMM_WORLD, &g_world_group);
    /* 1 B to 4 MiB: one byte, a word, past the eager limit, large. */
    int errs = 0;
    const int sizes[] = {1, 8, 65536, 1 << 20, 4 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) errs += pairs(sizes[i]);
    errs += many_origins();
    errs += many_targets();
    MPI_Group_free(&g_world_group);
    return mtest_finish(errs);
}
