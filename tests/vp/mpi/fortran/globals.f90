! A Fortran MPI program whose module variables, COMMON block, SAVEd and DATA-initialized locals
! and a large module array give wrong results when the ranks share them. Every rank migrates at
! every step (MPI_MIGRATE; a no-op under Open MPI) and prints its own line at the end. With
! VELA_TEST_EXIT_AT=STEP rank 0 ends the process after that step (for a restart from a
! checkpoint).
program globals
  use mpi
  use state
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    subroutine quick_exit(status) bind(c, name='_Exit')
      import :: c_int
      integer(c_int), value :: status
    end subroutine quick_exit
  end interface
  character(len=16) :: exit_at
  integer :: exit_step, length
  integer :: ierr, nranks, step, left, right, steps
  integer :: status(MPI_STATUS_SIZE)
  double precision :: token, total
  integer :: ncalls
  double precision :: csum
  common /counters/ csum, ncalls

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, my_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  steps = 5
  allocate(history(steps))
  ncalls = 0
  csum = 0d0
  field = 0d0
  left = mod(my_rank + nranks - 1, nranks)
  right = mod(my_rank + 1, nranks)
  do step = 1, steps
    call work(step)
    call MPI_SENDRECV(acc, 1, MPI_DOUBLE_PRECISION, right, step, token, 1, &
                      MPI_DOUBLE_PRECISION, left, step, MPI_COMM_WORLD, status, ierr)
    if (status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= step) then
      print '(a,i0,a,i0,1x,i0)', 'rank ', my_rank, ': wrong status ', status(MPI_SOURCE), &
        status(MPI_TAG)
    end if
    call MPI_ALLREDUCE(acc + token, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    history(step) = nint(total)
    call MPI_MIGRATE(ierr)
    ! Read after the step (a restarted run continues here, without the variable).
    exit_step = -1
    call get_environment_variable('VELA_TEST_EXIT_AT', exit_at, length)
    if (length > 0) read (exit_at, *) exit_step
    if (step == exit_step .and. my_rank == 0) then
      flush (6)
      call quick_exit(3_c_int)
    end if
  end do
  print '(a,i0,a,i0,a,f0.1,a,f0.1,a,5(1x,i0))', 'rank ', my_rank, ': calls ', ncalls, &
    ' acc ', acc, ' csum ', csum, ' history', history
  call MPI_FINALIZE(ierr)
end program globals
