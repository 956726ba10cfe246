/*
 * One-sided epochs allocate no heap memory once warmed up, on a window of
 * MPI_Win_allocate whose members share a node: the steps of a row-cyclic
 * LU factorization (apps/lu), where the owner of step k opens an access
 * epoch towards every other rank (MPI_Win_start), puts a row into each and
 * closes it (MPI_Win_complete) while the others expose their window to the
 * owner (MPI_Win_post, MPI_Win_wait); then fence epochs in which every rank
 * puts to its right neighbour. A barrier between the posts and the start
 * makes every step take the path of a target that was ready: a put towards
 * a target that has not posted yet is recorded until it does (MPI lets the
 * runtime defer it), which is a record per put, and oversubscribed ranks
 * would make that path as common as the scheduler likes. After kWarmUp
 * steps, kSteps more make fewer than kSteps / 10 allocations in the calling
 * thread (alloc_count.h): an epoch object, an operation record or a
 * closing's request per step fails.
 * The groups are made once, before, as a program that cares would. Every
 * row is checked where it lands. The MPICH build runs the same steps
 * unchecked.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "mtest.h"

enum { kInts = 256, kWarmUp = 10, kSteps = 100 };

static int value(int step, int i) {
    return step * 1000 + i;
}

/* What a step works on. */
typedef struct {
    MPI_Win win;
    int* rows; /* the window's memory: two rows */
    int me, size;
    const MPI_Group* others; /* per rank: every other rank */
    const MPI_Group* only;   /* per rank: that rank alone */
} Job;

/* Step `k` of the PSCW pattern; returns the errors it found. */
static int pscw_step(const Job* job, int k) {
    MPI_Win win = job->win;
    const int me = job->me, size = job->size;
    const MPI_Group *others = job->others, *only = job->only;
    const int owner = k % size;
    int* slot = job->rows + (k % 2) * kInts;
    int errs = 0;
    if (me == owner) {
        static int row[kInts];
        for (int i = 0; i < kInts; ++i) row[i] = value(k, i);
        errs += MT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);  /* every exposure is open */
        errs += MT_EQ(MPI_Win_start(others[owner], 0, win), MPI_SUCCESS);
        for (int peer = 0; peer < size; ++peer)
            if (peer != me)
                errs += MT_EQ(MPI_Put(row, kInts, MPI_INT, peer, (k % 2) * kInts, kInts, MPI_INT,
                                      win),
                              MPI_SUCCESS);
        errs += MT_EQ(MPI_Win_complete(win), MPI_SUCCESS);
    } else {
        errs += MT_EQ(MPI_Win_post(only[owner], 0, win), MPI_SUCCESS);
        errs += MT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
        errs += MT_EQ(MPI_Win_wait(win), MPI_SUCCESS);
        for (int i = 0; i < kInts; ++i)
            if (slot[i] != value(k, i)) {
                errs += MT_CHECK(0, "step %d: rows[%d] is %d, expected %d", k, i, slot[i],
                                 value(k, i));
                break;
            }
    }
    return errs;
}

/* A fence epoch in which every rank puts a row to its right neighbour. */
static int fence_step(const Job* job, int k) {
    MPI_Win win = job->win;
    const int* rows = job->rows;
    const int me = job->me, size = job->size;
    static int row[kInts];
    const int left = (me + size - 1) % size;
    for (int i = 0; i < kInts; ++i) row[i] = value(k, i) + me;
    int errs = MT_EQ(MPI_Put(row, kInts, MPI_INT, (me + 1) % size, kInts, kInts, MPI_INT, win),
                     MPI_SUCCESS);
    errs += MT_EQ(MPI_Win_fence(0, win), MPI_SUCCESS);
    for (int i = 0; i < kInts; ++i)
        if (rows[kInts + i] != value(k, i) + left) {
            errs += MT_CHECK(0, "fence step %d: rows[%d] is %d, expected %d", k, kInts + i,
                             rows[kInts + i], value(k, i) + left);
            break;
        }
    errs += MT_EQ(MPI_Win_fence(0, win), MPI_SUCCESS);  // the next step's puts may go
    return errs;
}

/* kWarmUp steps, then kSteps counted ones, which must allocate fewer than
 * kSteps / 10 times in this thread. */
static int warm_then_count(const char* what, int (*step)(const Job*, int), const Job* job) {
    int errs = 0;
    for (int k = 0; k < kWarmUp; ++k) errs += step(job, k);
#ifdef COUNT_ALLOCATIONS
    t_allocations = 0;
    t_counting = 1;
#endif
    for (int k = 0; k < kSteps; ++k) errs += step(job, k);
#ifdef COUNT_ALLOCATIONS
    t_counting = 0;
    errs += MT_CHECK(t_allocations < kSteps / 10,
                     "%s steps on %d ranks: %ld heap allocations in %d steps", what, job->size,
                     t_allocations, kSteps);
#endif
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int me, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* rows = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(2 * kInts * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &rows, &win);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group* others = malloc((size_t)size * sizeof *others);
    MPI_Group* only = malloc((size_t)size * sizeof *only);
    for (int r = 0; r < size; ++r) {
        MPI_Group_excl(world, 1, &r, &others[r]);
        MPI_Group_incl(world, 1, &r, &only[r]);
    }

    const Job job = {win, rows, me, size, others, only};
    errs += warm_then_count("PSCW", pscw_step, &job);
    MPI_Win_fence(0, win);
    errs += warm_then_count("fence", fence_step, &job);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    for (int r = 0; r < size; ++r) {
        MPI_Group_free(&others[r]);
        MPI_Group_free(&only[r]);
    }
    free(others);
    free(only);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    return mtest_finish(errs);
}
