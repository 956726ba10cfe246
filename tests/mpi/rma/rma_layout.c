/*
 * Target datatypes whose layout alone outgrows the owner's 16 KiB message:
 * a vector of N single ints with a stride of 2 is N runs at the target. Put,
 * Accumulate, Get_accumulate and Get with such a target, from a contiguous
 * origin, in fence epochs, at sizes around the limit (1000 runs fit, 1100
 * and 8000 do not), each checked element by element.
 */
#include <stdlib.h>

#include "mtest.h"

static int round_trip(MPI_Win win, int* base, int runs, int rank, int size) {
    int errs = 0;
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype every_other;
    MPI_Type_vector(runs, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int* values = malloc(runs * sizeof(int));
    int* fetched = malloc(runs * sizeof(int));
    for (int i = 0; i < runs; ++i) values[i] = rank * 100000 + i;
    for (int i = 0; i < 2 * runs; ++i) base[i] = -1;

    MPI_Win_fence(0, win);
    MPI_Put(values, runs, MPI_INT, right, 0, 1, every_other, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < runs; ++i)
        if (base[2 * i] != left * 100000 + i || base[2 * i + 1] != -1) {
            errs += MT_CHECK(0, "%d runs, put: element %d is %d", runs, i, base[2 * i]);
            break;
        }
    MPI_Win_fence(0, win);
    MPI_Accumulate(values, runs, MPI_INT, right, 0, 1, every_other, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(values, runs, MPI_INT, fetched, runs, MPI_INT, right, 0, 1, every_other,
                       MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < runs; ++i)
        if (fetched[i] != 2 * (rank * 100000 + i) || base[2 * i] != 3 * (left * 100000 + i)) {
            errs += MT_CHECK(0, "%d runs, accumulates: element %d fetched %d, holds %d", runs, i,
                             fetched[i], base[2 * i]);
            break;
        }
    MPI_Win_fence(0, win);
    MPI_Get(fetched, runs, MPI_INT, right, 0, 1, every_other, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < runs; ++i)
        if (fetched[i] != 3 * (rank * 100000 + i)) {
            errs += MT_CHECK(0, "%d runs, get: element %d is %d", runs, i, fetched[i]);
            break;
        }
    free(values);
    free(fetched);
    MPI_Type_free(&every_other);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { kMaxRuns = 8000 };
    int* base = NULL;
    MPI_Win win;
    MPI_Win_allocate(2 * kMaxRuns * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    const int runs[] = {1000, 1100, kMaxRuns};
    for (int i = 0; i < 3; ++i) errs += round_trip(win, base, runs[i], rank, size);
    MPI_Win_free(&win);
    return mtest_finish(errs);
}
