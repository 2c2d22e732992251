! Linked into the Open MPI build of the BRAMS twin only (as tests/vp/mpi/fortran/openmpi_migrate.f90
! is into the test programs'): MPI_MIGRATE is Vela's extension, with nothing to do under Open MPI.
subroutine MPI_MIGRATE(ierr)
  implicit none
  integer, intent(out) :: ierr
  ierr = 0
end subroutine MPI_MIGRATE
