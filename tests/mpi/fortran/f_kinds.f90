! Fortran's side of external32 and of the parameterised types, through the
! mpi module: MPI_PACK_EXTERNAL of INTEGER, DOUBLE PRECISION and CHARACTER
! data (the datarep a blank-padded CHARACTER argument), its exact bytes and
! round trip; MPI_TYPE_CREATE_F90_REAL/INTEGER for SELECTED_REAL_KIND(30)
! (REAL(16)) and SELECTED_INT_KIND(15) variables, reduced with the types they
! return, their envelopes; MPI_REAL16 and MPI_TYPE_MATCH_SIZE.
!
! MPICH 4.0 has no f90 type beyond 8 bytes, reduces REAL(16) as x87 long
! doubles and accepts any datarep: with MPICH those checks are skipped.
program f_kinds
    use mpi
    implicit none
    integer, parameter :: qp = selected_real_kind(30), i8 = selected_int_kind(15)
    integer :: ierr, rank, nprocs, errors, i, length, qtype, itype, rtype, t
    integer :: nints, naddrs, ntypes, combiner, ints(2), types(1)
    integer(kind=MPI_ADDRESS_KIND) :: bytes, position, addrs(1)
    integer :: values(10), values_back(10)
    double precision :: reals(3), reals_back(3)
    character(len=16) :: text, text_back
    character(len=1) :: packed(100)
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
    real(kind=qp) :: q(2), qsum(2), tiny
    integer(kind=i8) :: big, bigsum
    double precision :: d, dsum
    logical :: mpich

    errors = 0
    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call mpi_get_library_version(version, length, ierr)
    mpich = index(version, 'MPICH') > 0

    ! ---- external32 --------------------------------------------------------
    call mpi_pack_external_size('external32', 10, MPI_INTEGER, bytes, ierr)
    if (bytes /= 40) call fail('the external32 size of 10 INTEGERs')
    call mpi_pack_external_size('external32', 3, MPI_DOUBLE_PRECISION, bytes, ierr)
    if (bytes /= 24) call fail('the external32 size of 3 DOUBLE PRECISIONs')
    values = [(1000 * i - 3, i = 1, 10)]
    reals = [0.5d0, -1d0, 1d300]
    text = 'This is a string'
    position = 0
    call mpi_pack_external('external32', values, 10, MPI_INTEGER, packed, 100_MPI_ADDRESS_KIND, &
                           position, ierr)
    call mpi_pack_external('external32  ', reals, 3, MPI_DOUBLE_PRECISION, packed, &
                           100_MPI_ADDRESS_KIND, position, ierr)
    call mpi_pack_external('external32', text, 16, MPI_CHARACTER, packed, 100_MPI_ADDRESS_KIND, &
                           position, ierr)
    if (position /= 40 + 24 + 16) call fail('the position after three packs')
    ! 997 = z'3e5', most significant byte first; 0.5d0 = z'3fe0000000000000'.
    if (any(ichar(packed(1:4)) /= [0, 0, 3, 229])) call fail('the bytes of INTEGER 997')
    if (any(ichar(packed(41:48)) /= [63, 224, 0, 0, 0, 0, 0, 0])) call fail('the bytes of 0.5d0')
    if (packed(65) /= 'T' .or. packed(80) /= 'g') call fail('the CHARACTER bytes')
    position = 0
    call mpi_unpack_external('external32', packed, 80_MPI_ADDRESS_KIND, position, values_back, &
                             10, MPI_INTEGER, ierr)
    call mpi_unpack_external('external32', packed, 80_MPI_ADDRESS_KIND, position, reals_back, &
                             3, MPI_DOUBLE_PRECISION, ierr)
    call mpi_unpack_external('external32', packed, 80_MPI_ADDRESS_KIND, position, text_back, &
                             16, MPI_CHARACTER, ierr)
    if (any(values_back /= values)) call fail('INTEGERs unpacked')
    if (any(reals_back /= reals)) call fail('DOUBLE PRECISIONs unpacked')
    if (text_back /= text) call fail('CHARACTERs unpacked')
    if (.not. mpich) then
        call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
        call mpi_pack_external_size('native', 1, MPI_INTEGER, bytes, ierr)
        call mpi_error_class(ierr, t, ierr)
        if (t /= MPI_ERR_ARG) call fail('datarep native')
        call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    end if

    ! ---- parameterised types -----------------------------------------------
    call mpi_type_create_f90_integer(15, itype, ierr)
    big = 2_i8**40 + rank
    call mpi_allreduce(big, bigsum, 1, itype, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (bigsum /= nprocs * 2_i8**40 + nprocs * (nprocs - 1) / 2) call fail('INTEGER(8) sum')
    call mpi_type_create_f90_real(15, MPI_UNDEFINED, rtype, ierr)
    call mpi_type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
    if (t /= rtype) call fail('one handle for the same (p, r)')
    d = rank + 0.5d0
    call mpi_allreduce(d, dsum, 1, rtype, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (dsum /= nprocs * (nprocs - 1) / 2 + 0.5d0 * nprocs) call fail('REAL(8) sum')
    call mpi_type_get_envelope(rtype, nints, naddrs, ntypes, combiner, ierr)
    if (combiner /= MPI_COMBINER_F90_REAL .or. nints /= 2 .or. naddrs /= 0 .or. ntypes /= 0) &
        call fail('the envelope of an f90 REAL')
    call mpi_type_get_contents(rtype, 2, 0, 0, ints, addrs, types, ierr)
    if (ints(1) /= 15 .or. ints(2) /= MPI_UNDEFINED) call fail('the contents of an f90 REAL')
    call mpi_type_get_envelope(itype, nints, naddrs, ntypes, combiner, ierr)
    if (combiner /= MPI_COMBINER_F90_INTEGER .or. nints /= 1) call fail('an f90 INTEGER')

    call mpi_type_match_size(MPI_TYPECLASS_REAL, storage_size(d) / 8, t, ierr)
    if (t /= MPI_REAL8) call fail('MPI_TYPE_MATCH_SIZE of a REAL(8)')
    call mpi_type_match_size(MPI_TYPECLASS_REAL, storage_size(q(1)) / 8, t, ierr)
    if (t /= MPI_REAL16) call fail('MPI_TYPE_MATCH_SIZE of a REAL(16)')

    if (.not. mpich) then
        ! 1 + 2**-100 is not 1 in REAL(16), as it would be in REAL(10).
        tiny = 2.0_qp**(-100)
        call mpi_type_create_f90_real(30, MPI_UNDEFINED, qtype, ierr)
        q = [1 + rank * tiny, -rank - 0.25_qp]
        call mpi_allreduce(q, qsum, 2, qtype, MPI_SUM, MPI_COMM_WORLD, ierr)
        if (qsum(1) /= nprocs + nprocs * (nprocs - 1) / 2 * tiny) call fail('REAL(16) sum')
        call mpi_allreduce(q, qsum, 2, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD, ierr)
        if (qsum(1) /= 1 + (nprocs - 1) * tiny .or. qsum(2) /= -0.25_qp) call fail('REAL16 max')
        call mpi_pack_external_size('external32', 1, qtype, bytes, ierr)
        if (bytes /= 16) call fail('the external32 size of a REAL(16)')
    end if

    call mpi_allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_finalize(ierr)
    if (rank == 0 .and. errors == 0) write (*, '(a)') 'No Errors'
    if (rank == 0 .and. errors /= 0) write (*, '(a,i0,a)') 'Found ', errors, ' errors'

contains

    subroutine fail(what)
        character(*), intent(in) :: what
        errors = errors + 1
        write (*, '(a,i0,2a)') 'rank ', rank, ': wrong ', what
    end subroutine fail

end program f_kinds
