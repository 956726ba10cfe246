/*
 * Cartesian topologies: MPI_Dims_create (balanced, fixed dimensions kept,
 * errors), MPI_Cart_create on a 2-D grid periodic in one dimension (ranks
 * beyond the grid get MPI_COMM_NULL), Cart_get/rank/coords/shift/sub,
 * Cartdim_get, Topo_test, and the neighbourhood collectives on it: what
 * arrives from each direction is checked, including the one-rank and
 * two-rank periodic dimensions whose neighbour below and above are the same
 * rank, and the edges of the non-periodic dimension (untouched blocks).
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size;

static int dims_create(void) {
    int errs = 0;
    int d2[2] = {0, 0};
    MPI_Dims_create(12, 2, d2);
    errs += MT_CHECK(d2[0] == 4 && d2[1] == 3, "dims_create(12, 2) = %d x %d", d2[0], d2[1]);
    int d3[3] = {0, 0, 0};
    MPI_Dims_create(16, 3, d3);
    errs += MT_CHECK(d3[0] == 4 && d3[1] == 2 && d3[2] == 2, "dims_create(16, 3) = %dx%dx%d", d3[0],
                     d3[1], d3[2]);
    int fixed[3] = {0, 3, 0};
    MPI_Dims_create(30, 3, fixed);
    errs += MT_CHECK(fixed[0] * fixed[2] == 10 && fixed[1] == 3 && fixed[0] >= fixed[2],
                     "dims_create(30, {0,3,0}) = %dx%dx%d", fixed[0], fixed[1], fixed[2]);
    int prime[2] = {0, 0};
    MPI_Dims_create(7, 2, prime);
    errs +=
        MT_CHECK(prime[0] == 7 && prime[1] == 1, "dims_create(7, 2) = %d x %d", prime[0], prime[1]);
    /* The most balanced choice, not the first that greedy factoring finds;
     * ties go to the larger smallest dimension (as MPICH). */
    int d450[2] = {0, 0};
    MPI_Dims_create(450, 2, d450);
    errs += MT_CHECK(d450[0] == 25 && d450[1] == 18, "dims_create(450, 2) = %d x %d", d450[0],
                     d450[1]);
    int d5040[3] = {0, 0, 0};
    MPI_Dims_create(5040, 3, d5040);
    errs += MT_CHECK(d5040[0] == 21 && d5040[1] == 16 && d5040[2] == 15,
                     "dims_create(5040, 3) = %dx%dx%d", d5040[0], d5040[1], d5040[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {0, 5};
    errs += MT_CLASS(MPI_Dims_create(12, 2, bad), MPI_ERR_DIMS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

/* A rows x cols grid, periodic along dimension 1 only. */
static int grid(int rows, int cols) {
    int errs = 0;
    const int dims[2] = {rows, cols};
    const int periods[2] = {0, 1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (g_rank >= rows * cols) {
        errs += MT_CHECK(cart == MPI_COMM_NULL, "rank beyond the grid got a communicator");
        return errs;
    }
    int status, ndims, rank;
    MPI_Topo_test(cart, &status);
    errs += MT_EQ(status, MPI_CART);
    MPI_Cartdim_get(cart, &ndims);
    errs += MT_EQ(ndims, 2);
    MPI_Comm_rank(cart, &rank);
    errs += MT_EQ(rank, g_rank);
    int gdims[2], gperiods[2], coords[2];
    MPI_Cart_get(cart, 2, gdims, gperiods, coords);
    errs += MT_CHECK(gdims[0] == rows && gdims[1] == cols && gperiods[0] == 0 && gperiods[1] == 1,
                     "cart_get: %dx%d periods %d %d", gdims[0], gdims[1], gperiods[0], gperiods[1]);
    errs += MT_CHECK(coords[0] == rank / cols && coords[1] == rank % cols, "coords of %d: (%d, %d)",
                     rank, coords[0], coords[1]);
    int back;
    MPI_Cart_rank(cart, coords, &back);
    errs += MT_EQ(back, rank);
    const int wrapped[2] = {coords[0], coords[1] + cols};
    MPI_Cart_rank(cart, wrapped, &back);
    errs += MT_EQ(back, rank);

    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    errs += MT_EQ(src, coords[0] == 0 ? MPI_PROC_NULL : rank - cols);
    errs += MT_EQ(dst, coords[0] == rows - 1 ? MPI_PROC_NULL : rank + cols);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    errs += MT_EQ(src, coords[0] * cols + (coords[1] + cols - 1) % cols);
    errs += MT_EQ(dst, coords[0] * cols + (coords[1] + 1) % cols);

    /* Neighbourhood alltoall: the block for direction k says (rank, k). The
     * block from the neighbour below along d was that neighbour's block for
     * "above" (2d + 1), and the other way round. */
    int send[4], recv[4];
    for (int k = 0; k < 4; ++k) {
        send[k] = rank * 10 + k;
        recv[k] = -1;
    }
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart);
    for (int d = 0; d < 2; ++d) {
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        const int from_below = src == MPI_PROC_NULL ? -1 : src * 10 + 2 * d + 1;
        const int from_above = dst == MPI_PROC_NULL ? -1 : dst * 10 + 2 * d;
        errs += MT_CHECK(recv[2 * d] == from_below, "alltoall dim %d from below: %d, expected %d",
                         d, recv[2 * d], from_below);
        errs +=
            MT_CHECK(recv[2 * d + 1] == from_above, "alltoall dim %d from above: %d, expected %d",
                     d, recv[2 * d + 1], from_above);
    }

    int all[4];
    for (int k = 0; k < 4; ++k) all[k] = -1;
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, cart);
    for (int d = 0; d < 2; ++d) {
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        errs += MT_EQ(all[2 * d], src == MPI_PROC_NULL ? -1 : src);
        errs += MT_EQ(all[2 * d + 1], dst == MPI_PROC_NULL ? -1 : dst);
    }

    /* Rows: keep dimension 1. */
    const int keep_cols[2] = {0, 1};
    MPI_Comm row;
    MPI_Cart_sub(cart, keep_cols, &row);
    int row_size, row_rank, row_dims;
    MPI_Comm_size(row, &row_size);
    MPI_Comm_rank(row, &row_rank);
    MPI_Cartdim_get(row, &row_dims);
    errs += MT_EQ(row_size, cols);
    errs += MT_EQ(row_rank, coords[1]);
    errs += MT_EQ(row_dims, 1);
    long sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, row);
    long expected = 0;
    for (int c = 0; c < cols; ++c) expected += coords[0] * cols + c;
    errs += MT_EQ(sum, expected);
    MPI_Comm_free(&row);

    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    const int outside[2] = {rows, 0};
    errs += MT_CLASS(MPI_Cart_rank(cart, outside, &back), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Graphdims_get(cart, &src, &dst), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&cart);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = dims_create();
    int dims[2] = {0, 0};
    MPI_Dims_create(g_size, 2, dims);
    errs += grid(dims[0], dims[1]);
    errs += grid(1, g_size);             /* one row: the periodic dimension holds every rank */
    if (g_size >= 3) errs += grid(1, 2); /* a two-rank ring, the other ranks left out */
    int status;
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    errs += MT_EQ(status, MPI_UNDEFINED);
    return mtest_finish(errs);
}
