/*
 * mpi_abort <rank> <code>: that rank prints a line, unflushed (stdout is a
 * pipe under the test), and calls MPI_Abort with the code; the others wait.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: mpi_abort <rank> <code>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int aborting = atoi(argv[1]), code = atoi(argv[2]);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == aborting) {
        printf("rank %d aborts with code %d\n", rank, code);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    sleep(30);
    MPI_Finalize();
    return 0;
}
