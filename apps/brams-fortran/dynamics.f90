! dynamics: one dynamics step of the BRAMS proxy's Fortran twin: upwind advection and diffusion
! (horizontal and vertical) of th, qv and qc by the horizontal wind (qv, qc kept non-negative);
! the wind diffused, relaxed to the sheared background flow and pushed by temperature gradients.
! Reads the fields with their halo, writes the next step's copies, then swaps them. Every
! expression keeps apps/brams/model.cpp's order of operations.

! The dynamics' advection kernel.
module dyn_advection
  use mem_grid, only: r8
  use mem_physics, only: nu, nu_z
  implicit none
contains

  ! Scalar a at (k, i, j) after one step of upwind advection and diffusion by wind (uk, vk).
  ! Everything comes as arguments, so that the compiler expands it in place in dyn_core.
  pure real(r8) function transported(a, nz, lx, ly, k, i, j, uk, vk, dt, positive)
    integer, intent(in) :: nz, lx, ly, k, i, j
    real(r8), intent(in) :: a(nz, 0:lx + 1, 0:ly + 1)
    real(r8), intent(in) :: uk, vk, dt
    logical, intent(in) :: positive
    real(r8) :: a0, w, e, so, no, fx, fy, below, above, lap, value
    a0 = a(k, i, j)
    w = a(k, i - 1, j)
    e = a(k, i + 1, j)
    so = a(k, i, j - 1)
    no = a(k, i, j + 1)
    if (uk > 0.0_r8) then
      fx = uk * (a0 - w)
    else
      fx = uk * (e - a0)
    end if
    if (vk > 0.0_r8) then
      fy = vk * (a0 - so)
    else
      fy = vk * (no - a0)
    end if
    below = a0
    if (k > 1) below = a(k - 1, i, j)
    above = a0
    if (k < nz) above = a(k + 1, i, j)
    lap = (w + e + so + no) - 4.0_r8 * a0
    value = a0 - dt * (fx + fy) + dt * (nu * lap + nu_z * (below + above - 2.0_r8 * a0))
    if (positive .and. value < 0.0_r8) value = 0.0_r8
    transported = value
  end function transported
end module dyn_advection

subroutine dynamics()
  use mem_grid, only: nz, ny, lx, ly, y0, dtlt
  use mem_fields
  implicit none
  call dyn_core(nz, ny, lx, ly, y0, dtlt, th, qv, qc, u, v, th_n, qv_n, qc_n, u_n, v_n)
  call swap_fields()
end subroutine dynamics

subroutine dyn_core(nz, ny, lx, ly, y0, dt, th, qv, qc, u, v, th_n, qv_n, qc_n, u_n, v_n)
  use mem_grid, only: r8
  use mem_physics, only: nu, relax_time, buoyancy, background_row, background_v
  use dyn_advection, only: transported
  implicit none
  integer, intent(in) :: nz, ny, lx, ly, y0
  real(r8), intent(in) :: dt
  real(r8), dimension(nz, 0:lx + 1, 0:ly + 1), intent(in) :: th, qv, qc, u, v
  real(r8), dimension(nz, 0:lx + 1, 0:ly + 1), intent(inout) :: th_n, qv_n, qc_n, u_n, v_n
  integer :: i, j, k
  real(r8) :: uk, vk, lap_u, lap_v, row

  do j = 1, ly
    row = background_row(y0 + j - 1, ny)
    do i = 1, lx
      do k = 1, nz
        uk = u(k, i, j)
        vk = v(k, i, j)
        th_n(k, i, j) = transported(th, nz, lx, ly, k, i, j, uk, vk, dt, .false.)
        qv_n(k, i, j) = transported(qv, nz, lx, ly, k, i, j, uk, vk, dt, .true.)
        qc_n(k, i, j) = transported(qc, nz, lx, ly, k, i, j, uk, vk, dt, .true.)
        lap_u = (u(k, i - 1, j) + u(k, i + 1, j) + u(k, i, j - 1) + u(k, i, j + 1)) - 4.0_r8 * uk
        lap_v = (v(k, i - 1, j) + v(k, i + 1, j) + v(k, i, j - 1) + v(k, i, j + 1)) - 4.0_r8 * vk
        u_n(k, i, j) = uk + dt * (nu * lap_u - (uk - row * (0.5_r8 + real(k - 1, r8) / &
                       real(nz, r8))) / relax_time - buoyancy * 0.5_r8 * (th(k, i + 1, j) - &
                       th(k, i - 1, j)))
        v_n(k, i, j) = vk + dt * (nu * lap_v - (vk - background_v) / relax_time - &
                       buoyancy * 0.5_r8 * (th(k, i, j + 1) - th(k, i, j - 1)))
      end do
    end do
  end do

end subroutine dyn_core
