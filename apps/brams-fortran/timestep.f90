! timestep: the CFL-like time step of the BRAMS proxy's Fortran twin: the largest horizontal
! wind speed sum |u| + |v| over every rank's columns (MPI_ALLREDUCE, MPI_MAX) sets the next
! step, cfl / wind, at most dt_max.
subroutine local_wind(largest)
  use mem_grid, only: r8, nz, lx, ly
  use mem_fields, only: u, v
  implicit none
  real(r8), intent(out) :: largest
  integer :: i, j, k
  real(r8) :: s
  largest = 0.0_r8
  do j = 1, ly
    do i = 1, lx
      do k = 1, nz
        s = abs(u(k, i, j)) + abs(v(k, i, j))
        if (s > largest) largest = s
      end do
    end do
  end do
end subroutine local_wind

subroutine set_time_step()
  use mem_grid, only: r8, dtlt, wind_max
  use mem_physics, only: cfl, dt_max
  implicit none
  include 'mpif.h'
  real(r8) :: local, global, dt
  integer :: ierr
  call local_wind(local)
  global = 0.0_r8
  call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  wind_max = global
  if (global > 0.0_r8) then
    dt = cfl / global
  else
    dt = dt_max
  end if
  if (dt < dt_max) then
    dtlt = dt
  else
    dtlt = dt_max
  end if
end subroutine set_time_step
