/*
 * Intercommunicators: the world split into even and odd ranks joined by
 * MPI_Intercomm_create; MPI_Comm_test_inter, remote size and group;
 * point-to-point across (remote ranks, MPI_ANY_SOURCE and the status source
 * in the remote group's numbering, a reply); MPI_Comm_dup (its traffic kept
 * apart from the original's); MPI_Comm_compare; MPI_Intercomm_merge with
 * high deciding the order, and with equal high; MPI_Comm_split and
 * MPI_Comm_create of an intercommunicator. Needs 2 ranks or more.
 */
#include <stdlib.h>

#include "mtest.h"

static int g_rank, g_size;

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = 0;
    if (g_size < 2) MT_FATAL("needs 2 ranks or more");
    const int color = g_rank % 2; /* group 0: even world ranks, group 1: odd */
    MPI_Comm local, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, color, g_rank, &local);
    int lrank, lsize;
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);
    /* Leaders: world ranks 0 and 1. */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 77, &inter);

    int flag, rsize, size, rank;
    MPI_Comm_test_inter(inter, &flag);
    errs += MT_EQ(flag, 1);
    MPI_Comm_test_inter(local, &flag);
    errs += MT_EQ(flag, 0);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_size(inter, &size);
    MPI_Comm_rank(inter, &rank);
    const int evens = (g_size + 1) / 2, odds = g_size / 2;
    errs += MT_EQ(size, color == 0 ? evens : odds);
    errs += MT_EQ(rsize, color == 0 ? odds : evens);
    errs += MT_EQ(rank, g_rank / 2);
    MPI_Group remote, world;
    MPI_Comm_remote_group(inter, &remote);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0, in_world;
    MPI_Group_translate_ranks(remote, 1, &zero, world, &in_world);
    errs += MT_EQ(in_world, color == 0 ? 1 : 0);
    MPI_Group_free(&remote);
    MPI_Group_free(&world);

    /* Every rank of group 0 sends to remote rank (rank % odds); group 1
     * receives them all from MPI_ANY_SOURCE and answers each. */
    if (color == 0) {
        const int to = rank % odds;
        int msg = 1000 + rank, reply = -1;
        MPI_Send(&msg, 1, MPI_INT, to, 5, inter);
        MPI_Recv(&reply, 1, MPI_INT, to, 6, inter, MPI_STATUS_IGNORE);
        errs += MT_EQ(reply, 2000 + rank);
    } else {
        for (int from = 0; from < evens; ++from) {
            if (from % odds != rank) continue;
            int msg = -1;
            MPI_Status status;
            MPI_Recv(&msg, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &status);
            errs += MT_EQ(msg, 1000 + status.MPI_SOURCE);
            const int reply = 2000 + status.MPI_SOURCE;
            MPI_Send(&reply, 1, MPI_INT, status.MPI_SOURCE, 6, inter);
        }
    }

    /* A duplicate's messages never match the original's receives: the
     * original's message is sent first, received second. */
    MPI_Comm_dup(inter, &dup);
    int result;
    MPI_Comm_compare(inter, dup, &result);
    errs += MT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_compare(inter, local, &result);
    errs += MT_EQ(result, MPI_UNEQUAL);
    if (g_rank == 0) {
        int a = 1, b = 2;
        MPI_Send(&a, 1, MPI_INT, 0, 9, inter);
        MPI_Send(&b, 1, MPI_INT, 0, 9, dup);
    } else if (g_rank == 1) {
        int a = -1, b = -1;
        MPI_Recv(&b, 1, MPI_INT, 0, 9, dup, MPI_STATUS_IGNORE);
        MPI_Recv(&a, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE);
        errs += MT_EQ(a, 1);
        errs += MT_EQ(b, 2);
    }

    /* Merge: the odd group asks to come first. */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, color == 0, &merged);
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_size(merged, &size);
    errs += MT_EQ(size, g_size);
    errs += MT_EQ(rank, color == 1 ? g_rank / 2 : odds + g_rank / 2);
    long mine = g_rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, merged);
    errs += MT_EQ(sum, (long)g_size * (g_size - 1) / 2);
    MPI_Comm_free(&merged);

    /* Equal high: this runtime puts the group with world rank 0 first. */
    MPI_Intercomm_merge(dup, 0, &merged);
    MPI_Comm_size(merged, &size);
    errs += MT_EQ(size, g_size);
#ifdef SI_MPI
    MPI_Comm_rank(merged, &rank);
    errs += MT_EQ(rank, color == 0 ? g_rank / 2 : evens + g_rank / 2);
#endif
    MPI_Comm_free(&merged);

    /* Split: color = world rank / 2 % 2 on both sides; keys reverse the
     * order. A color present on only one side gives MPI_COMM_NULL. */
    MPI_Comm part;
    const int split_color = (g_rank / 2) % 2;
    MPI_Comm_split(inter, split_color, -g_rank, &part);
    int local_count = 0, remote_count = 0;
    for (int w = 0; w < g_size; ++w)
        if ((w / 2) % 2 == split_color) {
            if (w % 2 == color)
                ++local_count;
            else
                ++remote_count;
        }
    if (remote_count == 0) {
        errs += MT_CHECK(part == MPI_COMM_NULL, "a one-sided color gave a communicator");
    } else {
        int psize, prsize, prank;
        MPI_Comm_size(part, &psize);
        MPI_Comm_remote_size(part, &prsize);
        MPI_Comm_rank(part, &prank);
        errs += MT_EQ(psize, local_count);
        errs += MT_EQ(prsize, remote_count);
        /* Ranks count down from the highest world rank of this side. */
        int above = 0;
        for (int w = g_rank + 1; w < g_size; ++w)
            if ((w / 2) % 2 == split_color && w % 2 == color) ++above;
        errs += MT_EQ(prank, above);
        /* Rank i trades with remote rank i, the other side's i-th highest
         * world rank of this color. */
        if (prank < prsize) {
            int expected = -1;
            for (int w = g_size - 1, seen = 0; w >= 0; --w)
                if ((w / 2) % 2 == split_color && w % 2 != color && seen++ == prank) expected = w;
            int token = g_rank, got = -1;
            MPI_Sendrecv(&token, 1, MPI_INT, prank, 3, &got, 1, MPI_INT, prank, 3, part,
                         MPI_STATUS_IGNORE);
            errs += MT_EQ(got, expected);
        }
        MPI_Comm_free(&part);
    }

    /* Create: each side keeps its members of even local rank, in reverse. */
    MPI_Comm_size(inter, &size);
    MPI_Comm_rank(inter, &rank);
    MPI_Group mine_group, kept;
    MPI_Comm_group(inter, &mine_group);
    int keep_range[1][3] = {{(size - 1) / 2 * 2, 0, -2}};
    MPI_Group_range_incl(mine_group, 1, keep_range, &kept);
    MPI_Comm made;
    MPI_Comm_create(inter, kept, &made);
    if (rank % 2 == 1) {
        errs += MT_CHECK(made == MPI_COMM_NULL, "a rank left out got a communicator");
    } else {
        int msize, mrsize, mrank;
        MPI_Comm_size(made, &msize);
        MPI_Comm_remote_size(made, &mrsize);
        MPI_Comm_rank(made, &mrank);
        errs += MT_EQ(msize, (size + 1) / 2);
        errs += MT_EQ(mrsize, (rsize + 1) / 2);
        errs += MT_EQ(mrank, ((size - 1) / 2 * 2 - rank) / 2);
        MPI_Comm_free(&made);
    }
    MPI_Group_free(&kept);
    MPI_Group_free(&mine_group);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish(errs);
}
