/*
 * Groups and the communicators made from them: every group call (incl, excl,
 * range_incl/excl, union, intersection, difference, translate_ranks, compare,
 * MPI_GROUP_EMPTY), MPI_Comm_create, MPI_Comm_create_group (only the members
 * call it, twice concurrently on disjoint halves) and MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED: the ranks of one node; with SI_NODE_SIZE this
 * runtime simulates smaller nodes, which the expected size follows). Each new
 * communicator is checked by an allreduce of world ranks over it.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size;

/* The sum of the world ranks of comm's members, by an allreduce over comm. */
static long world_rank_sum(MPI_Comm comm) {
    long mine = g_rank, sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
    return sum;
}

static int check_members(MPI_Group group, int n, const int* world_ranks, const char* what) {
    int errs = 0, size;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(group, &size);
    errs += MT_CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    if (size != n) return errs;
    int* ranks = mtest_malloc(sizeof(int) * (size_t)(n + 1));
    int* in_world = mtest_malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) ranks[i] = i;
    MPI_Group_translate_ranks(group, n, ranks, world, in_world);
    for (int i = 0; i < n; ++i)
        errs += MT_CHECK(in_world[i] == world_ranks[i], "%s: member %d is world rank %d, not %d",
                         what, i, in_world[i], world_ranks[i]);
    free(ranks);
    free(in_world);
    MPI_Group_free(&world);
    return errs;
}

static int group_calls(void) {
    int errs = 0;
    MPI_Group world, evens, odds, reversed, u, inter, diff, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int rank;
    MPI_Group_rank(world, &rank);
    errs += MT_EQ(rank, g_rank);

    int* list = mtest_malloc(sizeof(int) * (size_t)g_size);
    int n_even = 0;
    for (int r = 0; r < g_size; r += 2) list[n_even++] = r;
    MPI_Group_incl(world, n_even, list, &evens);
    errs += check_members(evens, n_even, list, "incl evens");
    MPI_Group_rank(evens, &rank);
    errs += MT_EQ(rank, g_rank % 2 == 0 ? g_rank / 2 : MPI_UNDEFINED);

    MPI_Group_excl(world, n_even, list, &odds);
    int n_odd = 0;
    for (int r = 1; r < g_size; r += 2) list[n_odd++] = r;
    errs += check_members(odds, n_odd, list, "excl evens");

    int range[1][3] = {{g_size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, range, &reversed);
    for (int i = 0; i < g_size; ++i) list[i] = g_size - 1 - i;
    errs += check_members(reversed, g_size, list, "range_incl reversed");
    int result;
    MPI_Group_compare(world, reversed, &result);
    errs += MT_EQ(result, g_size == 1 ? MPI_IDENT : MPI_SIMILAR);
    MPI_Group_compare(evens, evens, &result);
    errs += MT_EQ(result, MPI_IDENT);

    int every_other[1][3] = {{0, g_size - 1, 2}};
    MPI_Group_range_excl(world, 1, every_other, &g);
    for (int i = 0; i < n_odd; ++i) list[i] = 2 * i + 1;
    errs += check_members(g, n_odd, list, "range_excl evens");
    MPI_Group_free(&g);

    /* union keeps the first group's order, then the second's new members. */
    MPI_Group_union(odds, evens, &u);
    int k = 0;
    for (int r = 1; r < g_size; r += 2) list[k++] = r;
    for (int r = 0; r < g_size; r += 2) list[k++] = r;
    errs += check_members(u, g_size, list, "union odds evens");
    MPI_Group_intersection(reversed, evens, &inter);
    k = 0;
    for (int r = g_size - 1; r >= 0; --r)
        if (r % 2 == 0) list[k++] = r;
    errs += check_members(inter, n_even, list, "intersection reversed evens");
    MPI_Group_difference(world, world, &diff);
    MPI_Group_compare(diff, MPI_GROUP_EMPTY, &result);
    errs += MT_EQ(result, MPI_IDENT);
    MPI_Group_size(MPI_GROUP_EMPTY, &result);
    errs += MT_EQ(result, 0);

    const int probe[2] = {0, MPI_PROC_NULL};
    int out[2];
    MPI_Group_translate_ranks(world, 2, probe, odds, out);
    errs += MT_EQ(out[0], MPI_UNDEFINED);
    /* The standard maps MPI_PROC_NULL to itself; MPICH 4.0.2 to MPI_UNDEFINED. */
    if (mtest_on_simpi()) errs += MT_EQ(out[1], MPI_PROC_NULL);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* MPICH 4.0.2 accepts a rank listed twice. */
    const int bad[2] = {0, 0};
    if (mtest_on_simpi()) errs += MT_CLASS(MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK);
    const int outside[1] = {g_size};
    errs += MT_CLASS(MPI_Group_excl(world, 1, outside, &g), MPI_ERR_RANK);
    errs += MT_CLASS(MPI_Group_size(MPI_GROUP_NULL, &result), MPI_ERR_GROUP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Group_free(&diff);
    MPI_Group_free(&inter);
    MPI_Group_free(&u);
    MPI_Group_free(&reversed);
    MPI_Group_free(&odds);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    errs += MT_EQ(world, MPI_GROUP_NULL);
    free(list);
    return errs;
}

/* MPI_Comm_create from the reversed world group and from the evens. */
static int comm_create(void) {
    int errs = 0;
    MPI_Group world, reversed, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{g_size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, range, &reversed);
    MPI_Comm comm;
    MPI_Comm_create(MPI_COMM_WORLD, reversed, &comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    errs += MT_EQ(rank, g_size - 1 - g_rank);
    errs += MT_EQ(world_rank_sum(comm), (long)g_size * (g_size - 1) / 2);
    MPI_Comm_free(&comm);

    int every_other[1][3] = {{0, g_size - 1, 2}};
    MPI_Group_range_incl(world, 1, every_other, &evens);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &comm);
    if (g_rank % 2 == 1) {
        errs += MT_CHECK(comm == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        long expected = 0;
        for (int r = 0; r < g_size; r += 2) expected += r;
        errs += MT_EQ(world_rank_sum(comm), expected);
        MPI_Comm_free(&comm);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&reversed);
    MPI_Group_free(&world);
    return errs;
}

/* MPI_Comm_create_group: each half of the world makes its communicator at
 * the same time, only its members calling; the lower half twice, with
 * different tags. */
static int comm_create_group(void) {
    int errs = 0;
    MPI_Group world, half;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int lower = g_rank < (g_size + 1) / 2;
    int range[1][3] = {
        {lower ? 0 : (g_size + 1) / 2, lower ? (g_size + 1) / 2 - 1 : g_size - 1, 1}};
    MPI_Group_range_incl(world, 1, range, &half);
    long expected = 0;
    for (int r = range[0][0]; r <= range[0][1]; ++r) expected += r;
    MPI_Comm comm, again;
    MPI_Comm_create_group(MPI_COMM_WORLD, half, 7, &comm);
    errs += MT_EQ(world_rank_sum(comm), expected);
    if (lower) {
        MPI_Comm_create_group(MPI_COMM_WORLD, half, 8, &again);
        errs += MT_EQ(world_rank_sum(again), expected);
        MPI_Comm_free(&again);
    }
    MPI_Comm_free(&comm);
    MPI_Group_free(&half);
    MPI_Group_free(&world);
    return errs;
}

static int split_type(void) {
    int errs = 0;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    int size, rank;
    MPI_Comm_size(node, &size);
    MPI_Comm_rank(node, &rank);
    /* Every rank of these tests runs on one host; SI_NODE_SIZE=k makes nodes
     * of k consecutive world ranks. */
    int node_size = g_size;
    const char* simulated = getenv("SI_NODE_SIZE");
    if (mtest_on_simpi() && simulated != NULL && atoi(simulated) > 0) node_size = atoi(simulated);
    const int first = g_rank / node_size * node_size;
    const int expected = g_size - first < node_size ? g_size - first : node_size;
    errs += MT_EQ(size, expected);
    errs += MT_EQ(rank, g_rank - first);
    MPI_Comm_free(&node);

    MPI_Comm_split_type(MPI_COMM_WORLD, g_rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    if (g_rank == 0)
        errs += MT_CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    else
        MPI_Comm_free(&node);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = group_calls();
    errs += comm_create();
    errs += comm_create_group();
    errs += split_type();
    return mtest_finish(errs);
}
