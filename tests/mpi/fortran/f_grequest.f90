! Generalized requests from Fortran: query, free and cancel callbacks
! written in Fortran (extra_state an INTEGER(KIND=MPI_ADDRESS_KIND) by
! reference, COMPLETE a LOGICAL), waited for with MPI_WAIT; and MPI-4's
! MPI_INFO_GET_STRING with its in/out BUFLEN.
module f_grequest_callbacks
    use mpi
    implicit none
    integer :: queried = 0, freed = 0, cancels = 0
    logical :: last_complete = .false.
contains
    subroutine query_fn(extra_state, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE), ierr
        queried = queried + 1
        status(MPI_SOURCE) = int(extra_state)
        status(MPI_TAG) = 42
        call mpi_status_set_elements(status, MPI_INTEGER, 3, ierr)
        call mpi_status_set_cancelled(status, .false., ierr)
        ierr = MPI_SUCCESS
    end subroutine
    subroutine free_fn(extra_state, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: ierr
        freed = freed + 1
        ierr = MPI_SUCCESS
    end subroutine
    subroutine cancel_fn(extra_state, complete, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        logical :: complete
        integer :: ierr
        cancels = cancels + 1
        last_complete = complete
        ierr = MPI_SUCCESS
    end subroutine
end module

program f_grequest
    use mpi
    use f_grequest_callbacks
    implicit none
    integer :: ierr, rank, request, count, errors, info, buflen
    integer :: status(MPI_STATUS_SIZE)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: flag
    character(len=4) :: short
    character(len=32) :: value

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)

    extra = 5
    call mpi_grequest_start(query_fn, free_fn, cancel_fn, extra, request, ierr)
    call mpi_test(request, flag, status, ierr)
    if (flag) errors = errors + 1
    call mpi_cancel(request, ierr)
    if (cancels /= 1 .or. last_complete) errors = errors + 1
    call mpi_grequest_complete(request, ierr)
    call mpi_wait(request, status, ierr)
    call mpi_get_count(status, MPI_INTEGER, count, ierr)
    if (queried /= 1 .or. freed /= 1 .or. count /= 3 .or. status(MPI_SOURCE) /= 5 &
        .or. status(MPI_TAG) /= 42 .or. request /= MPI_REQUEST_NULL) then
        errors = errors + 1
        print *, 'grequest: queried', queried, 'freed', freed, 'count', count, &
            'source', status(MPI_SOURCE), 'tag', status(MPI_TAG)
    end if

    call mpi_info_create(info, ierr)
    call mpi_info_set(info, 'colour', 'ultramarine', ierr)
    buflen = len(short)
    call mpi_info_get_string(info, 'colour', buflen, short, flag, ierr)
    if (.not. flag .or. short /= 'ultr' .or. buflen /= 11) then
        errors = errors + 1
        print *, 'info_get_string short: ', short, buflen
    end if
    buflen = len(value)
    call mpi_info_get_string(info, 'colour', buflen, value, flag, ierr)
    if (.not. flag .or. value /= 'ultramarine' .or. buflen /= 11) then
        errors = errors + 1
        print *, 'info_get_string: ', value, buflen
    end if
    call mpi_info_free(info, ierr)

    if (rank == 0) then
        if (errors == 0) then
            print '(a)', 'No Errors'
        else
            print *, 'Found', errors, 'errors'
        end if
    end if
    call mpi_finalize(ierr)
end program
