! checksum: the run's checksum, exactly as the C++ proxy's local_checksum computes it: every
! cell's IEEE bits hashed (splitmix64's finalizer) with its global position, the rain's too, the
! sums modulo 2^64, so equal checksums mean equal fields whatever the decomposition. Fortran has
! no unsigned integers and a signed overflow is undefined, so the 64-bit products and sums are
! taken exactly in 128 bits and wrapped to 64 (mul64, add64); the ranks' sums are added by
! MPI_REDUCE with MPI_UINT64_T and MPI_SUM, whose addition wraps, as the C++ proxy does.
module hashing
  implicit none
  integer, parameter, private :: i16 = selected_int_kind(38)
  ! 0xbf58476d1ce4e5b9 and 0x94d049bb133111eb as two's-complement 64-bit integers.
  integer(8), parameter, private :: mix1 = -4658895280553007687_8
  integer(8), parameter, private :: mix2 = -7723592293110705685_8

contains

  ! x modulo 2^64, as a two's-complement 64-bit integer: its low 64 bits (a mask, where MODULO
  ! would divide in 128 bits, a library call that took 1-2% of a run).
  pure integer(8) function wrap64(x)
    integer(i16), intent(in) :: x
    integer(i16), parameter :: two64 = 2_i16**64, two63 = 2_i16**63, low64 = two64 - 1
    integer(i16) :: r
    r = iand(x, low64)
    if (r >= two63) r = r - two64
    wrap64 = int(r, 8)
  end function wrap64

  pure integer(8) function mul64(a, b)
    integer(8), intent(in) :: a, b
    mul64 = wrap64(int(a, i16) * int(b, i16))
  end function mul64

  pure integer(8) function add64(a, b)
    integer(8), intent(in) :: a, b
    add64 = wrap64(int(a, i16) + int(b, i16))
  end function add64

  pure integer(8) function mix(x0)
    integer(8), intent(in) :: x0
    integer(8) :: x
    x = ieor(x0, shiftr(x0, 30))
    x = mul64(x, mix1)
    x = ieor(x, shiftr(x, 27))
    x = mul64(x, mix2)
    mix = ieor(x, shiftr(x, 31))
  end function mix

  ! 16 lowercase hexadecimal digits of x's bits (C's %016llx).
  function hex16(x) result(text)
    integer(8), intent(in) :: x
    character(len=16) :: text
    character(len=16), parameter :: digits = '0123456789abcdef'
    integer :: n, d
    do n = 1, 16
      d = int(ibits(x, 4 * (16 - n), 4))
      text(n:n) = digits(d + 1:d + 1)
    end do
  end function hex16

end module hashing

! This rank's checksum of one field (f: its number, 0 .. 4, in the order th, qv, qc, u, v).
subroutine field_checksum(a, f, sum)
  use mem_grid, only: r8, nx, nz, lx, ly, x0, y0
  use hashing
  implicit none
  real(r8), intent(in) :: a(nz, 0:lx + 1, 0:ly + 1)
  integer, intent(in) :: f
  integer(8), intent(inout) :: sum
  integer(8) :: column
  integer :: i, j, k
  do j = 1, ly
    do i = 1, lx
      column = int(y0 + j - 1, 8) * nx + (x0 + i - 1)
      do k = 1, nz
        sum = add64(sum, mix(ieor((column * nz + (k - 1)) * 8 + f, mix(transfer(a(k, i, j), 0_8)))))
      end do
    end do
  end do
end subroutine field_checksum

! Rank 0 gets the run's checksum (the others 0).
subroutine global_checksum(total)
  use mem_grid, only: nx, lx, ly, x0, y0
  use mem_fields, only: th, qv, qc, u, v, rain
  use hashing
  implicit none
  include 'mpif.h'
  integer(8), intent(out) :: total
  integer(8) :: sum(1), all(1), column
  integer :: i, j, ierr
  sum = 0
  call field_checksum(th, 0, sum(1))
  call field_checksum(qv, 1, sum(1))
  call field_checksum(qc, 2, sum(1))
  call field_checksum(u, 3, sum(1))
  call field_checksum(v, 4, sum(1))
  do j = 1, ly
    do i = 1, lx
      column = int(y0 + j - 1, 8) * nx + (x0 + i - 1)
      sum(1) = add64(sum(1), mix(ieor(column * 8 + 7, &
                                      mix(ieor(transfer(rain(i, j), 0_8), int(z'5bd1e995', 8))))))
    end do
  end do
  all = 0
  call MPI_REDUCE(sum, all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  total = all(1)
end subroutine global_checksum
