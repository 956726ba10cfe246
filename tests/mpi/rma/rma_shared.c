/*
 * Shared-memory windows (MPI 3.1, section 11.2.3): MPI_Win_allocate_shared
 * over the ranks of a node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED)
 * gives each rank memory the others can load and store directly, laid out
 * contiguously by default (rank r + 1's part starts where rank r's ends).
 * MPI_Win_shared_query returns any member's part in this process's address
 * space (NULL for a part without memory, as in MPICH), and for MPI_PROC_NULL
 * the first part with memory. Stores made by
 * one rank are seen by the others after MPI_Win_sync and a barrier inside a
 * lock_all epoch (the standard's pattern for the unified model), and RMA
 * calls on the window reach the same memory. Over ranks of several nodes
 * (this runtime's simulated nodes, SI_NODE_SIZE) the call fails with
 * MPI_ERR_RMA_SHARED.
 */
#include <stdint.h>

#include "mtest.h"

enum { kInts = 16 };

static int direct_access(MPI_Comm node, int rank, int size) {
    int errs = 0;
    /* Rank 0 exposes nothing: MPI_PROC_NULL must skip it. */
    const MPI_Aint bytes = rank == 0 && size > 1 ? 0 : kInts * (MPI_Aint)sizeof(int);
    int* mine = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &mine, &win);
    MPI_Win_lock_all(0, win);
    if (bytes > 0)
        for (int i = 0; i < kInts; ++i) mine[i] = 1000 * rank + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    char* previous_end = NULL;
    for (int r = 0; r < size; ++r) {
        MPI_Aint got_size = -1;
        int unit = 0;
        int* part = NULL;
        MPI_Win_shared_query(win, r, &got_size, &unit, &part);
        const MPI_Aint expected = r == 0 && size > 1 ? 0 : kInts * (MPI_Aint)sizeof(int);
        errs += MT_EQ(got_size, expected);
        errs += MT_EQ(unit, (int)sizeof(int));
        if (previous_end != NULL && got_size > 0)
            errs += MT_CHECK((char*)part == previous_end,
                             "rank %d's part does not follow rank %d's", r, r - 1);
        if (got_size > 0) {
            for (int i = 0; i < kInts; ++i) errs += MT_EQ(part[i], 1000 * r + i);
            previous_end = (char*)part + got_size;
        } else {
            errs += MT_CHECK(part == NULL, "rank %d's empty part has a base", r);
        }
    }
    MPI_Aint first_size = 0;
    int unit = 0;
    int* first = NULL;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &first_size, &unit, &first);
    errs += MT_CHECK(first_size > 0, "MPI_PROC_NULL gave a part without memory");
    if (first_size > 0) errs += MT_EQ(first[0], size > 1 ? 1000 : 0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    return errs;
}

/* A Put into the next rank's part, read back there with a plain load. */
static int put_then_load(MPI_Comm node, int rank, int size) {
    int errs = 0;
    int* mine = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(kInts * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win);
    for (int i = 0; i < kInts; ++i) mine[i] = -1;
    MPI_Win_fence(0, win);
    const int next = (rank + 1) % size, value = 7 + rank;
    MPI_Put(&value, 1, MPI_INT, next, 3, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    const int prev = (rank + size - 1) % size;
    errs += MT_EQ(mine[3], 7 + prev);
    errs += MT_EQ(mine[2], -1);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
    return errs;
}

static int across_nodes(int node_size) {
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (node_size == world_size) return 0;
    int errs = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int* base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    errs += MT_CLASS(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                     MPI_ERR_RMA_SHARED);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank, size;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    int errs = direct_access(node, rank, size);
    errs += put_then_load(node, rank, size);
    errs += across_nodes(size);
    MPI_Comm_free(&node);
    return mtest_finish(errs);
}
