! pingpong.f90: the 8-byte ping-pong of ranks 0 and 1 in Fortran (MPI_SEND and MPI_RECV), the
! twin of pingpong.c, so that bench/fortran_overhead.sh measures what a Fortran call costs over
! a C one. Usage: pingpong [ROUNDS] (default 200000); prints "one-way us: X".
program pingpong
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, rounds, i, length
  integer :: status(MPI_STATUS_SIZE)
  double precision :: value, start, elapsed
  character(len=32) :: argument
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  rounds = 200000
  call get_command_argument(1, argument, length)
  if (length > 0) read (argument, *) rounds
  value = 1d0
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  start = MPI_WTIME()
  do i = 1, rounds
    if (rank == 0) then
      call MPI_SEND(value, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
      call MPI_RECV(value, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, status, ierr)
    else if (rank == 1) then
      call MPI_RECV(value, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, status, ierr)
      call MPI_SEND(value, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, ierr)
    end if
  end do
  elapsed = MPI_WTIME() - start
  if (rank == 0) print '(a,f10.4)', 'one-way us: ', elapsed / (2 * rounds) * 1d6
  call MPI_FINALIZE(ierr)
end program pingpong
