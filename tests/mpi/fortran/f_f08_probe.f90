! A program of Fortran 2008's mpi_f08 module, built by mpifort.mpich only: this
! runtime has no mpi_f08 entry points, and `sirun --abi mpich` says so before
! the job starts (test sirun.abi-f08).
program f_f08_probe
    use mpi_f08
    implicit none
    integer :: rank
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) print '(a)', ' No Errors'
    call MPI_Finalize()
end program f_f08_probe
