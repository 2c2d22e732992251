! physics: the column physics of the BRAMS proxy's Fortran twin, column by column: vapour from
! the storm's source (which develops over the first fifth of the run and drifts slowly north),
! the microphysics (micro.f: saturation adjustment, whose Newton iterations only saturated levels
! need, so a storm's columns cost more, and the fall-out into rain), radiation every
! --radiation-every steps (heavier where the sun is), Newtonian cooling and an optional
! topographic drag (a static extra cost). The order of operations is apps/brams/model.cpp's.
subroutine physics()
  use mem_grid, only: nx, ny, nz, nsteps, lx, ly, x0, y0, istep, dtlt
  use mem_physics, only: storm_work, storm_drift, storm_radius, radiation_every
  use mem_fields, only: th, qv, qc, u, v, rain
  implicit none
  call phys_core(nx, ny, nz, nsteps, lx, ly, x0, y0, istep, dtlt, storm_work, storm_drift, &
                 storm_radius, radiation_every, th, qv, qc, u, v, rain)
end subroutine physics

subroutine phys_core(nx, ny, nz, nsteps, lx, ly, x0, y0, step, dt, storm_work, storm_drift, &
                     storm_radius, radiation_every, th, qv, qc, u, v, rain)
  use mem_grid, only: r8
  use mem_physics, only: two_pi, cooling_time, radiation_work, topography, terrain
  implicit none
  integer, intent(in) :: nx, ny, nz, nsteps, lx, ly, x0, y0, step, storm_work, storm_drift, &
                         storm_radius, radiation_every
  real(r8), intent(in) :: dt
  real(r8), dimension(nz, 0:lx + 1, 0:ly + 1), intent(inout) :: th, qv, qc, u, v
  real(r8), intent(inout) :: rain(lx, ly)
  integer :: i, j, k, it, gx, gy, low, passes, levels
  real(r8) :: progress, drift, storm_x, storm_y, strength, radius2, sun_x, ddx, ddy, r2
  real(r8) :: source, sun, flux, depth, transmitted, h
  logical :: radiation

  progress = real(step, r8) / real(nsteps, r8)
  ! The storm: develops over the first fifth of the run and drifts slowly north.
  drift = real(storm_drift, r8) / 100.0_r8   ! of the domain's depth over the run
  storm_x = real(nx, r8) * (0.22_r8 + 0.33_r8 * drift * progress)
  storm_y = real(ny, r8) * (0.2_r8 + drift * progress)
  if (progress < 0.2_r8) then
    strength = 0.004_r8 * (0.25_r8 + 3.75_r8 * progress)
  else
    strength = 0.004_r8 * 1.0_r8
  end if
  radius2 = real(storm_radius, r8) * real(storm_radius, r8)
  radiation = .false.
  if (radiation_every > 0) radiation = mod(step, radiation_every) == 0
  sun_x = real(nx, r8) * (0.5_r8 * progress - real(floor(0.5_r8 * progress, 8), r8))

  do j = 1, ly
    do i = 1, lx
      gx = x0 + i - 1
      gy = y0 + j - 1
      ! Vapour from the storm's source into the lower half of the column.
      ddx = real(gx, r8) - storm_x
      ddy = real(gy, r8) - storm_y
      r2 = (ddx * ddx + ddy * ddy) / radius2
      if (r2 < 9.0_r8) then
        source = strength * exp(-r2)
        low = max(nz / 2, 1)
        do k = 0, low - 1
          qv(k + 1, i, j) = qv(k + 1, i, j) + dt * source * (1.0_r8 - real(k, r8) / real(low, r8))
        end do
      end if
      ! Saturation adjustment bottom up, fall-out top down (micro.f).
      call miccol(nz, storm_work, th(1, i, j), qv(1, i, j), qc(1, i, j), rain(i, j))
      ! Radiation: a pass down the column on radiation steps, more iterations under the sun.
      if (radiation) then
        sun = cos(two_pi * (real(gx, r8) - sun_x) / real(nx, r8))
        if (sun < 0.0_r8) sun = 0.0_r8
        passes = 1 + int(real(radiation_work, r8) * sun)
        flux = 0.1_r8 + sun
        do k = nz, 1, -1
          depth = 0.05_r8 + 20.0_r8 * qc(k, i, j)
          transmitted = 1.0_r8
          do it = 1, passes
            transmitted = 0.5_r8 * (transmitted + exp((-depth) * real(it, r8) / real(passes, r8)))
          end do
          th(k, i, j) = th(k, i, j) + dt * 0.5_r8 * flux * (1.0_r8 - transmitted)
          flux = flux * transmitted
        end do
      end if
      do k = 1, nz
        th(k, i, j) = th(k, i, j) - dt * th(k, i, j) / cooling_time
      end do
      ! Topography: drag on the lowest levels, iterated by height (a static extra cost).
      if (topography > 0) then
        h = terrain(gx, gy, nx, ny)
        passes = int(real(topography, r8) * h)
        levels = min(nz, 3)
        do it = 1, passes
          do k = 1, levels
            u(k, i, j) = u(k, i, j) * (1.0_r8 - 1.0e-4_r8 * h * &
                         sqrt(u(k, i, j) * u(k, i, j) + v(k, i, j) * v(k, i, j)))
            v(k, i, j) = v(k, i, j) * (1.0_r8 - 1.0e-4_r8 * h)
          end do
        end do
      end if
    end do
  end do
end subroutine phys_core
