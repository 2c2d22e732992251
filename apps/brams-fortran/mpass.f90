! mpass: the halo exchange of the BRAMS proxy's Fortran twin, as BRAMS's message passing does
! it: each side's edge columns of the five fields are packed with MPI_PACK into a buffer sent as
! MPI_PACKED with MPI_ISEND (the neighbour's halo posted with MPI_IRECV), MPI_WAITALL, then
! MPI_UNPACK into the halo. At the domain's edge the halo repeats the edge columns (zero
! gradient). The packing order is the C++ proxy's: field by field, column by column along the
! side. mem_para holds the buffers.
module mem_para
  use mem_grid, only: r8
  implicit none
  integer :: buffer_bytes = 0                 ! bytes of each side's buffer
  real(r8), allocatable :: send_buffer(:, :)  ! (buffer_bytes / 8 rounded up, side)
  real(r8), allocatable :: recv_buffer(:, :)
  !$omp threadprivate(buffer_bytes, send_buffer, recv_buffer)
end module mem_para

! The packed buffers, large enough for the longest side of this rank's block.
subroutine alloc_buffers()
  use mem_grid, only: nz, lx, ly
  use mem_fields, only: nfields
  use mem_para
  implicit none
  include 'mpif.h'
  integer :: column_bytes, ierr, edge
  integer(8) :: bytes
  edge = max(lx, ly)
  call MPI_PACK_SIZE(nz, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, column_bytes, ierr)
  bytes = int(column_bytes, 8) * edge * nfields
  if (bytes > 2147483647_8) then
    write (0, '(a)') 'brams: a halo would be more than 2^31 - 1 bytes in one message'
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  buffer_bytes = int(bytes)
  allocate (send_buffer((buffer_bytes + 7) / 8, 4), recv_buffer((buffer_bytes + 7) / 8, 4))
  send_buffer = 0.0_r8
  recv_buffer = 0.0_r8
end subroutine alloc_buffers

subroutine dealloc_buffers()
  use mem_para
  implicit none
  deallocate (send_buffer, recv_buffer)
end subroutine dealloc_buffers

! The columns of side s: the first (i, j), the step along the side and how many.
subroutine side_columns(s, halo, i0, j0, di, dj, n)
  use mem_grid, only: lx, ly, west, east, south
  implicit none
  integer, intent(in) :: s
  logical, intent(in) :: halo
  integer, intent(out) :: i0, j0, di, dj, n
  di = 0
  dj = 0
  if (s == west .or. s == east) then
    i0 = 1
    if (s == west .and. halo) i0 = 0
    if (s == east) i0 = lx
    if (s == east .and. halo) i0 = lx + 1
    j0 = 1
    dj = 1
    n = ly
  else
    j0 = 1
    if (s == south .and. halo) j0 = 0
    if (s /= south) j0 = ly
    if (s /= south .and. halo) j0 = ly + 1
    i0 = 1
    di = 1
    n = lx
  end if
end subroutine side_columns

! Packs one field's edge columns of side s at position (bytes) of buffer.
subroutine pack_field(a, s, buffer, position)
  use mem_grid, only: r8, nz, lx, ly
  use mem_para, only: buffer_bytes
  implicit none
  include 'mpif.h'
  real(r8), intent(in) :: a(nz, 0:lx + 1, 0:ly + 1)
  integer, intent(in) :: s
  real(r8), intent(inout) :: buffer(*)
  integer, intent(inout) :: position
  integer :: i0, j0, di, dj, n, m, ierr
  call side_columns(s, .false., i0, j0, di, dj, n)
  do m = 0, n - 1
    call MPI_PACK(a(1, i0 + m * di, j0 + m * dj), nz, MPI_DOUBLE_PRECISION, buffer(1), &
                  buffer_bytes, position, MPI_COMM_WORLD, ierr)
  end do
end subroutine pack_field

! Unpacks one field's halo columns of side s from position (bytes) of buffer.
subroutine unpack_field(a, s, buffer, position)
  use mem_grid, only: r8, nz, lx, ly
  use mem_para, only: buffer_bytes
  implicit none
  include 'mpif.h'
  real(r8), intent(inout) :: a(nz, 0:lx + 1, 0:ly + 1)
  integer, intent(in) :: s
  real(r8), intent(in) :: buffer(*)
  integer, intent(inout) :: position
  integer :: i0, j0, di, dj, n, m, ierr
  call side_columns(s, .true., i0, j0, di, dj, n)
  do m = 0, n - 1
    call MPI_UNPACK(buffer(1), buffer_bytes, position, a(1, i0 + m * di, j0 + m * dj), nz, &
                    MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  end do
end subroutine unpack_field

! At the domain's edge: the halo columns of side s repeat the edge columns.
subroutine fill_boundary(a, s)
  use mem_grid, only: r8, nz, lx, ly, west, east, south, north
  implicit none
  real(r8), intent(inout) :: a(nz, 0:lx + 1, 0:ly + 1)
  integer, intent(in) :: s
  integer :: i, j
  select case (s)
  case (west)
    do j = 1, ly
      a(:, 0, j) = a(:, 1, j)
    end do
  case (east)
    do j = 1, ly
      a(:, lx + 1, j) = a(:, lx, j)
    end do
  case (south)
    do i = 1, lx
      a(:, i, 0) = a(:, i, 1)
    end do
  case (north)
    do i = 1, lx
      a(:, i, ly + 1) = a(:, i, ly)
    end do
  end select
end subroutine fill_boundary

! The halo exchange of the five prognostic fields.
subroutine exchange()
  use mem_grid, only: neighbour
  use mem_fields, only: th, qv, qc, u, v
  use mem_para
  implicit none
  include 'mpif.h'
  integer :: s, n, position, ierr
  integer :: requests(8)
  n = 0
  do s = 1, 4
    if (neighbour(s) == MPI_PROC_NULL) cycle
    position = 0
    call pack_field(th, s, send_buffer(1, s), position)
    call pack_field(qv, s, send_buffer(1, s), position)
    call pack_field(qc, s, send_buffer(1, s), position)
    call pack_field(u, s, send_buffer(1, s), position)
    call pack_field(v, s, send_buffer(1, s), position)
    ! Tag: the side as the receiver sees it (my west edge is my west neighbour's east halo).
    call MPI_IRECV(recv_buffer(1, s), buffer_bytes, MPI_PACKED, neighbour(s), s - 1, &
                   MPI_COMM_WORLD, requests(n + 1), ierr)
    call MPI_ISEND(send_buffer(1, s), position, MPI_PACKED, neighbour(s), ieor(s - 1, 1), &
                   MPI_COMM_WORLD, requests(n + 2), ierr)
    n = n + 2
  end do
  call MPI_WAITALL(n, requests, MPI_STATUSES_IGNORE, ierr)
  do s = 1, 4
    if (neighbour(s) == MPI_PROC_NULL) then
      call fill_boundary(th, s)
      call fill_boundary(qv, s)
      call fill_boundary(qc, s)
      call fill_boundary(u, s)
      call fill_boundary(v, s)
    else
      position = 0
      call unpack_field(th, s, recv_buffer(1, s), position)
      call unpack_field(qv, s, recv_buffer(1, s), position)
      call unpack_field(qc, s, recv_buffer(1, s), position)
      call unpack_field(u, s, recv_buffer(1, s), position)
      call unpack_field(v, s, recv_buffer(1, s), position)
    end if
  end do
end subroutine exchange
