! Language interoperability: Fortran passes its handles and a status to C
! (f_interop_c.c), which converts them with MPI_Comm_f2c, MPI_Type_f2c,
! MPI_Request_f2c and MPI_Status_f2c/c2f, uses them, and hands results back.
! Two or more ranks.
program f_interop
    use mpi
    implicit none
    integer :: ierr, rank, nprocs, errors, value, request
    integer :: status(MPI_STATUS_SIZE), copy(MPI_STATUS_SIZE)

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
    if (rank == 0) then
        value = 42
        call mpi_send(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
        ! C posts a receive on the Fortran communicator; Fortran waits on it.
        call c_irecv_from_one(MPI_COMM_WORLD, value, request)
        call mpi_wait(request, status, ierr)
        if (value /= 43 .or. status(MPI_SOURCE) /= 1) errors = errors + 1
    else if (rank == 1) then
        call mpi_recv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, status, ierr)
        call c_check_status(MPI_COMM_WORLD, MPI_INTEGER, status, copy, errors)
        if (any(copy(1:3) /= status(1:3))) errors = errors + 1
        value = value + 1
        call mpi_send(value, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ierr)
    end if
    call mpi_allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_finalize(ierr)
    if (rank == 0 .and. errors == 0) write (*, '(a)') 'No Errors'
    if (rank == 0 .and. errors /= 0) write (*, '(a,i0,a)') 'Found ', errors, ' errors'
end program f_interop
