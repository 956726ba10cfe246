!     Collectives, communicators and the environment from fixed-form
!     Fortran with mpif.h, as NPB-era codes are written: MPI_IN_PLACE,
!     MPI_BOTTOM, the Fortran datatypes (MPI_2DOUBLE_PRECISION with
!     MPI_MAXLOC, MPI_LOGICAL with MPI_LAND), a user operation written in
!     Fortran, CHARACTER arguments, attributes, error classes returned
!     under MPI_ERRORS_RETURN. Rank 0 prints "No Errors" after
!     MPI_Finalize.
      program f_coll
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, errors, i, root, color, sub, dup
      integer subrank, subsize, vec, strct, back, k, op, info, nkeys
      integer rc, cls
      integer len, ints(8), all(64), blocks(2), types(2), reqs(2)
      integer (kind=MPI_ADDRESS_KIND) tagub, disps(2)
      integer tagub1
      double precision x, y, sums, pairs(2), best(2)
      real grid(4, 3), col(3)
      logical flag, mine, every
      character*(MPI_MAX_OBJECT_NAME) name
      character*(MPI_MAX_ERROR_STRING) message
      character*(MPI_MAX_PROCESSOR_NAME) host
      character*(MPI_MAX_INFO_VAL) value
      external twice
      common /failures/ errors
      errors = 0
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
      root = nprocs - 1

!     Bcast, Reduce, Allreduce in place.
      do i = 1, 8
         ints(i) = 0
         if (rank .eq. root) ints(i) = i * i
      end do
      call mpi_bcast(ints, 8, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      if (ints(8) .ne. 64) call fail(rank, 'bcast')
      x = dble(rank + 1)
      call mpi_reduce(x, sums, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. sums .ne. dble(nprocs * (nprocs + 1) / 2))
     &   call fail(rank, 'reduce')
      i = rank
      call mpi_allreduce(MPI_IN_PLACE, i, 1, MPI_INTEGER, MPI_MAX,
     &                   MPI_COMM_WORLD, ierr)
      if (i .ne. nprocs - 1) call fail(rank, 'allreduce in place')

!     MAXLOC on value-index pairs; LAND on LOGICAL.
      pairs(1) = dble(mod(rank, 2))
      pairs(2) = dble(rank)
      call mpi_allreduce(pairs, best, 1, MPI_2DOUBLE_PRECISION,
     &                   MPI_MAXLOC, MPI_COMM_WORLD, ierr)
      if (nprocs .gt. 1 .and. best(2) .ne. 1d0)
     &   call fail(rank, 'maxloc')
      mine = rank .ge. 0
      call mpi_allreduce(mine, every, 1, MPI_LOGICAL, MPI_LAND,
     &                   MPI_COMM_WORLD, ierr)
      if (.not. every) call fail(rank, 'land')

!     A user operation written in Fortran.
      call mpi_op_create(twice, .true., op, ierr)
      i = 1
      call mpi_allreduce(MPI_IN_PLACE, i, 1, MPI_INTEGER, op,
     &                   MPI_COMM_WORLD, ierr)
      if (i .ne. nprocs) call fail(rank, 'user op')
      call mpi_op_free(op, ierr)

!     Gather to the root, scatter back, alltoall.
      call mpi_gather(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, root,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. root) then
         do i = 1, nprocs
            if (all(i) .ne. i - 1) call fail(rank, 'gather')
            all(i) = 10 * i
         end do
      end if
      call mpi_scatter(all, 1, MPI_INTEGER, i, 1, MPI_INTEGER, root,
     &                 MPI_COMM_WORLD, ierr)
      if (i .ne. 10 * (rank + 1)) call fail(rank, 'scatter')
      do i = 1, nprocs
         all(i) = rank * 100 + i
      end do
      call mpi_alltoall(all, 1, MPI_INTEGER, ints, 1, MPI_INTEGER,
     &                  MPI_COMM_WORLD, ierr)
      if (ints(1) .ne. rank + 1) call fail(rank, 'alltoall')

!     Split by parity, dup, names.
      color = mod(rank, 2)
      call mpi_comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
      call mpi_comm_rank(sub, subrank, ierr)
      call mpi_comm_size(sub, subsize, ierr)
      if (subrank .ne. subsize - 1 - rank / 2) call fail(rank, 'split')
      call mpi_comm_dup(sub, dup, ierr)
      call mpi_comm_set_name(dup, 'halves', ierr)
      call mpi_comm_get_name(dup, name, len, ierr)
      if (name .ne. 'halves' .or. len .ne. 6) call fail(rank, 'name')
      call mpi_comm_free(dup, ierr)
      call mpi_comm_free(sub, ierr)
      if (sub .ne. MPI_COMM_NULL) call fail(rank, 'comm_free')

!     Attributes: the tag bound, in both generations of the call.
      call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag,
     &                       ierr)
      if (.not. flag .or. tagub .lt. 32767) call fail(rank, 'tag_ub')
      call mpi_attr_get(MPI_COMM_WORLD, MPI_TAG_UB, tagub1, flag, ierr)
      if (.not. flag .or. tagub1 .ne. tagub) call fail(rank, 'attr_get')

!     Strings out of the library.
      call mpi_get_processor_name(host, len, ierr)
      if (len .lt. 1 .or. host(len+1:) .ne. ' ') call fail(rank, 'host')
      call mpi_error_string(MPI_ERR_RANK, message, len, ierr)
      if (len .lt. 1) call fail(rank, 'error_string')

!     Errors returned: a rank out of range.
      call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      call mpi_send(i, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, rc)
      call mpi_error_class(rc, cls, ierr)
      if (cls .ne. MPI_ERR_RANK) call fail(rank, 'error class')

!     A strided REAL column, and a struct at absolute addresses sent
!     from MPI_BOTTOM, both to self.
      do i = 1, 12
         grid(mod(i - 1, 4) + 1, 1 + (i - 1) / 4) = real(i)
      end do
      call mpi_type_vector(3, 1, 4, MPI_REAL, vec, ierr)
      call mpi_type_commit(vec, ierr)
      call mpi_sendrecv(grid(2, 1), 1, vec, rank, 5, col, 3, MPI_REAL,
     &                  rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &                  ierr)
      if (col(1) .ne. 2.0 .or. col(3) .ne. 10.0) call fail(rank, 'vec')
      call mpi_type_free(vec, ierr)
      call mpi_get_address(x, disps(1), ierr)
      call mpi_get_address(ints(3), disps(2), ierr)
      blocks(1) = 1
      blocks(2) = 1
      types(1) = MPI_DOUBLE_PRECISION
      types(2) = MPI_INTEGER
      call mpi_type_create_struct(2, blocks, disps, types, strct, ierr)
      call mpi_type_commit(strct, ierr)
      call mpi_get_address(y, disps(1), ierr)
      call mpi_get_address(k, disps(2), ierr)
      call mpi_type_create_struct(2, blocks, disps, types, back, ierr)
      call mpi_type_commit(back, ierr)
      x = 2.5d0
      ints(3) = 77
      call mpi_irecv(MPI_BOTTOM, 1, back, rank, 6, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call mpi_isend(MPI_BOTTOM, 1, strct, rank, 6, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call mpi_waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
      if (y .ne. 2.5d0 .or. k .ne. 77) call fail(rank, 'bottom')
      call mpi_type_free(strct, ierr)
      call mpi_type_free(back, ierr)

!     Info keys and values.
      call mpi_info_create(info, ierr)
      call mpi_info_set(info, 'color', 'blue  ', ierr)
      call mpi_info_get_nkeys(info, nkeys, ierr)
      call mpi_info_get(info, 'color', MPI_MAX_INFO_VAL, value, flag,
     &                  ierr)
      if (nkeys .ne. 1 .or. .not. flag .or. value .ne. 'blue')
     &   call fail(rank, 'info')
      call mpi_info_free(info, ierr)

      call mpi_allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      call mpi_finalize(ierr)
      if (rank .eq. 0 .and. errors .eq. 0) write (*, '(a)') 'No Errors'
      if (rank .eq. 0 .and. errors .ne. 0) write (*, *) errors, 'errors'
      end

      subroutine fail(rank, what)
      integer rank, errors
      character*(*) what
      common /failures/ errors
      errors = errors + 1
      write (*, *) 'rank', rank, ': ', what
      end

!     inout(i) = in(i) + inout(i): an MPI_SUM written by the user.
      subroutine twice(in, inout, n, datatype)
      integer n, datatype, in(n), inout(n), i
      do i = 1, n
         inout(i) = in(i) + inout(i)
      end do
      end
