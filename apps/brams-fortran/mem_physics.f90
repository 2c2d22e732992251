! mem_physics: the physics of the BRAMS proxy's Fortran twin: its constants (non-dimensional:
! one grid length, one time unit), the storm, radiation and topography options, and the small
! functions the dynamics and the physics share (saturation vapour, background wind, terrain).
! The formulas keep apps/brams/model.cpp's order of operations, so the results are the same bits.
module mem_physics
  use mem_grid, only: r8
  implicit none

  real(r8), parameter :: nu = 0.04_r8           ! horizontal diffusion
  real(r8), parameter :: nu_z = 0.02_r8         ! vertical diffusion
  real(r8), parameter :: relax_time = 50.0_r8   ! wind relaxation to the background flow
  real(r8), parameter :: buoyancy = 0.02_r8     ! wind pushed by temperature gradients
  real(r8), parameter :: qsat0 = 0.02_r8        ! saturation vapour at level 0, th = 0
  real(r8), parameter :: latent = 2.0_r8        ! heating per unit condensed
  real(r8), parameter :: qc_fall = 0.002_r8     ! cloud water above which it falls out
  real(r8), parameter :: cooling_time = 200.0_r8
  real(r8), parameter :: cfl = 0.4_r8
  real(r8), parameter :: dt_max = 0.5_r8
  real(r8), parameter :: two_pi = 6.283185307179586_r8
  real(r8), parameter :: background_v = 0.25_r8

  ! --storm-work, --storm-radius (0: nx / 10, at least 2), --storm-drift, --radiation-every,
  ! --radiation-work, --topography
  integer :: storm_work = 128, storm_radius = 0, storm_drift = 55
  integer :: radiation_every = 100, radiation_work = 6, topography = 0
  !$omp threadprivate(storm_work, storm_radius, storm_drift, radiation_every, radiation_work)
  !$omp threadprivate(topography)

contains

  ! Saturation vapour at potential temperature th on level k (from 0).
  pure real(r8) function qsat(th, k)
    real(r8), intent(in) :: th
    integer, intent(in) :: k
    qsat = qsat0 * exp((-0.08_r8) * real(k, r8) + 0.06_r8 * th)
  end function qsat

  ! The background flow's u at global row gy, level k (from 0): the row's factor times the
  ! level's, in the C++ proxy's order.
  pure real(r8) function background_u(gy, k, ny, nz)
    integer, intent(in) :: gy, k, ny, nz
    background_u = background_row(gy, ny) * (0.5_r8 + real(k, r8) / real(nz, r8))
  end function background_u

  ! The row's factor of background_u: the dynamics computes it once per row (its sine is most of
  ! the formula's cost; the C++ compiler hoists it out of the level loop itself).
  pure real(r8) function background_row(gy, ny)
    integer, intent(in) :: gy, ny
    background_row = 0.6_r8 * (1.0_r8 + 0.5_r8 * sin(two_pi * real(gy, r8) / real(ny, r8)))
  end function background_row

  ! Terrain height in [0, 1) at global column (gx, gy): a ridge across the domain.
  pure real(r8) function terrain(gx, gy, nx, ny)
    integer, intent(in) :: gx, gy, nx, ny
    real(r8) :: x, y, d
    x = real(gx, r8) / real(nx, r8)
    y = real(gy, r8) / real(ny, r8)
    d = (y - 0.3_r8 - 0.4_r8 * x) / 0.12_r8
    terrain = exp((-d) * d)
  end function terrain

end module mem_physics
