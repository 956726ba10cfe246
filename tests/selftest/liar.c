/*
 * An MPI program that lies to the test harness in the ways a broken runtime
 * could: it prints "No Errors" and still fails. tests/run-mpi-test.sh must
 * fail every mode but "honest" (see check.sh).
 *
 *   liar honest              mtest_finish with no errors: passes
 *   liar crash-after-print   rank 0 prints "No Errors", then dies of SIGSEGV
 *   liar exit-nonzero        rank 0 prints "No Errors" after MPI_Finalize, exits 3
 *   liar other-rank-fails    rank 0 prints "No Errors", rank 1 exits 1
 *   liar killed-before-finalize
 *                            rank 1 is killed before MPI_Finalize; rank 0 had
 *                            printed "No Errors" before finalizing, as this
 *                            suite's tests once did
 *   liar silent              every rank exits 0 and nobody prints the line
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../integration/mtest.h"

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    mtest_init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "honest") == 0) return mtest_finish(0);
    if (strcmp(mode, "crash-after-print") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("No Errors\n");
            raise(SIGSEGV);
        }
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "exit-nonzero") == 0) {
        MPI_Finalize();
        if (rank == 0) printf("No Errors\n");
        return rank == 0 ? 3 : 0;
    }
    if (strcmp(mode, "other-rank-fails") == 0) {
        MPI_Finalize();
        if (rank == 0) printf("No Errors\n");
        return rank == 1 ? 1 : 0;
    }
    if (strcmp(mode, "killed-before-finalize") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) printf("No Errors\n");
        if (rank == 1) raise(SIGKILL);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "silent") == 0) {
        MPI_Finalize();
        return 0;
    }
    fprintf(stderr, "liar: unknown mode '%s'\n", mode);
    MPI_Finalize();
    return 2;
}
