! Point-to-point from Fortran through the `mpi` module: eager and rendezvous
! sizes, statuses (MPI_SOURCE, MPI_TAG, MPI_Get_count, MPI_STATUS_IGNORE),
! requests with 1-based indices (Waitany, Waitsome), probes, Sendrecv, and
! MPI_Wtime. Two or more ranks; rank 0 prints "No Errors" after MPI_Finalize.
program f_p2p
    use mpi
    implicit none
    integer, parameter :: small = 10, large = 200000
    integer :: ierr, rank, nprocs, peer, errors, i, count, index, outcount
    integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
    integer :: requests(2), indices(2)
    double precision :: big(large), back(large), t0
    integer :: ints(small), got(small)
    logical :: flag

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
    t0 = mpi_wtime()
    peer = 1 - rank

    if (rank <= 1) then
        ! Eager, with a status.
        if (rank == 0) then
            ints = [(i * 3, i = 1, small)]
            call mpi_send(ints, small, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, ierr)
        else
            call mpi_recv(got, small, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                          status, ierr)
            if (status(MPI_SOURCE) /= 0 .or. status(MPI_TAG) /= 7) call fail('eager status')
            call mpi_get_count(status, MPI_INTEGER, count, ierr)
            if (count /= small) call fail('eager count')
            do i = 1, small
                if (got(i) /= i * 3) call fail('eager data')
            end do
        end if

        ! Rendezvous both ways at once, completed by Waitany then Waitsome.
        big = [(dble(i + rank), i = 1, large)]
        call mpi_irecv(back, large, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, requests(1), ierr)
        call mpi_isend(big, large, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, requests(2), ierr)
        call mpi_waitany(2, requests, index, status, ierr)
        if (index < 1 .or. index > 2) call fail('waitany index is not 1-based')
        if (requests(index) /= MPI_REQUEST_NULL) call fail('waitany request not freed')
        call mpi_waitsome(2, requests, outcount, indices, statuses, ierr)
        if (outcount /= 1 .or. indices(1) /= 3 - index) call fail('waitsome index')
        if (index == 2) status = statuses(:, 1)  ! the receive completed second
        if (status(MPI_SOURCE) /= peer) call fail('rendezvous source')
        call mpi_get_count(status, MPI_DOUBLE_PRECISION, count, ierr)
        if (count /= large) call fail('rendezvous count')
        do i = 1, large
            if (back(i) /= dble(i + peer)) then
                call fail('rendezvous data')
                exit
            end if
        end do

        ! Probe, then a receive of exactly what the probe saw.
        if (rank == 0) then
            call mpi_send(ints, 4, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, ierr)
        else
            flag = .false.
            do while (.not. flag)
                call mpi_iprobe(0, 9, MPI_COMM_WORLD, flag, status, ierr)
            end do
            call mpi_get_count(status, MPI_INTEGER, count, ierr)
            if (count /= 4) call fail('iprobe count')
            call mpi_recv(got, count, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        end if

        ! Sendrecv of a scalar.
        call mpi_sendrecv(rank, 1, MPI_INTEGER, peer, 3, i, 1, MPI_INTEGER, peer, 3, &
                          MPI_COMM_WORLD, status, ierr)
        if (i /= peer) call fail('sendrecv value')
    end if

    if (mpi_wtime() < t0) call fail('mpi_wtime went backwards')
    call mpi_allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_finalize(ierr)
    if (rank == 0 .and. errors == 0) write (*, '(a)') 'No Errors'
    if (rank == 0 .and. errors /= 0) write (*, '(a,i0,a)') 'Found ', errors, ' errors'

contains

    subroutine fail(what)
        character(*), intent(in) :: what
        errors = errors + 1
        write (*, '(a,i0,2a)') 'rank ', rank, ': ', what
    end subroutine fail

end program f_p2p
