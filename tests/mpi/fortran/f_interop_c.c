/* The C half of f_interop.f90: entry points called from Fortran (lower
 * case, trailing underscore, every argument by reference). */
#include <stdio.h>

#include <mpi.h>

/* A status received in Fortran, read in C and written back through
 * MPI_Status_c2f; the handles converted and used. */
void c_check_status_(MPI_Fint* f_comm, MPI_Fint* f_type, MPI_Fint* f_status, MPI_Fint* f_copy,
                     MPI_Fint* errors) {
    MPI_Comm comm = MPI_Comm_f2c(*f_comm);
    MPI_Datatype type = MPI_Type_f2c(*f_type);
    int rank = -1, size = 0, count = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Type_size(type, &size);
    if (comm != MPI_COMM_WORLD || MPI_Comm_c2f(comm) != *f_comm || rank != 1 || size != 4) {
        printf("handles: comm %d rank %d size %d\n", (int)comm, rank, size);
        ++*errors;
    }
    MPI_Status status;
    if (MPI_Status_f2c(f_status, &status) != MPI_SUCCESS) ++*errors;
    MPI_Get_count(&status, type, &count);
    if (status.MPI_SOURCE != 0 || status.MPI_TAG != 5 || count != 1) {
        printf("status: source %d tag %d count %d\n", status.MPI_SOURCE, status.MPI_TAG, count);
        ++*errors;
    }
    if (MPI_Status_c2f(&status, f_copy) != MPI_SUCCESS) ++*errors;
    if (MPI_F_STATUS_IGNORE == NULL || MPI_F_STATUSES_IGNORE == NULL) ++*errors;
}

/* A request made in C and completed in Fortran. */
void c_irecv_from_one_(MPI_Fint* f_comm, MPI_Fint* value, MPI_Fint* f_request) {
    MPI_Request request;
    MPI_Irecv(value, 1, MPI_INT, 1, 6, MPI_Comm_f2c(*f_comm), &request);
    *f_request = MPI_Request_c2f(request);
}
