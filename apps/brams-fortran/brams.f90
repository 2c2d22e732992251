! brams: the main program of the BRAMS proxy's Fortran twin (apps/brams/model.cpp): a plain MPI
! program in the shape of a mesoscale weather model. NX x NY columns of NZ levels split over the
! ranks in a 2-D grid of blocks; per step a halo exchange (mpass.f90), the dynamics, the column
! physics and the time step; MPI_MIGRATE every --lb-every steps, Vela's balancing point (a no-op
! under Open MPI: openmpi_migrate.f90). For the same options and rank count it prints the C++
! proxy's checksum, bit for bit. Build and run:
!   mpif90 -O2 -J DIR -o brams_ompi mem_grid.f90 mem_physics.f90 mem_fields.f90 io_options.f90 \
!     mpass.f90 dynamics.f90 micro.f physics.f90 timestep.f90 diagnostics.f90 checksum.f90 \
!     output.f90 brams.f90 openmpi_migrate.f90;   mpirun -np 4 ./brams_ompi --nx 32 ...
!   vela-mpif90 -O2 -J DIR -o brams_vela (the same, without openmpi_migrate.f90);
!   ./brams_vela --vp 8 --pes 2 --lb greedy --nx 32 ...
program brams
  use mem_grid
  use mem_fields, only: alloc_fields, dealloc_fields
  use io_options, only: read_options, lb_every, output_raw, write_output
  use hashing, only: hex16
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, step, migrate_calls, gx, gy, level
  real(r8) :: begin, start, finish, after, migrate_total, largest(2), limit
  integer(8) :: sum
  logical :: written
  logical, external :: write_raw

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (.not. read_options(rank)) call abort_after_rank0_spoke()
  if (.not. decompose(rank, size)) call abort_after_rank0_spoke()
  call alloc_fields()
  call alloc_buffers()
  call set_time_step()

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  begin = MPI_WTIME()
  migrate_total = 0.0_r8
  migrate_calls = 0
  do step = 1, nsteps
    start = MPI_WTIME()
    istep = step
    call exchange()
    call dynamics()
    call physics()
    call set_time_step()
    finish = MPI_WTIME()
    if (lb_every > 0) then
      if (mod(step, lb_every) == 0 .and. step < nsteps) then
        call MPI_MIGRATE(ierr)
        after = MPI_WTIME()
        migrate_calls = migrate_calls + 1
        migrate_total = migrate_total + (after - finish)
      end if
    end if
  end do
  call global_checksum(sum)
  call reduce_maxima(largest)
  call dt_limit(limit, gx, gy, level)
  written = .true.
  if (write_output) written = write_raw(trim(output_raw))
  finish = MPI_WTIME()
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'brams: ', nx, ' x ', ny, &
      ' columns x ', nz, ' levels, ', nsteps, ' steps, ', size, ' ranks (', px, ' x ', py, &
      ' blocks)'
    write (*, '(2a)') 'checksum: ', hex16(sum)
    write (*, '(6a)') 'max qc: ', c_e6(largest(1)), '  max th: ', c_e6(largest(2)), &
      '  last dt: ', c_e6(dtlt)
    write (*, '(2a,3(a,i0),a)') 'dt limit: ', c_e6(limit), ' at column (', gx, ', ', gy, &
      ') level ', level
    write (*, '(2a)') 'time: ', c_f6(finish - begin)
    write (*, '(2a)') 'step: ', c_f6((finish - begin) / nsteps)
    write (*, '(a,i0,3a)') 'migrate: ', migrate_calls, ' calls, ', c_f6(migrate_total), ' s'
    flush (6)
  end if
  call dealloc_buffers()
  call dealloc_fields()
  call MPI_FINALIZE(ierr)
  if (.not. written) stop 1

contains

  ! Every rank finds the same bad option and rank 0 says what it is: the barrier makes sure it
  ! has said so before some rank's MPI_ABORT ends the run.
  subroutine abort_after_rank0_spoke()
    flush (0)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine abort_after_rank0_spoke

  ! x as C's %.6e: 2.956756e-03.
  function c_e6(x) result(text)
    real(r8), intent(in) :: x
    character(len=:), allocatable :: text
    character(len=32) :: buffer
    integer :: e
    write (buffer, '(es16.6e3)') x
    text = trim(adjustl(buffer))
    e = index(text, 'E')
    if (e == 0) return   ! Infinity, NaN
    text(e:e) = 'e'
    if (text(e + 2:e + 2) == '0') text = text(:e + 1)//text(e + 3:)
  end function c_e6

  ! x as C's %.6f: 0.005273.
  function c_f6(x) result(text)
    real(r8), intent(in) :: x
    character(len=:), allocatable :: text
    character(len=32) :: buffer
    write (buffer, '(f0.6)') x
    text = trim(adjustl(buffer))
    if (text(1:1) == '.') text = '0'//text
    if (text(1:2) == '-.') text = '-0'//text(2:)
  end function c_f6

end program brams
