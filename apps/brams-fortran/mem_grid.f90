! mem_grid: the grid of the BRAMS proxy's Fortran twin (apps/brams/model.cpp) and its
! decomposition: the domain's size, the run's length, the rank grid and this rank's block of
! columns, its neighbours, and the model clock (step, time step). Module variables, as BRAMS
! keeps them; each rank has its own copy (one per process under Open MPI, per rank under Vela).
module mem_grid
  implicit none
  integer, parameter :: r8 = selected_real_kind(15, 307)

  ! The sides of a block, in the C++ proxy's order (LEFT, RIGHT, DOWN, UP).
  integer, parameter :: west = 1, east = 2, south = 3, north = 4

  ! The domain: nx x ny columns of nz levels, run for nsteps steps (--nx, --ny, --nz, --steps).
  integer :: nx = 64, ny = 64, nz = 20, nsteps = 240

  ! The rank grid (px x py blocks) and this rank's place in it.
  integer :: mynum = 0, nmachs = 1, px = 1, py = 1, bx = 0, by = 0
  ! This rank's block: columns x0 .. x0 + lx - 1 and y0 .. y0 + ly - 1 (global, from 0).
  integer :: x0 = 0, y0 = 0, lx = 0, ly = 0
  integer :: neighbour(4)

  ! The model clock: the step under way, the time step and the largest wind it came from.
  integer :: istep = 0
  real(r8) :: dtlt = 0.0_r8, wind_max = 0.0_r8
  ! One copy per thread with OpenMP, so per rank under --vp-privatize tls (the TLS method of
  ! seed 000's Table 4.1); mere comments otherwise.
  !$omp threadprivate(nx, ny, nz, nsteps, mynum, nmachs, px, py, bx, by, x0, y0, lx, ly)
  !$omp threadprivate(neighbour, istep, dtlt, wind_max)

contains

  ! The rank grid closest to square for n ranks: npx >= npy, npx * npy = n.
  subroutine rank_grid(n, npx, npy)
    integer, intent(in) :: n
    integer, intent(out) :: npx, npy
    integer :: d, best
    best = 1
    d = 1
    do while (int(d, 8) * d <= n)
      if (mod(n, d) == 0) best = d
      d = d + 1
    end do
    npx = n / best
    npy = best
  end subroutine rank_grid

  ! The first of the cells of block b when cells are split in blocks differing by at most one.
  integer function range_start(cells, blocks, b)
    integer, intent(in) :: cells, blocks, b
    range_start = int(int(cells, 8) * b / blocks)
  end function range_start

  ! Rank r's block, as decompose gives it to rank r.
  subroutine block_of(r, rx0, ry0, rlx, rly)
    integer, intent(in) :: r
    integer, intent(out) :: rx0, ry0, rlx, rly
    integer :: rbx, rby
    rbx = mod(r, px)
    rby = r / px
    rx0 = range_start(nx, px, rbx)
    ry0 = range_start(ny, py, rby)
    rlx = range_start(nx, px, rbx + 1) - rx0
    rly = range_start(ny, py, rby + 1) - ry0
  end subroutine block_of

  ! This rank's place in the rank grid; .false. (rank 0 saying why) when some rank would have no
  ! column.
  logical function decompose(rank, size)
    integer, intent(in) :: rank, size
    include 'mpif.h'
    mynum = rank
    nmachs = size
    call rank_grid(size, px, py)
    if (px > nx .or. py > ny) then
      if (rank == 0) then
        write (0, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'brams: ', size, ' ranks make a ', px, ' x ', &
          py, ' grid of blocks, more than the ', nx, ' x ', ny, &
          ' columns (--nx, --ny): every rank needs at least one column'
      end if
      decompose = .false.
      return
    end if
    bx = mod(rank, px)
    by = rank / px
    call block_of(rank, x0, y0, lx, ly)
    neighbour = MPI_PROC_NULL
    if (bx > 0) neighbour(west) = rank - 1
    if (bx + 1 < px) neighbour(east) = rank + 1
    if (by > 0) neighbour(south) = rank - px
    if (by + 1 < py) neighbour(north) = rank + px
    decompose = .true.
  end function decompose

end module mem_grid
