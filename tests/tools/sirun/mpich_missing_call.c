/* Built against MPICH, it references an MPI-4 call this runtime lacks
 * (MPI_Isendrecv), which it makes only when given an argument: through the
 * MPICH ABI it must fail as it starts, naming the call, whether or not it
 * would have reached it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d started\n", rank);
    if (argc > 1) {
        int out = rank, in = -1;
        MPI_Request request;
        MPI_Isendrecv(&out, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
