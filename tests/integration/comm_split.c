/*
 * MPI_Comm_split: ranks with the same color form a communicator, ordered by
 * key and, for equal keys, by their rank in the parent; MPI_UNDEFINED gives
 * MPI_COMM_NULL. Each case checks the new size and rank against a serial
 * computation, that the order really is the one expected (an Allgather of
 * parent ranks, and point-to-point traffic addressed by new rank), and that
 * MPI_Comm_free resets the handle. Splits of splits and names too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size;

typedef int (*Rule)(int rank, int size); /* color or key of a parent rank */

/* The parent ranks of the new communicator of `color`, in new-rank order. */
static int expected_members(Rule color_of, Rule key_of, int color, int* members) {
    int n = 0;
    for (int r = 0; r < g_size; ++r)
        if (color_of(r, g_size) == color) members[n++] = r;
    /* Stable insertion sort by key keeps parent order for equal keys. */
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && key_of(members[j - 1], g_size) > key_of(members[j], g_size); --j) {
            int t = members[j];
            members[j] = members[j - 1];
            members[j - 1] = t;
        }
    return n;
}

static int check_split(const char* name, Rule color_of, Rule key_of) {
    int errs = 0, color = color_of(g_rank, g_size);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, color, key_of(g_rank, g_size), &comm);
    if (color == MPI_UNDEFINED) {
        errs +=
            MT_CHECK(comm == MPI_COMM_NULL, "%s: MPI_UNDEFINED color gave a communicator", name);
        if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
        return errs;
    }
    if (comm == MPI_COMM_NULL) MT_FATAL("%s: color %d gave MPI_COMM_NULL", name, color);

    int* members = mtest_malloc(sizeof(int) * (size_t)g_size);
    int* gathered = mtest_malloc(sizeof(int) * (size_t)g_size);
    int n = expected_members(color_of, key_of, color, members), size, rank, my_index = -1;
    for (int i = 0; i < n; ++i)
        if (members[i] == g_rank) my_index = i;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    errs += MT_CHECK(size == n, "%s: size %d, expected %d", name, size, n);
    errs += MT_CHECK(rank == my_index, "%s: rank %d, expected %d", name, rank, my_index);
    if (size != n || rank != my_index) MT_FATAL("%s: wrong communicator, cannot go on", name);

    /* The order as the communicator sees it. */
    MPI_Allgather(&g_rank, 1, MPI_INT, gathered, 1, MPI_INT, comm);
    for (int i = 0; i < n; ++i)
        errs +=
            MT_CHECK(gathered[i] == members[i], "%s: new rank %d is parent rank %d, expected %d",
                     name, i, gathered[i], members[i]);

    /* Point-to-point addressed by new ranks: send my parent rank right. */
    int from = -1;
    MPI_Status status;
    MPI_Sendrecv(&g_rank, 1, MPI_INT, (rank + 1) % n, 0, &from, 1, MPI_INT, (rank + n - 1) % n, 0,
                 comm, &status);
    errs += MT_CHECK(from == members[(rank + n - 1) % n], "%s: got %d from the left, expected %d",
                     name, from, members[(rank + n - 1) % n]);
    errs += MT_EQ(status.MPI_SOURCE, (rank + n - 1) % n); /* a rank in comm, not in the parent */

    MPI_Comm_free(&comm);
    errs += MT_CHECK(comm == MPI_COMM_NULL, "%s: MPI_Comm_free did not reset the handle", name);
    free(members);
    free(gathered);
    return errs;
}

static int color_mod3(int r, int s) {
    (void)s;
    return r % 3;
}
static int color_zero(int r, int s) {
    (void)r;
    (void)s;
    return 0;
}
static int color_even_only(int r, int s) {
    (void)s;
    return r % 2 == 0 ? 7 : MPI_UNDEFINED;
}
static int color_none(int r, int s) {
    (void)r;
    (void)s;
    return MPI_UNDEFINED;
}
static int color_halves(int r, int s) {
    return r < s / 2 ? 1 : 2;
}
static int key_reverse(int r, int s) {
    return s - r;
}
static int key_same(int r, int s) {
    (void)r;
    (void)s;
    return 0;
}
static int key_pairs(int r, int s) {
    (void)s;
    return -(r / 2);
} /* ties within pairs */
static int key_rank(int r, int s) {
    (void)s;
    return r;
}

/* Split a split: the halves of the world, then parity within each half. */
static int split_of_split(void) {
    int errs = 0;
    MPI_Comm half, quarter;
    MPI_Comm_split(MPI_COMM_WORLD, color_halves(g_rank, g_size), g_rank, &half);
    int hrank, hsize, qrank, qsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Comm_split(half, hrank % 2, -hrank, &quarter);
    MPI_Comm_rank(quarter, &qrank);
    MPI_Comm_size(quarter, &qsize);
    int same_parity = 0, higher = 0;
    for (int r = 0; r < hsize; ++r)
        if (r % 2 == hrank % 2) {
            ++same_parity;
            if (r > hrank) ++higher;
        }
    errs += MT_EQ(qsize, same_parity);
    errs += MT_EQ(qrank, higher);
    int sum = 0;
    MPI_Allreduce(&g_rank, &sum, 1, MPI_INT, MPI_SUM, quarter);
    int expected = 0;
    for (int r = 0; r < g_size; ++r) {
        /* The rank of r in its half: a half is a run of consecutive ranks. */
        int in_half = r - (color_halves(r, g_size) == 1 ? 0 : g_size / 2);
        if (color_halves(r, g_size) == color_halves(g_rank, g_size) && in_half % 2 == hrank % 2)
            expected += r;
    }
    errs += MT_EQ(sum, expected);

    /* Names belong to one communicator and are not inherited. */
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm_get_name(quarter, name, &len);
    errs += MT_CHECK(len == 0 && name[0] == '\0', "new communicator has name \"%s\"", name);
    MPI_Comm_set_name(half, "half");
    MPI_Comm_get_name(half, name, &len);
    errs += MT_CHECK(strcmp(name, "half") == 0 && len == 4, "name \"%s\" (%d)", name, len);
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    errs += check_split("three colors, keys reversed", color_mod3, key_reverse);
    errs += check_split("one color, keys reversed", color_zero, key_reverse);
    errs += check_split("one color, equal keys (parent order)", color_zero, key_same);
    errs += check_split("three colors, equal keys", color_mod3, key_same);
    errs += check_split("one color, ties in pairs", color_zero, key_pairs);
    errs += check_split("even ranks only", color_even_only, key_rank);
    errs += check_split("all MPI_UNDEFINED", color_none, key_rank);
    errs += check_split("halves, keys reversed", color_halves, key_reverse);
    errs += split_of_split();
    return mtest_finish(errs);
}
