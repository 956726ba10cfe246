/*
 * Passive-target communication (MPI 3.1, sections 11.5.3 to 11.5.5 and
 * 11.7): MPI_Win_lock / MPI_Win_unlock, exclusive and shared,
 * MPI_Win_lock_all / MPI_Win_unlock_all, and the flushes. An exclusive lock
 * must really exclude: every rank increments a counter on rank 0 with a
 * non-atomic Get, add, Put 200 times, and a single lost update shows. Shared
 * locks must really share: all ranks hold one on rank 0 at the same time,
 * across a barrier. MPI_Win_flush and MPI_Win_flush_all complete operations
 * at the target while the epoch goes on (a Get after the flush sees the
 * Put, and so does the target itself, after MPI_Win_sync under a lock on
 * its own window); MPI_Win_flush_local and flush_local_all complete them at
 * the origin only, so the origin buffer can be reused at once without
 * changing what arrives. Also a lock on one's own window, mixing local
 * stores and RMA, and transfers of 8 bytes and 1 MiB.
 *
 * No rank waits by spinning on its own memory: MPICH makes passive-target
 * progress only inside MPI calls, so waiting ranks sit in MPI_Barrier.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kIncrements = 200, kGuard = 64, kGuardByte = 0xEE };

static int g_rank, g_size, g_right, g_left;

/* Sets this rank's part of `win` to `value` in every int slot: a local store
 * under an exclusive lock of one's own window, then a barrier so that no
 * origin reaches the memory before it is set. */
static void set_slots(MPI_Win win, int* slots, int count, int value) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_rank, 0, win);
    for (int i = 0; i < count; ++i) slots[i] = value;
    MPI_Win_unlock(g_rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int exclusive_counter(void) {
    int errs = 0, value = -1;
    int* counter = NULL;
    MPI_Win win;
    MPI_Win_allocate(g_rank == 0 ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &counter, &win);
    set_slots(win, counter, g_rank == 0, 0);
    for (int i = 0; i < kIncrements; ++i) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        ++value;
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    errs += MT_CHECK(value == kIncrements * g_size,
                     "counter under exclusive locks is %d, expected %d: updates were lost", value,
                     kIncrements * g_size);
    MPI_Win_free(&win);
    return errs;
}

/* Every rank holds a shared lock on rank 0 (and one on its right neighbour)
 * through a barrier. A "shared" lock that excluded the others would keep some
 * rank in its flush, out of the barrier, for ever. */
static int shared_concurrent(void) {
    int errs = 0;
    enum { kBytes = 1024 };
    /* Filled before MPI_Win_create: no synchronization is needed to read it. */
    unsigned char* mem = mtest_malloc(kBytes);
    mtest_fill(mem, kBytes, 500u + (unsigned)g_rank);
    unsigned char from_zero[kBytes], from_right[kBytes];
    MPI_Win win;
    MPI_Win_create(mem, kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const int two_targets = g_right != 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    if (two_targets) MPI_Win_lock(MPI_LOCK_SHARED, g_right, 0, win);
    MPI_Get(from_zero, kBytes, MPI_BYTE, 0, 0, kBytes, MPI_BYTE, win);
    MPI_Get(from_right, kBytes, MPI_BYTE, g_right, 0, kBytes, MPI_BYTE, win);
    MPI_Win_flush(0, win);
    if (two_targets) MPI_Win_flush(g_right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    errs += MT_VERIFY("read of rank 0 under a shared lock", from_zero, kBytes, 500u);
    errs += MT_VERIFY("read of the right neighbour under a shared lock", from_right, kBytes,
                      500u + (unsigned)g_right);
    if (two_targets) MPI_Win_unlock(g_right, win);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    free(mem);
    return errs;
}

/* Window layout of flushes(), in ints: slots 0-1 are written by the left
 * neighbour alone; slot 2+r and slot 2+size+r by rank r alone. Rounded up
 * to 16 bytes, which MPICH 4.0.2's MPI_Win_allocate needs (see rma_win.c). */
static int flushes(void) {
    int errs = 0, got = -1;
    const int slots = (2 + 2 * g_size + 3) / 4 * 4;
    int* mem = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)sizeof(int) * slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    set_slots(win, mem, slots, -1);

    /* One target. */
    const int put_value = 100 + g_rank;
    int buffer = 200 + g_rank;
    MPI_Win_lock(MPI_LOCK_SHARED, g_right, 0, win);
    MPI_Put(&put_value, 1, MPI_INT, g_right, 0, 1, MPI_INT, win);
    MPI_Win_flush(g_right, win);
    MPI_Get(&got, 1, MPI_INT, g_right, 0, 1, MPI_INT, win);
    MPI_Win_flush(g_right, win);
    errs += MT_CHECK(got == put_value, "Get after MPI_Win_flush: %d, expected %d", got, put_value);
    MPI_Put(&buffer, 1, MPI_INT, g_right, 1, 1, MPI_INT, win);
    MPI_Win_flush_local(g_right, win);
    buffer = -7; /* reusable now; must not reach the target */
    MPI_Win_flush(g_right, win);
    MPI_Get(&got, 1, MPI_INT, g_right, 1, 1, MPI_INT, win);
    MPI_Win_flush(g_right, win);
    errs += MT_CHECK(got == 200 + g_rank, "Get after MPI_Win_flush_local: %d, expected %d", got,
                     200 + g_rank);
    /* The target looks while its left neighbour's epoch is still open. With
     * one rank that epoch is on this very window, and covers the sync. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_right != g_rank) MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);
    MPI_Win_sync(win);
    errs += MT_CHECK(mem[0] == 100 + g_left && mem[1] == 200 + g_left,
                     "target sees %d %d after the flushes, expected %d %d", mem[0], mem[1],
                     100 + g_left, 200 + g_left);
    if (g_right != g_rank) MPI_Win_unlock(g_rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock(g_right, win);

    /* Every target. */
    int* values = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* gets = mtest_malloc(sizeof(int) * (size_t)g_size);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < g_size; ++t) {
        values[t] = 1000 * g_rank + t;
        MPI_Put(&values[t], 1, MPI_INT, t, 2 + g_rank, 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < g_size; ++t) MPI_Get(&gets[t], 1, MPI_INT, t, 2 + g_rank, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    for (int t = 0; t < g_size; ++t)
        errs +=
            MT_CHECK(gets[t] == 1000 * g_rank + t, "Get from %d after flush_all: %d, expected %d",
                     t, gets[t], 1000 * g_rank + t);
    for (int t = 0; t < g_size; ++t) {
        values[t] = 5000 * g_rank + t;
        MPI_Put(&values[t], 1, MPI_INT, t, 2 + g_size + g_rank, 1, MPI_INT, win);
    }
    MPI_Win_flush_local_all(win);
    for (int t = 0; t < g_size; ++t) values[t] = -9;
    MPI_Win_flush_all(win);
    for (int t = 0; t < g_size; ++t)
        MPI_Get(&gets[t], 1, MPI_INT, t, 2 + g_size + g_rank, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    for (int t = 0; t < g_size; ++t)
        errs += MT_CHECK(gets[t] == 5000 * g_rank + t,
                         "Get from %d after flush_local_all: %d, expected %d", t, gets[t],
                         5000 * g_rank + t);
    /* lock_all includes this rank's own window. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < g_size; ++r) {
        errs += MT_CHECK(mem[2 + r] == 1000 * r + g_rank, "slot of rank %d is %d, expected %d", r,
                         mem[2 + r], 1000 * r + g_rank);
        errs += MT_CHECK(mem[2 + g_size + r] == 5000 * r + g_rank,
                         "second slot of rank %d is %d, expected %d", r, mem[2 + g_size + r],
                         5000 * r + g_rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    free(values);
    free(gets);
    MPI_Win_free(&win);
    return errs;
}

/* Under an exclusive lock of its own window a rank mixes local stores and
 * loads (made consistent with MPI_Win_sync) with Put and Get to itself. */
static int lock_self(void) {
    int errs = 0;
    double* mem = NULL;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    const double value = 1.5 * (g_rank + 1);
    double read = 0.0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_rank, 0, win);
    mem[0] = value;
    MPI_Win_sync(win);
    MPI_Get(&read, 1, MPI_DOUBLE, g_rank, 0, 1, MPI_DOUBLE, win);
    MPI_Win_flush(g_rank, win);
    errs += MT_CHECK(read == value, "Get of a local store: %g, expected %g", read, value);
    MPI_Put(&value, 1, MPI_DOUBLE, g_rank, 3, 1, MPI_DOUBLE, win);
    MPI_Win_flush(g_rank, win);
    MPI_Win_sync(win);
    errs +=
        MT_CHECK(mem[3] == value, "local load after a Put to self: %g, expected %g", mem[3], value);
    MPI_Win_unlock(g_rank, win);
    /* Shared, too. */
    MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);
    MPI_Get(&read, 1, MPI_DOUBLE, g_rank, 3, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(g_rank, win);
    errs +=
        MT_CHECK(read == value, "Get under a shared lock of self: %g, expected %g", read, value);
    MPI_Win_free(&win);
    return errs;
}

/* Put to the right neighbour under an exclusive lock; once everyone has,
 * get it back under a shared one. Guards around the target range. */
static int transfer(int bytes) {
    int errs = 0;
    const size_t span = (size_t)bytes + 2 * kGuard;
    unsigned char* mem = mtest_malloc(span);
    memset(mem, kGuardByte, span);
    MPI_Win win;
    MPI_Win_create(mem, (MPI_Aint)span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    unsigned char* out = mtest_malloc((size_t)bytes);
    unsigned char* in = mtest_malloc((size_t)bytes);
    const unsigned seed = (unsigned)bytes + 17u * (unsigned)g_rank;
    mtest_fill(out, (size_t)bytes, seed);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_right, 0, win);
    MPI_Put(out, bytes, MPI_BYTE, g_right, kGuard, bytes, MPI_BYTE, win);
    MPI_Win_unlock(g_right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, g_right, 0, win);
    MPI_Get(in, bytes, MPI_BYTE, g_right, kGuard, bytes, MPI_BYTE, win);
    MPI_Win_unlock(g_right, win);
    errs += MT_VERIFY("Get under a lock", in, (size_t)bytes, seed);
    MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);
    MPI_Win_sync(win);
    errs += MT_VERIFY("Put under a lock", mem + kGuard, (size_t)bytes,
                      (unsigned)bytes + 17u * (unsigned)g_left);
    errs += MT_VERIFY_VALUE("guard before", mem, kGuard, kGuardByte);
    errs += MT_VERIFY_VALUE("guard after", mem + kGuard + bytes, kGuard, kGuardByte);
    MPI_Win_unlock(g_rank, win);
    MPI_Win_free(&win);
    free(mem);
    free(out);
    free(in);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_right = (g_rank + 1) % g_size;
    g_left = (g_rank + g_size - 1) % g_size;
    int errs = exclusive_counter();
    errs += shared_concurrent();
    errs += flushes();
    errs += lock_self();
    const int sizes[] = {1, 8, 65536, 1 << 20, 4 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) errs += transfer(sizes[i]);
    return mtest_finish(errs);
}
