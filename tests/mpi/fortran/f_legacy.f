! MPI-1's removed calls from fixed-form Fortran with mpif.h, as old codes
! make them: addresses and extents as default INTEGERs (MPI_ADDRESS,
! MPI_TYPE_EXTENT, MPI_TYPE_HINDEXED, MPI_TYPE_STRUCT), MPI_ERRHANDLER_SET
! and _GET; and MPI_OP_COMMUTATIVE, MPI_COMM_GET_PARENT.
      program f_legacy
      implicit none
      include 'mpif.h'
      integer ierr, rank, errors, a1, a2, extent, newtype, handler
      integer lengths(2), displs(2), types(2), parent, size
      integer buf(8)
      logical commute
      errors = 0
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_address(buf(1), a1, ierr)
      call mpi_address(buf(3), a2, ierr)
      if (a2 - a1 .ne. 8) errors = errors + 1
      call mpi_type_extent(MPI_INTEGER, extent, ierr)
      if (extent .ne. 4) errors = errors + 1
      lengths(1) = 1
      lengths(2) = 2
      displs(1) = 0
      displs(2) = 12
      call mpi_type_hindexed(2, lengths, displs, MPI_INTEGER, newtype,
     &                       ierr)
      call mpi_type_size(newtype, size, ierr)
      if (size .ne. 12) errors = errors + 1
      call mpi_type_extent(newtype, extent, ierr)
      if (extent .ne. 20) errors = errors + 1
      call mpi_type_free(newtype, ierr)
      types(1) = MPI_INTEGER
      types(2) = MPI_INTEGER
      call mpi_type_struct(2, lengths, displs, types, newtype, ierr)
      call mpi_type_extent(newtype, extent, ierr)
      if (extent .ne. 20) errors = errors + 1
      call mpi_type_free(newtype, ierr)
      call mpi_errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
      call mpi_errhandler_get(MPI_COMM_WORLD, handler, ierr)
      if (handler .ne. MPI_ERRORS_RETURN) errors = errors + 1
      call mpi_op_commutative(MPI_SUM, commute, ierr)
      if (.not. commute) errors = errors + 1
      call mpi_comm_get_parent(parent, ierr)
      if (parent .ne. MPI_COMM_NULL) errors = errors + 1
      if (rank .eq. 0 .and. errors .eq. 0) write (*, '(a)') 'No Errors'
      if (errors .ne. 0) print *, 'Found', errors, 'errors'
      call mpi_finalize(ierr)
      end
