! mem_fields: the prognostic fields of the BRAMS proxy's Fortran twin (potential temperature th,
! vapour qv, cloud water qc, wind u and v), each nz levels by (lx + 2) x (ly + 2) columns with a
! halo of one column, their next-step copies and the accumulated surface rain; allocated and
! given their initial state here, as BRAMS's mem_basic and its allocation routines do.
module mem_fields
  use mem_grid, only: r8
  implicit none
  integer, parameter :: nfields = 5   ! th, qv, qc, u, v: in this order everywhere

  real(r8), allocatable :: th(:, :, :), qv(:, :, :), qc(:, :, :), u(:, :, :), v(:, :, :)
  real(r8), allocatable :: th_n(:, :, :), qv_n(:, :, :), qc_n(:, :, :), u_n(:, :, :), &
                           v_n(:, :, :)
  real(r8), allocatable :: rain(:, :)   ! lx x ly
  !$omp threadprivate(th, qv, qc, u, v, th_n, qv_n, qc_n, u_n, v_n, rain)

contains

  ! Allocates the fields (zero) and sets the initial state: vapour at 80% of saturation, the
  ! background wind.
  subroutine alloc_fields()
    use mem_grid, only: nz, ny, lx, ly, y0
    use mem_physics, only: qsat, background_u, background_v
    integer :: i, j, k
    allocate (th(nz, 0:lx + 1, 0:ly + 1), qv(nz, 0:lx + 1, 0:ly + 1), qc(nz, 0:lx + 1, 0:ly + 1), &
              u(nz, 0:lx + 1, 0:ly + 1), v(nz, 0:lx + 1, 0:ly + 1))
    allocate (th_n(nz, 0:lx + 1, 0:ly + 1), qv_n(nz, 0:lx + 1, 0:ly + 1), &
              qc_n(nz, 0:lx + 1, 0:ly + 1), u_n(nz, 0:lx + 1, 0:ly + 1), v_n(nz, 0:lx + 1, 0:ly + 1))
    allocate (rain(lx, ly))
    th = 0.0_r8; qv = 0.0_r8; qc = 0.0_r8; u = 0.0_r8; v = 0.0_r8
    th_n = 0.0_r8; qv_n = 0.0_r8; qc_n = 0.0_r8; u_n = 0.0_r8; v_n = 0.0_r8
    rain = 0.0_r8
    do j = 1, ly
      do i = 1, lx
        do k = 1, nz
          qv(k, i, j) = 0.8_r8 * qsat(0.0_r8, k - 1)
          u(k, i, j) = background_u(y0 + j - 1, k - 1, ny, nz)
          v(k, i, j) = background_v
        end do
      end do
    end do
  end subroutine alloc_fields

  ! The next step's fields become the current ones (and the current ones the scratch).
  subroutine swap_fields()
    real(r8), allocatable :: t(:, :, :)
    call move_alloc(th, t); call move_alloc(th_n, th); call move_alloc(t, th_n)
    call move_alloc(qv, t); call move_alloc(qv_n, qv); call move_alloc(t, qv_n)
    call move_alloc(qc, t); call move_alloc(qc_n, qc); call move_alloc(t, qc_n)
    call move_alloc(u, t); call move_alloc(u_n, u); call move_alloc(t, u_n)
    call move_alloc(v, t); call move_alloc(v_n, v); call move_alloc(t, v_n)
  end subroutine swap_fields

  subroutine dealloc_fields()
    deallocate (th, qv, qc, u, v, th_n, qv_n, qc_n, u_n, v_n, rain)
  end subroutine dealloc_fields

end module mem_fields
