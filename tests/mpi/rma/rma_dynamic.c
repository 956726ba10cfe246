/*
 * Dynamic windows: MPI_Win_create_dynamic, MPI_Win_attach of memory the
 * program allocated, addresses exchanged with MPI_Get_address, then Put,
 * Accumulate and Get addressed by those absolute addresses in fence epochs
 * and under a lock, including a target type of negative extent (items
 * downwards from the address), and MPI_Win_detach.
 */
#include <stdlib.h>

#include "mtest.h"

#define N 1024

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int* memory = malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) memory[i] = -1;
    MPI_Win_attach(win, memory, N * sizeof(int));
    MPI_Aint mine, *bases = malloc(size * sizeof(MPI_Aint));
    MPI_Get_address(memory, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);

    int* values = malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) values[i] = rank * N + i;
    MPI_Win_fence(0, win);
    MPI_Put(values, N, MPI_INT, right, bases[right], N, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; ++i)
        if (memory[i] != left * N + i) {
            errs += MT_CHECK(0, "put: memory[%d] = %d", i, memory[i]);
            break;
        }
    /* The window is exposed from the fence on: reading it locally while
     * another rank accumulates would race, so one more fence first. */
    MPI_Win_fence(0, win);
    MPI_Accumulate(values, N, MPI_INT, right, bases[right], N, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    errs += MT_EQ(memory[5], 2 * (left * N + 5));

    /* Three items of a negative-extent type, downwards from element 10. */
    MPI_Datatype down;
    MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down);
    MPI_Type_commit(&down);
    const int three[3] = {7, 8, 9};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(three, 3, MPI_INT, right, bases[right] + 10 * (MPI_Aint)sizeof(int), 3, down, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    errs += MT_CHECK(memory[10] == 7 && memory[9] == 8 && memory[8] == 9,
                     "negative extent: %d %d %d", memory[8], memory[9], memory[10]);
    MPI_Type_free(&down);

    int fetched[4] = {0, 0, 0, 0};
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Get(fetched, 4, MPI_INT, left, bases[left] + 8 * (MPI_Aint)sizeof(int), 4, MPI_INT, win);
    MPI_Win_unlock(left, win);
    const int from = (left + size - 1) % size;
    errs += MT_CHECK(fetched[0] == 9 && fetched[2] == 7 && fetched[3] == 2 * (from * N + 11),
                     "get: %d %d %d %d", fetched[0], fetched[1], fetched[2], fetched[3]);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, memory);
    MPI_Win_free(&win);
    free(values);
    free(bases);
    free(memory);
    return mtest_finish(errs);
}
