! output: --output-raw FILE, the twin's stand-in for the C++ proxy's netCDF --output: every
! rank's block (the five fields level by level, then the rain) goes to rank 0 with MPI_GATHERV,
! which assembles the domain and writes it as raw native doubles (stream access, no record
! markers), laid out as the arrays the C++ proxy hands to netCDF: th, qv, qc, u, v each
! nz x ny x nx (x fastest), then the rain ny x nx. Collective; .false. on rank 0 when the file
! could not be written (the message printed).
logical function write_raw(path)
  use mem_grid, only: r8, nx, ny, nz, lx, ly, mynum, nmachs, block_of
  use mem_fields, only: nfields, th, qv, qc, u, v, rain
  implicit none
  include 'mpif.h'
  character(len=*), intent(in) :: path
  real(r8), allocatable :: mine(:), gathered(:), domain(:, :, :)
  integer, allocatable :: counts(:), displs(:)
  integer :: layers, n, r, rx0, ry0, rlx, rly, layer, j, ierr, unit, status
  integer(8) :: total

  layers = nfields * nz + 1
  allocate (mine(int(layers, 8) * lx * ly))
  n = 0
  call put(th)
  call put(qv)
  call put(qc)
  call put(u)
  call put(v)
  do j = 1, ly
    mine(n + 1:n + lx) = rain(:, j)
    n = n + lx
  end do
  allocate (counts(nmachs), displs(nmachs))
  total = 0
  do r = 0, nmachs - 1
    call block_of(r, rx0, ry0, rlx, rly)
    counts(r + 1) = layers * rlx * rly
    displs(r + 1) = int(total)
    total = total + int(layers, 8) * rlx * rly
  end do
  if (total > 2147483647_8) then
    if (mynum == 0) write (0, '(a)') 'brams: --output-raw: the domain is more than 2^31 - 1 '// &
      'doubles, too many for one MPI_GATHERV'
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  if (mynum == 0) then
    allocate (gathered(total))
  else
    allocate (gathered(1))
  end if
  call MPI_GATHERV(mine, n, MPI_DOUBLE_PRECISION, gathered, counts, displs, &
                   MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  write_raw = .true.
  if (mynum == 0) then
    allocate (domain(nx, ny, layers))
    do r = 0, nmachs - 1
      call block_of(r, rx0, ry0, rlx, rly)
      n = displs(r + 1)
      do layer = 1, layers
        do j = 1, rly
          domain(rx0 + 1:rx0 + rlx, ry0 + j, layer) = gathered(n + 1:n + rlx)
          n = n + rlx
        end do
      end do
    end do
    open (newunit=unit, file=path, access='stream', form='unformatted', status='replace', &
          action='write', iostat=status)
    if (status == 0) write (unit, iostat=status) domain
    if (status == 0) close (unit, iostat=status)
    if (status /= 0) then
      write (0, '(3a)') "brams: --output-raw '", trim(path), "': writing failed"
      write_raw = .false.
    end if
  end if

contains

  ! A field's interior, level by level, row by row, appended to mine.
  subroutine put(a)
    real(r8), intent(in) :: a(nz, 0:lx + 1, 0:ly + 1)
    integer :: k, i, jj
    do k = 1, nz
      do jj = 1, ly
        do i = 1, lx
          n = n + 1
          mine(n) = a(k, i, jj)
        end do
      end do
    end do
  end subroutine put

end function write_raw
