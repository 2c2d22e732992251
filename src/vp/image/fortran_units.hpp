// Fortran I/O units per rank (docs/architecture.md, "Fortran units per rank").
//
// libgfortran keeps one table of connected units per process. Ranks of one process are separate
// programs under MPI, and real codes rely on it: each rank connects unit 10 to a file of its own,
// or looks for a free unit with INQUIRE(OPENED=) and opens it after a collective call, or opens
// the input file every rank reads. Two mechanisms give every rank the units a process of its own
// would have:
//
// 1. Unit numbers. The loaded program's I/O statements (OPEN, CLOSE, INQUIRE, READ, WRITE,
//    REWIND, BACKSPACE, ENDFILE, FLUSH, WAIT and the FLUSH subroutine) are bound to the functions
//    here, which give libgfortran the calling rank's own process unit for each unit the program
//    names: (rank, u) -> u itself for the first rank to name u in this process, else a number of
//    its own from 2^30 up. Units 0, 5 and 6 (standard error, input and output) stay the ranks'
//    shared ones, as the processes of an MPI job share a terminal; negative units (NEWUNIT=,
//    internal files) are libgfortran's and unique already. INQUIRE's NUMBER= is given back as
//    the rank's unit. A file named by unit only ('fort.N': OPEN without FILE=, or a first READ
//    or WRITE on an unconnected unit) keeps the rank's N in its name.
// 2. File identity. libgfortran refuses to connect a file that another unit of the process has
//    open, and INQUIRE(FILE=) finds any unit of the process: it compares the device and inode
//    numbers of stat() and fstat(). Its calls of stat, fstat and lstat are bound here (its
//    imports patched once it is loaded), and in a rank the inode number is mixed with the rank's
//    number: a rank sees its own connections only, and every rank may open the same file.
//
// Outside ranks (start-up, the end of the process) every number and inode is libgfortran's own.
// Limits: units do not move with a rank to another process (its connections stay where they
// were opened; close them before moving); GNU extensions taking a unit (FNUM, FSEEK, FTELL,
// FGETC, FPUTC, FSTAT, ISATTY, TTYNAM) and GFORTRAN_STDIN_UNIT & co. see process units.
//
// Costs: one lookup in a process-wide table (a mutex and a map) per statement; an INQUIRE more
// for a READ or WRITE on a unit that is not the rank's own number.
#pragma once

namespace vela::vp::detail {

struct FortranSpecial {
  const char* name;
  void* function;
};

// libgfortran's entry points bound to the per-rank versions, for the image's relocations.
const FortranSpecial* fortran_unit_specials(int* count) noexcept;

// Patches libgfortran (`handle`, from dlopen) so that its stat, fstat and lstat are the
// per-rank ones (2. above). Throws Error when its imports cannot be found or written.
void bind_fortran_file_identity(void* handle);

}  // namespace vela::vp::detail
