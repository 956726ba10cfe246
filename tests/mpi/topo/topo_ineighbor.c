/*
 * Nonblocking neighbourhood collectives: MPI_Ineighbor_alltoall and
 * _allgather on a periodic Cartesian ring (at 2 ranks both neighbours are the
 * same process, so directions must not be confused), two in flight at once
 * completed in reverse order, rendezvous-sized blocks of a non-contiguous
 * type, and the v and w forms on a distributed graph, each against what the
 * blocking form gives.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define BIG 20000 /* ints per block: 80 KB, a rendezvous message */

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm ring;
    const int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);

    /* Two alltoalls in flight; the block for "left" (0) and "right" (1) say so. */
    int send_a[2] = {rank * 10, rank * 10 + 1}, recv_a[2] = {-1, -1};
    int send_b[2] = {rank * 10 + 5, rank * 10 + 6}, recv_b[2] = {-1, -1};
    MPI_Request requests[2];
    MPI_Ineighbor_alltoall(send_a, 1, MPI_INT, recv_a, 1, MPI_INT, ring, &requests[0]);
    MPI_Ineighbor_alltoall(send_b, 1, MPI_INT, recv_b, 1, MPI_INT, ring, &requests[1]);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    /* From the left neighbour comes its block for "right", and vice versa. */
    errs += MT_CHECK(recv_a[0] == left * 10 + 1 && recv_a[1] == right * 10,
                     "alltoall a: %d %d (left %d right %d)", recv_a[0], recv_a[1], left, right);
    errs += MT_CHECK(recv_b[0] == left * 10 + 6 && recv_b[1] == right * 10 + 5, "alltoall b: %d %d",
                     recv_b[0], recv_b[1]);

    int all[2] = {-1, -1};
    MPI_Request request;
    MPI_Ineighbor_allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, ring, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(all[0] == left && all[1] == right, "allgather: %d %d", all[0], all[1]);

    /* Rendezvous-sized blocks of every other int, compared with the blocking form. */
    MPI_Datatype strided;
    MPI_Type_vector(BIG, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int* big_send = malloc(2 * 2 * BIG * sizeof(int));
    int* big_recv = malloc(2 * 2 * BIG * sizeof(int));
    int* expected = malloc(2 * 2 * BIG * sizeof(int));
    MPI_Aint lb, extent;
    MPI_Type_get_extent(strided, &lb, &extent);
    for (int i = 0; i < 4 * BIG; ++i) big_send[i] = rank * 1000000 + i;
    memset(expected, 0, 4 * BIG * sizeof(int));
    memset(big_recv, 0, 4 * BIG * sizeof(int));
    MPI_Neighbor_alltoall(big_send, 1, strided, expected, 1, strided, ring);
    MPI_Ineighbor_alltoall(big_send, 1, strided, big_recv, 1, strided, ring, &request);
    int flag = 0;
    while (!flag) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    errs += MT_CHECK(memcmp(big_recv, expected, 4 * BIG * sizeof(int)) == 0,
                     "strided alltoall differs from the blocking one");
    errs += MT_CHECK(big_recv[0] == left * 1000000 + (int)(extent / sizeof(int)),
                     "strided alltoall: first int %d", big_recv[0]);
    MPI_Type_free(&strided);
    free(big_send);
    free(big_recv);
    free(expected);

    /* A distributed graph: every rank sends to rank + 1 and rank + 2 (mod size). */
    MPI_Comm graph;
    const int destinations[2] = {(rank + 1) % size, (rank + 2) % size};
    const int sources[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, destinations,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    int mine[3] = {rank, rank + 100, rank + 200}, wide[6], wide_blocking[6];
    const int displs[2] = {0, 3}, counts2[2] = {2, 2};
    for (int i = 0; i < 6; ++i) wide[i] = wide_blocking[i] = -1;
    MPI_Neighbor_allgatherv(mine, 2, MPI_INT, wide_blocking, counts2, displs, MPI_INT, graph);
    MPI_Ineighbor_allgatherv(mine, 2, MPI_INT, wide, counts2, displs, MPI_INT, graph, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(memcmp(wide, wide_blocking, sizeof wide) == 0 && wide[0] == sources[0] &&
                         wide[3] == sources[1],
                     "allgatherv: %d %d %d %d", wide[0], wide[1], wide[3], wide[4]);

    int vsend[4] = {rank, rank + 1000, rank + 2000, rank + 3000}, vrecv[4] = {-1, -1, -1, -1};
    const int scounts[2] = {1, 2}, sdispls[2] = {0, 1}, rcounts[2] = {1, 2}, rdispls[2] = {0, 2};
    MPI_Ineighbor_alltoallv(vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT,
                            graph, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(vrecv[0] == sources[0] && vrecv[2] == sources[1] + 1000 &&
                         vrecv[3] == sources[1] + 2000 && vrecv[1] == -1,
                     "alltoallv: %d %d %d %d", vrecv[0], vrecv[1], vrecv[2], vrecv[3]);

    int wrecv[4] = {-1, -1, -1, -1};
    const MPI_Aint sbytes[2] = {0, sizeof(int)}, rbytes[2] = {0, 2 * sizeof(int)};
    const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Ineighbor_alltoallw(vsend, scounts, sbytes, types, wrecv, rcounts, rbytes, types, graph,
                            &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_CHECK(memcmp(wrecv, vrecv, sizeof wrecv) == 0, "alltoallw: %d %d %d %d", wrecv[0],
                     wrecv[1], wrecv[2], wrecv[3]);

    MPI_Comm_free(&graph);
    MPI_Comm_free(&ring);
    return mtest_finish(errs);
}
