/*
 * A nonblocking collective moves on while its rank computes: rank 1 starts
 * an MPI_Ibarrier on 4 ranks and computes 300 ms without calling MPI, while
 * rank 0 enters the barrier 100 ms late. The dissemination barrier's second
 * round can only start once rank 0's message has come, so on rank 1 it is
 * started by the progress thread (SI_PROGRESS=thread) or by the interrupt
 * thread rank 0's message wakes (SI_PROGRESS=interrupt), counted in
 * collective_rounds_in_background, which must be > 0; with
 * SI_BACKGROUND_ROUNDS=off (the thesis: background passes complete receives
 * but start no round) it must be 0, and the barrier still completes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    if (nranks < 4) return 0;
    const long long background = stats_counter(1, "collective_rounds_in_background");
    const char* rounds = getenv("SI_BACKGROUND_ROUNDS");
    if (rounds != NULL && strcmp(rounds, "off") == 0)
        errs += MT_CHECK(background == 0,
                         "rank 1: %lld rounds started in the background with "
                         "SI_BACKGROUND_ROUNDS=off", background);
    else
        errs += MT_CHECK(background > 0,
                         "rank 1: no round of its MPI_Ibarrier started in the background "
                         "(%lld)", background);
    printf("rank 1: %lld of %lld collective rounds started in the background\n", background,
           stats_counter(1, "collective_rounds"));
    return errs;
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int rank, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) usleep(100 * 1000);
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    if (rank == 1) work_until(0.3, NULL, NULL);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return stats_finish(errs, 0, check_counters);
}
