/*
 * MPI_Type_create_darray, checked against an independent owner formula: for
 * every rank of a process grid (the call is local, so one process builds
 * them all), packing the global array through the rank's type yields exactly
 * the elements that rank owns, in array order; the ranks together own every
 * element once; the type spans the whole array. Block, cyclic and
 * undistributed dimensions, default and explicit arguments, C and Fortran
 * order, a rank that owns nothing, the envelope, and the argument errors.
 */
#include <stdlib.h>

#include "mtest.h"

#define MAX_ELEMENTS 512

struct Case {
    int ndims, order;
    int gsizes[3], distribs[3], dargs[3], psizes[3];
};

/* The grid coordinate owning index i along a dimension. */
static int owner(int i, int gsize, int distrib, int darg, int p) {
    if (distrib == MPI_DISTRIBUTE_NONE) return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
        return i / block;
    }
    int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / block) % p;
}

static int check_case(const struct Case* c) {
    int errs = 0, total = 1, ranks = 1;
    for (int d = 0; d < c->ndims; ++d) {
        total *= c->gsizes[d];
        ranks *= c->psizes[d];
    }
    int global[MAX_ELEMENTS], seen[MAX_ELEMENTS] = {0};
    for (int i = 0; i < total; ++i) global[i] = i;
    for (int rank = 0; rank < ranks; ++rank) {
        MPI_Datatype t;
        MPI_Type_create_darray(ranks, rank, c->ndims, c->gsizes, c->distribs, c->dargs, c->psizes,
                               c->order, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Aint lb, extent;
        MPI_Type_get_extent(t, &lb, &extent);
        errs += MT_CHECK(lb == 0 && extent == (MPI_Aint)(total * sizeof(int)),
                         "rank %d: lb %ld extent %ld", rank, (long)lb, (long)extent);
        int packed[MAX_ELEMENTS], position = 0, size = 0;
        MPI_Type_size(t, &size);
        MPI_Pack(global, 1, t, packed, sizeof packed, &position, MPI_COMM_SELF);
        /* The expected elements: every linear index whose coordinates map to
         * this rank's grid position, in increasing order. */
        int n = 0;
        for (int linear = 0; linear < total; ++linear) {
            int rest = linear, grid_rank = 0, index[3];
            if (c->order == MPI_ORDER_C)
                for (int d = c->ndims - 1; d >= 0; --d) {
                    index[d] = rest % c->gsizes[d];
                    rest /= c->gsizes[d];
                }
            else
                for (int d = 0; d < c->ndims; ++d) {
                    index[d] = rest % c->gsizes[d];
                    rest /= c->gsizes[d];
                }
            for (int d = 0; d < c->ndims; ++d)
                grid_rank = grid_rank * c->psizes[d] + owner(index[d], c->gsizes[d], c->distribs[d],
                                                             c->dargs[d], c->psizes[d]);
            if (grid_rank != rank) continue;
            if (n * (int)sizeof(int) < position && packed[n] != linear) {
                errs += MT_CHECK(0, "rank %d: element %d is %d, expected %d", rank, n, packed[n],
                                 linear);
            }
            ++seen[linear];
            ++n;
        }
        errs += MT_CHECK(position == n * (int)sizeof(int) && size == position,
                         "rank %d: packed %d bytes, size %d, owns %d elements", rank, position,
                         size, n);
        int ni, na, nd, combiner;
        MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
        errs += MT_CHECK(combiner == MPI_COMBINER_DARRAY && ni == 4 * c->ndims + 4 && nd == 1,
                         "envelope %d %d %d %d", combiner, ni, na, nd);
        MPI_Type_free(&t);
    }
    for (int i = 0; i < total; ++i)
        errs += MT_CHECK(seen[i] == 1, "element %d owned %d times", i, seen[i]);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    const struct Case cases[] = {
        {2, MPI_ORDER_C, {5, 7}, {B, C}, {D, 2}, {2, 3}},
        {2, MPI_ORDER_FORTRAN, {5, 7}, {B, C}, {D, 2}, {2, 3}},
        {3, MPI_ORDER_FORTRAN, {4, 3, 5}, {B, N, C}, {D, D, D}, {2, 1, 2}},
        {3, MPI_ORDER_C, {6, 4, 5}, {C, B, B}, {2, 3, D}, {2, 2, 1}},
        {1, MPI_ORDER_C, {5}, {B}, {2}, {4}}, /* rank 3 owns nothing */
        {1, MPI_ORDER_C, {9}, {C}, {D}, {4}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) errs += check_case(&cases[i]);

    /* Bad arguments: a grid that is not `size` processes, a block too small
     * to cover the array, a distributed NONE dimension (MPICH 4.0.2 divides by
     * zero on the second instead of reporting it). */
#ifdef SI_MPI
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int g[1] = {8}, dist_b[1] = {B}, dist_n[1] = {N}, small[1] = {1}, dflt[1] = {D}, p[1] = {4};
    errs += MT_CLASS(MPI_Type_create_darray(3, 0, 1, g, dist_b, dflt, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_create_darray(4, 0, 1, g, dist_b, small, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Type_create_darray(4, 0, 1, g, dist_n, dflt, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
#endif
    mtest_finish(errs);
    return 0;
}
