! Fortran I/O units as each process of an MPI job has them, whatever the ranks share: every rank
! finds unit 10 free and connects it to a file of its own after a collective call (as MUMPS
! does), writes and reads it back between barriers; every rank reads the same file at once; a
! rank's INQUIRE by file sees its own connections only and gives its own unit number; a file
! named by unit only is 'fort.N' after the program's N; NEWUNIT= and FLUSH work on a rank's
! units. Each line printed is compared with the same program's under Open MPI.
program units
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, u, k, value, total, number, mine, other
  logical :: opened, exists
  character(len=64) :: name, peer, line

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)

  ! A free unit, found before a collective call and connected after it.
  do u = 10, 99
    inquire(unit=u, opened=opened)
    if (.not. opened) exit
  end do
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  write(name, '(a,i0,a)') 'units_rank', rank, '.txt'
  open(unit=u, file=trim(name), status='replace', action='readwrite', form='formatted')
  do k = 1, 3
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    write(u, '(i0,1x,i0)') rank, k
  end do
  call flush(u)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  rewind(u)
  total = 0
  do k = 1, 3
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    read(u, *) mine, value
    if (mine /= rank .or. value /= k) total = total - 1000
    total = total + value
  end do
  print '(a,i0,a,i0,a,i0)', 'rank ', rank, ' own file on unit ', u, ' read back ', total

  ! Its own connection by file: its unit number; another rank's file: not connected here.
  inquire(file=trim(name), opened=opened, number=number)
  write(peer, '(a,i0,a)') 'units_rank', mod(rank + 1, size), '.txt'
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  inquire(file=trim(peer), opened=exists, number=other)
  print '(a,i0,a,l1,a,i0,a,l1,a,i0)', 'rank ', rank, ' inquire own ', opened, ' number ', &
      number, ' peer ', exists, ' number ', other
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  close(u, status='delete')

  ! The same file read by every rank at once, a barrier between lines.
  if (rank == 0) then
    open(unit=30, file='units_shared.txt', status='replace')
    do k = 1, 5
      write(30, '(i0)') 10 * k
    end do
    close(30)
  end if
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  open(unit=11, file='units_shared.txt', status='old', action='read')
  total = 0
  do k = 1, 5
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    read(11, *) value
    total = total + value * k
  end do
  close(11)
  print '(a,i0,a,i0)', 'rank ', rank, ' shared file weighted sum ', total
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)

  ! Files named by unit only: every rank has used units 10 and 12 before, so the last two
  ! ranks' are other numbers in the process; the files are named after the program's units.
  write(name, '(a,i0,a)') 'units_twelve', rank, '.txt'
  open(unit=12, file=trim(name), status='replace')
  close(12, status='delete')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == size - 1) then
    open(unit=12, status='unknown')
    write(12, '(a,i0)') 'opened without a name by rank ', rank
    close(12)
  end if
  if (rank == size - 2) then
    write(10, '(a,i0)') 'written unconnected by rank ', rank
    close(10)
  end if
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    open(unit=40, file='fort.12', status='old')
    read(40, '(a)') line
    close(40, status='delete')
    print '(a,a)', 'fort.12: ', trim(line)
    open(unit=40, file='fort.10', status='old')
    read(40, '(a)') line
    close(40, status='delete')
    print '(a,a)', 'fort.10: ', trim(line)
  end if

  ! NEWUNIT= gives a unit of its own (negative), the same by INQUIRE.
  write(name, '(a,i0,a)') 'units_new', rank, '.txt'
  open(newunit=u, file=trim(name), status='replace')
  write(u, '(i0)') rank * 7
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  rewind(u)
  read(u, *) value
  inquire(unit=u, number=number)
  close(u, status='delete')
  print '(a,i0,a,l1,a,i0)', 'rank ', rank, ' newunit negative ', u < 0 .and. number == u, &
      ' read ', value

  call MPI_FINALIZE(ierr)
end program units
