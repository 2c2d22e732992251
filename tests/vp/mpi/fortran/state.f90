! Module variables of the Fortran test programs: one copy per MPI process under Open MPI, so
! one per rank under Vela only when the program's state is privatized.
module state
  implicit none
  integer :: my_rank = -1
  double precision :: acc = 0d0
  integer, allocatable :: history(:)
  ! Large enough that gfortran places it in .bss, as it does BRAMS's arrays.
  double precision :: field(20000)
end module state
