! diagnostics: what the BRAMS proxy's Fortran twin reports at the end of the run: the largest
! cloud water and potential temperature (MPI_REDUCE, MPI_MAX, as the C++ proxy), and where the
! time step's limit lies: every rank's smallest cfl / (|u| + |v|) with the global index of its
! level, the smallest of them with MPI_REDUCE of MPI_2DOUBLE_PRECISION pairs and MPI_MINLOC
! (ties go to the smallest index, so the place does not depend on the decomposition).

! The largest value of a field over this rank's columns (0 if none is larger).
real(8) function field_max(a)
  use mem_grid, only: r8, nz, lx, ly
  implicit none
  real(r8), intent(in) :: a(nz, 0:lx + 1, 0:ly + 1)
  integer :: i, j, k
  field_max = 0.0_r8
  do j = 1, ly
    do i = 1, lx
      do k = 1, nz
        if (a(k, i, j) > field_max) field_max = a(k, i, j)
      end do
    end do
  end do
end function field_max

! Rank 0 gets largest = (max qc, max th); the others get zeros.
subroutine reduce_maxima(largest)
  use mem_grid, only: r8
  use mem_fields, only: qc, th
  implicit none
  include 'mpif.h'
  real(r8), intent(out) :: largest(2)
  real(r8) :: local(2)
  real(r8), external :: field_max
  integer :: ierr
  local(1) = field_max(qc)
  local(2) = field_max(th)
  largest = 0.0_r8
  call MPI_REDUCE(local, largest, 2, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
end subroutine reduce_maxima

! Rank 0 gets the smallest time-step limit cfl / (|u| + |v|) over all cells (dt_max where the
! wind is calm), with its global column (gx, gy, from 0) and level (from 0).
subroutine dt_limit(limit, gx, gy, level)
  use mem_grid, only: r8, nx, nz, lx, ly, x0, y0
  use mem_physics, only: cfl, dt_max
  use mem_fields, only: u, v
  implicit none
  include 'mpif.h'
  real(r8), intent(out) :: limit
  integer, intent(out) :: gx, gy, level
  real(r8) :: pair(2), smallest(2), s, largest
  integer(8) :: where, index
  integer :: i, j, k, ierr
  largest = 0.0_r8
  where = (int(y0, 8) * nx + x0) * nz
  do j = 1, ly
    do i = 1, lx
      do k = 1, nz
        s = abs(u(k, i, j)) + abs(v(k, i, j))
        if (s > largest) then
          largest = s
          where = ((int(y0 + j - 1, 8) * nx + (x0 + i - 1)) * nz) + (k - 1)
        end if
      end do
    end do
  end do
  pair(1) = dt_max
  if (largest > 0.0_r8) pair(1) = cfl / largest
  pair(2) = real(where, r8)   ! exact: below 2^53 for every allowed size
  smallest = 0.0_r8
  call MPI_REDUCE(pair, smallest, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, 0, MPI_COMM_WORLD, ierr)
  limit = smallest(1)
  index = int(smallest(2), 8)
  level = int(mod(index, int(nz, 8)))
  gx = int(mod(index / nz, int(nx, 8)))
  gy = int(index / nz / nx)
end subroutine dt_limit
