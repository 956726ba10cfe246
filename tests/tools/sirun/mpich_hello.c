/* An MPI program built against Debian's MPICH: checks that sirun serves PMI-1
 * well enough for a real MPI library to start, communicate and finish. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int errors = sum != size * (size - 1) / 2;
    if (size > 1) {
        int token = rank, from = -1;
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errors += from != (rank + size - 1) % size;
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) printf(errors == 0 ? "No Errors\n" : "Found %d errors\n", errors);
    return errors != 0;
}
