! Attribute caching from Fortran: keyvals whose copy and delete callbacks are
! Fortran subroutines (called on MPI_Comm_dup and MPI_Comm_free with every
! argument by reference), the predefined MPI_COMM_DUP_FN / MPI_TYPE_NULL_COPY_FN /
! MPI_NULL_DELETE_FN, datatype attributes, and MPI-1's Keyval_create/Attr_put.
module f_attr_callbacks
    use mpi
    implicit none
    integer :: copies = 0, deletes = 0
contains
    subroutine copy_plus_one(comm, keyval, extra, value_in, value_out, flag, ierr)
        integer :: comm, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: extra, value_in, value_out
        logical :: flag
        copies = copies + 1
        value_out = value_in + extra
        flag = .true.
        ierr = MPI_SUCCESS
    end subroutine copy_plus_one

    subroutine count_delete(comm, keyval, value, extra, ierr)
        integer :: comm, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: value, extra
        deletes = deletes + 1
        ierr = MPI_SUCCESS
    end subroutine count_delete
end module f_attr_callbacks

program f_attr
    use mpi
    use f_attr_callbacks
    implicit none
    integer :: ierr, rank, errors, keyval, dupkey, typekey, oldkey, dup, dup2, newtype
    integer :: old_value
    integer(kind=MPI_ADDRESS_KIND) :: value, extra
    logical :: flag

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)

    ! A user copy function adds its extra state; the delete function counts.
    extra = 10
    call mpi_comm_create_keyval(copy_plus_one, count_delete, keyval, extra, ierr)
    call mpi_comm_set_attr(MPI_COMM_WORLD, keyval, 5_MPI_ADDRESS_KIND, ierr)
    call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
    call mpi_comm_get_attr(dup, keyval, value, flag, ierr)
    if (.not. flag .or. value /= 15 .or. copies /= 1) call fail('user copy callback')
    call mpi_comm_free(dup, ierr)
    if (deletes /= 1) call fail('user delete callback')

    ! The predefined DUP function copies the value unchanged.
    call mpi_comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, 0_MPI_ADDRESS_KIND, ierr)
    call mpi_comm_set_attr(MPI_COMM_WORLD, dupkey, 77_MPI_ADDRESS_KIND, ierr)
    call mpi_comm_dup(MPI_COMM_WORLD, dup2, ierr)
    call mpi_comm_get_attr(dup2, dupkey, value, flag, ierr)
    if (.not. flag .or. value /= 77) call fail('MPI_COMM_DUP_FN')
    call mpi_comm_free(dup2, ierr)
    call mpi_comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
    if (deletes /= 3) call fail('delete on free and on delete_attr')
    call mpi_comm_free_keyval(keyval, ierr)
    call mpi_comm_free_keyval(dupkey, ierr)

    ! Datatype attributes: the NULL copy function drops the attribute on dup.
    call mpi_type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, typekey, &
                                0_MPI_ADDRESS_KIND, ierr)
    call mpi_type_set_attr(MPI_INTEGER, typekey, 3_MPI_ADDRESS_KIND, ierr)
    call mpi_type_get_attr(MPI_INTEGER, typekey, value, flag, ierr)
    if (.not. flag .or. value /= 3) call fail('type attribute')
    call mpi_type_dup(MPI_INTEGER, newtype, ierr)
    call mpi_type_get_attr(newtype, typekey, value, flag, ierr)
    if (flag) call fail('MPI_TYPE_NULL_COPY_FN copied')
    call mpi_type_free(newtype, ierr)
    call mpi_type_delete_attr(MPI_INTEGER, typekey, ierr)
    call mpi_type_free_keyval(typekey, ierr)

    ! MPI-1: default INTEGER values.
    call mpi_keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, oldkey, 0, ierr)
    call mpi_attr_put(MPI_COMM_WORLD, oldkey, 123, ierr)
    call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
    call mpi_attr_get(dup, oldkey, old_value, flag, ierr)
    if (.not. flag .or. old_value /= 123) call fail('MPI-1 attribute')
    call mpi_comm_free(dup, ierr)
    call mpi_attr_delete(MPI_COMM_WORLD, oldkey, ierr)
    call mpi_keyval_free(oldkey, ierr)

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

end program f_attr
