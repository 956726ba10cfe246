! One-sided communication from Fortran: MPI_Win_allocate's memory reached
! through its address (C_F_POINTER), Put in a fence epoch, the predefined
! window attributes as values, names, a keyval with the predefined
! MPI_WIN_NULL_COPY_FN / MPI_WIN_NULL_DELETE_FN, and a shared window whose
! members' parts MPI_Win_shared_query finds.
program f_win
    use mpi
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    implicit none
    integer, parameter :: n = 16
    integer :: ierr, rank, nprocs, win, shared, keyval, disp_unit, next, errors, length
    integer(kind=MPI_ADDRESS_KIND) :: baseptr, bytes, value, disp, size
    logical :: flag
    character(len=MPI_MAX_OBJECT_NAME) :: name
    real(kind=8), pointer :: a(:), part(:)
    real(kind=8) :: mine(n)
    type(c_ptr) :: mold  ! the type an address is transferred to

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)

    bytes = 8 * n
    call mpi_win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
    call c_f_pointer(transfer(baseptr, mold), a, [n])
    a = -1.0d0
    mine = rank + 0.5d0
    next = mod(rank + 1, nprocs)
    disp = 0
    call mpi_win_fence(0, win, ierr)
    call mpi_put(mine, n, MPI_DOUBLE_PRECISION, next, disp, n, MPI_DOUBLE_PRECISION, win, ierr)
    call mpi_win_fence(0, win, ierr)
    if (any(a /= mod(rank - 1 + nprocs, nprocs) + 0.5d0)) call fail('the Put from the left')

    call mpi_win_get_attr(win, MPI_WIN_BASE, value, flag, ierr)
    if (.not. flag .or. value /= baseptr) call fail('MPI_WIN_BASE')
    call mpi_win_get_attr(win, MPI_WIN_SIZE, value, flag, ierr)
    if (.not. flag .or. value /= bytes) call fail('MPI_WIN_SIZE')
    call mpi_win_get_attr(win, MPI_WIN_DISP_UNIT, value, flag, ierr)
    if (.not. flag .or. value /= 8) call fail('MPI_WIN_DISP_UNIT')
    call mpi_win_get_attr(win, MPI_WIN_CREATE_FLAVOR, value, flag, ierr)
    if (.not. flag .or. value /= MPI_WIN_FLAVOR_ALLOCATE) call fail('MPI_WIN_CREATE_FLAVOR')

    call mpi_win_set_name(win, 'ring', ierr)
    call mpi_win_get_name(win, name, length, ierr)
    if (name /= 'ring' .or. length /= 4) call fail('window name')

    call mpi_win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, keyval, &
                               0_MPI_ADDRESS_KIND, ierr)
    value = 4242
    call mpi_win_set_attr(win, keyval, value, ierr)
    value = 0
    call mpi_win_get_attr(win, keyval, value, flag, ierr)
    if (.not. flag .or. value /= 4242) call fail('user attribute')
    call mpi_win_delete_attr(win, keyval, ierr)
    call mpi_win_free_keyval(keyval, ierr)
    call mpi_win_free(win, ierr)

    ! Every rank's part of a shared window, written by its owner, read by all.
    call mpi_win_allocate_shared(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, shared, ierr)
    call c_f_pointer(transfer(baseptr, mold), a, [n])
    call mpi_win_fence(0, shared, ierr)
    a = rank * 10.0d0
    call mpi_win_fence(0, shared, ierr)
    call mpi_win_shared_query(shared, next, size, disp_unit, baseptr, ierr)
    if (size /= bytes .or. disp_unit /= 8) call fail('MPI_Win_shared_query size and unit')
    call c_f_pointer(transfer(baseptr, mold), part, [n])
    if (any(part /= next * 10.0d0)) call fail('a neighbour''s part of the shared window')
    call mpi_win_fence(0, shared, ierr)
    call mpi_win_free(shared, ierr)

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

end program f_win
