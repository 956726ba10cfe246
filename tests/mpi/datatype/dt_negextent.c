/*
 * Datatypes of negative extent (MPI_Type_create_resized with extent < 0):
 * bounds of the resized type and of types built from it (as MPICH computes
 * them), items walked downwards by MPI_Pack/MPI_Unpack, sends and receives of
 * such items both eager and rendezvous, a reduction over them, and an RMA Put
 * whose target items run down from the target displacement.
 */
#include <stdlib.h>

#include "mtest.h"

#define N 40000 /* ints: 160 KB, a rendezvous message at the default eager limit */

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Datatype down, three_down;
    MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down);
    MPI_Type_commit(&down);
    MPI_Aint lb = -1, extent = -1;
    MPI_Type_get_extent(down, &lb, &extent);
    errs += MT_EQ(lb, 0);
    errs += MT_EQ(extent, -(MPI_Aint)sizeof(int));
    MPI_Type_contiguous(3, down, &three_down);
    MPI_Type_get_extent(three_down, &lb, &extent);
    errs += MT_EQ(lb, -2 * (MPI_Aint)sizeof(int));
    errs += MT_EQ(extent, (MPI_Aint)sizeof(int));
    MPI_Type_free(&three_down);

    /* Pack walks down from the buffer: items at a[3], a[2], a[1]. */
    int a[4] = {10, 11, 12, 13}, packed[3] = {0, 0, 0}, position = 0;
    MPI_Pack(&a[3], 3, down, packed, sizeof packed, &position, MPI_COMM_SELF);
    errs += MT_CHECK(packed[0] == 13 && packed[1] == 12 && packed[2] == 11, "packed %d %d %d",
                     packed[0], packed[1], packed[2]);
    int b[4] = {0, 0, 0, 0};
    position = 0;
    MPI_Unpack(packed, sizeof packed, &position, &b[2], 3, down, MPI_COMM_SELF);
    errs += MT_CHECK(b[0] == 11 && b[1] == 12 && b[2] == 13, "unpacked %d %d %d", b[0], b[1], b[2]);

    /* Messages: the sender's array reversed on the wire, received reversed again. */
    int* source = malloc(N * sizeof(int));
    int* target = malloc(N * sizeof(int));
    for (int count = 1; count <= N; count *= 200) {
        const int to = (rank + 1) % size, from = (rank + size - 1) % size;
        for (int i = 0; i < count; ++i) {
            source[i] = rank * 1000000 + i;
            target[i] = -1;
        }
        MPI_Sendrecv(&source[count - 1], count, down, to, 1, &target[count - 1], count, down, from,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < count; ++i)
            if (target[i] != from * 1000000 + i) {
                errs += MT_CHECK(0, "count %d: target[%d] = %d", count, i, target[i]);
                break;
            }
    }

    /* A reduction applies the operator item by item, downwards. (MPICH 4.0.2
     * refuses predefined operators on derived types.) */
#ifdef SI_MPI
    int mine[3] = {rank, 2 * rank, 3 * rank}, sum[3] = {0, 0, 0};
    MPI_Allreduce(&mine[2], &sum[2], 3, down, MPI_SUM, MPI_COMM_WORLD);
    const int total = size * (size - 1) / 2;
    errs += MT_CHECK(sum[0] == total && sum[1] == 2 * total && sum[2] == 3 * total,
                     "allreduce %d %d %d", sum[0], sum[1], sum[2]);
#endif

    /* One-sided: three items put downwards from displacement 5 land in 3..5. */
    int* base = NULL;
    MPI_Win win;
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; ++i) base[i] = -1;
    MPI_Win_fence(0, win);
    const int values[3] = {100, 101, 102};
    MPI_Put(values, 3, MPI_INT, (rank + 1) % size, 5, 3, down, win);
    MPI_Win_fence(0, win);
    errs += MT_CHECK(
        base[5] == 100 && base[4] == 101 && base[3] == 102 && base[2] == -1 && base[6] == -1,
        "window %d %d %d %d %d", base[2], base[3], base[4], base[5], base[6]);
    MPI_Win_free(&win);

    free(source);
    free(target);
    MPI_Type_free(&down);
    return mtest_finish(errs);
}
