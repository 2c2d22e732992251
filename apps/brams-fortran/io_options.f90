! io_options: the run's options of the BRAMS proxy's Fortran twin. Rank 0 reads them from the
! command line (the C++ proxy's names and ranges: --nx, --ny, --nz, --steps, --lb-every,
! --storm-work, --storm-radius, --storm-drift, --radiation-every, --radiation-work,
! --topography; --quiet is taken and ignored; --output-raw FILE is the twin's own) and
! broadcasts them with MPI_BCAST, as BRAMS's master reads RAMSIN and sends it to the nodes.
module io_options
  use mem_grid, only: nx, ny, nz, nsteps
  use mem_physics, only: storm_work, storm_radius, storm_drift, radiation_every, &
                         radiation_work, topography
  implicit none

  integer :: lb_every = 60                 ! steps between MPI_MIGRATE calls (0: never)
  character(len=512) :: output_raw = ''    ! rank 0: the gathered final fields, raw (or '')
  logical :: write_output = .false.
  !$omp threadprivate(lb_every, output_raw, write_output)

  integer, parameter, private :: nint_options = 11
  character(len=17), parameter, private :: int_names(nint_options) = [character(len=17) :: &
    '--nx', '--ny', '--nz', '--steps', '--lb-every', '--storm-work', '--storm-radius', &
    '--storm-drift', '--radiation-every', '--radiation-work', '--topography']
  integer, parameter, private :: int_min(nint_options) = [1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0]
  integer, parameter, private :: int_max(nint_options) = [2**20, 2**20, 4096, 2**30, 2**30, &
                                                          2**20, 2**20, 70, 2**30, 2**20, 2**20]

contains

  ! Every rank calls it; .false. everywhere when an option is bad (rank 0 said which).
  logical function read_options(rank)
    integer, intent(in) :: rank
    include 'mpif.h'
    integer :: values(nint_options + 2), ierr

    values = 0
    if (rank == 0) call parse(values)
    call MPI_BCAST(values, nint_options + 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    read_options = values(1) == 1
    if (.not. read_options) return
    nx = values(2); ny = values(3); nz = values(4); nsteps = values(5); lb_every = values(6)
    storm_work = values(7); storm_radius = values(8); storm_drift = values(9)
    radiation_every = values(10); radiation_work = values(11); topography = values(12)
    write_output = values(13) == 1
    if (storm_radius == 0) storm_radius = max(nx / 10, 2)
  end function read_options

  ! Rank 0: the command line into values (1: ok, then the integer options, then whether
  ! --output-raw was given).
  subroutine parse(values)
    integer, intent(out) :: values(nint_options + 2)
    integer :: argc, k, o, found, length, status
    integer(8) :: value
    character(len=1024) :: arg, text
    logical :: good

    values = 0
    values(2:nint_options + 1) = [nx, ny, nz, nsteps, lb_every, storm_work, storm_radius, &
                                  storm_drift, radiation_every, radiation_work, topography]
    argc = command_argument_count()
    k = 1
    do while (k <= argc)
      call get_command_argument(k, arg)
      if (arg == '--quiet') then
        k = k + 1
        cycle
      end if
      if (arg == '--output-raw' .and. k + 1 <= argc) then
        call get_command_argument(k + 1, output_raw, length, status)
        if (status /= 0) then
          write (0, '(a)') 'brams: --output-raw: the path is too long'
          return
        end if
        values(nint_options + 2) = 1
        k = k + 2
        cycle
      end if
      found = 0
      do o = 1, nint_options
        if (arg == int_names(o)) found = o
      end do
      if (found == 0 .or. k + 1 > argc) then
        write (0, '(3a)') "brams: unknown argument '", trim(arg), "' (expected --nx, --ny, "// &
          "--nz, --steps, --lb-every, --storm-work, --storm-radius, --storm-drift, "// &
          "--radiation-every, --radiation-work, --topography or --output-raw, each with a "// &
          "value, or --quiet)"
        return
      end if
      call get_command_argument(k + 1, text)
      call to_integer(text, value, good)
      if (.not. good .or. value < int_min(found) .or. value > int_max(found)) then
        write (0, '(5a,i0,a,i0)') 'brams: ', trim(int_names(found)), " '", trim(text), &
          "': expected an integer from ", int_min(found), ' to ', int_max(found)
        return
      end if
      values(found + 1) = int(value)
      k = k + 2
    end do
    values(1) = 1
  end subroutine parse

  ! A decimal integer (an optional sign, then digits only), as strtol takes it whole.
  subroutine to_integer(text, value, good)
    character(len=*), intent(in) :: text
    integer(8), intent(out) :: value
    logical, intent(out) :: good
    integer :: n, first, c
    value = 0
    good = .false.
    n = len_trim(text)
    first = 1
    if (n > 0) then
      if (text(1:1) == '-' .or. text(1:1) == '+') first = 2
    end if
    if (first > n .or. n - first + 1 > 12) return
    do c = first, n
      if (text(c:c) < '0' .or. text(c:c) > '9') return
      value = 10 * value + (ichar(text(c:c)) - ichar('0'))
    end do
    if (text(1:1) == '-') value = -value
    good = .true.
  end subroutine to_integer

end module io_options
