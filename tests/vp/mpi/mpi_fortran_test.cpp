// Fortran MPI programs (vp/mpi/fortran) built unchanged by vela-mpif90 run as loaded images:
// their output equals the same sources' built by Open MPI's mpif90, one process per rank, on 1
// and 2 PEs, with every rank migrating at every step, over 2 processes, and after a restart
// from a checkpoint on another layout. With the program's state shared (--vp-privatize none)
// the output comes out wrong: module variables, a COMMON block, SAVEd and DATA-initialized
// locals and a large module array are what the program keeps per rank. Also the wrapper:
// fixed and free form, separate compilation, a mixed C and Fortran program, --showme.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using vela::testing::ProgramResult;
using vela::testing::run_program;

const std::string dir = FORTRAN_DIR;

std::string mpirun(int processes, const std::string& program, const std::string& args) {
  return vela::testing::openmpi_mpirun(VELA_MPIEXEC, processes, program, args);
}

std::vector<std::string> lines(const std::string& out) {
  return vela::testing::sorted_lines(out);
}

// Open MPI's windows over these transports need its pt2pt component (its rdma one needs a
// single-copy mechanism).
std::vector<std::string> openmpi(const std::string& program, int ranks) {
  return vela::testing::successful_output(vela::testing::openmpi_mpirun(
      VELA_MPIEXEC, ranks, dir + "/" + program + "_openmpi", "", "OMPI_MCA_osc=pt2pt"));
}

std::vector<std::string> vela(const std::string& command) {
  return vela::testing::successful_output(command);
}

TEST(FortranPrograms, StateIsPerRankOnOneAndTwoPesWithMigration) {
  const auto expected = openmpi("globals", 4);
  ASSERT_EQ(expected.size(), 4u);
  EXPECT_EQ(vela(dir + "/globals --vp 4 --pes 1"), expected);
  // rotate moves every rank at every MPI_MIGRATE.
  EXPECT_EQ(vela(dir + "/globals --vp 4 --pes 2 --lb rotate"), expected);
  EXPECT_EQ(vela(dir + "/globals --vp 8 --pes 2 --lb rotate"), openmpi("globals", 8));
}

TEST(FortranPrograms, StateMovesWithItsRanksBetweenProcesses) {
  EXPECT_EQ(vela(mpirun(2, dir + "/globals", "--vp 4 --lb rotate")), openmpi("globals", 4));
}

// --vp-privatize copy: the program's one instance, its writable segments (module variables,
// COMMON blocks, SAVEd locals) copied in and out at each switch, so every rank has its own state
// again, on one PE only.
TEST(FortranPrograms, CopiedStateIsPerRankOnOnePe) {
  EXPECT_EQ(vela(dir + "/globals --vp 4 --pes 1 --vp-privatize copy"), openmpi("globals", 4));
  const ProgramResult two = run_program(dir + "/globals --vp 4 --pes 2 --vp-privatize copy", "");
  EXPECT_NE(two.status, 0);
  EXPECT_THAT(two.out, HasSubstr("--vp-privatize copy"));
  EXPECT_THAT(two.out, HasSubstr("--pes 1"));
}

TEST(FortranPrograms, SharedStateGivesWrongOutput) {
  // The property the others rest on: with one copy of the program's state for all ranks, the
  // module variables, the COMMON block and the SAVEd locals mix the ranks' values.
  const ProgramResult r = run_program(dir + "/globals --vp 4 --pes 1 --vp-privatize none", "");
  EXPECT_NE(lines(r.out), openmpi("globals", 4)) << r.out;
}

TEST(FortranPrograms, CheckpointedRanksRestartOnAnotherLayout) {
  const auto expected = openmpi("globals", 4);
  const std::filesystem::path ckpt =
      std::filesystem::temp_directory_path() / ("vela_fortran_ckpt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(ckpt);
  const ProgramResult crashed =
      run_program("env VELA_TEST_EXIT_AT=2 " + dir + "/globals --vp 4 --pes 2 --lb rotate " +
                      "--checkpoint " + ckpt.string() + " --checkpoint-every 1",
                  "");
  ASSERT_EQ(crashed.status, 3) << crashed.out;
  EXPECT_EQ(vela(dir + "/globals --vp 4 --pes 1 --restart " + ckpt.string()), expected);
  EXPECT_EQ(vela(mpirun(2, dir + "/globals", "--vp 4 --restart " + ckpt.string())), expected);
  std::filesystem::remove_all(ckpt);
}

TEST(FortranPrograms, CallsOfEachChapterGiveOpenMpisValues) {
  const auto expected = openmpi("calls", 4);
  ASSERT_GE(expected.size(), 35u);
  EXPECT_EQ(vela(dir + "/calls --vp 4 --pes 1"), expected);
  EXPECT_EQ(vela(dir + "/calls --vp 4 --pes 2 --lb rotate"), expected);
  EXPECT_EQ(vela(mpirun(2, dir + "/calls", "--vp 4")), expected);
}

// A scratch directory of the test's own.
std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() /
                                  ("vela_mpif90_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

// Each rank's Fortran units are its own, as each process's are under Open MPI: a unit found
// free and connected after a barrier, the same file read by every rank at once, INQUIRE by
// file, 'fort.N' files and NEWUNIT= (units.f90), on 1 and 2 PEs and with every rank moving
// between PEs at every barrier while its units are connected. Without Vela's per-rank units
// the ranks of one process connect unit 10 to one another's files and the program fails.
TEST(FortranPrograms, EachRankHasTheUnitsOfAProcessOfItsOwn) {
  const std::filesystem::path d = scratch("units");
  const std::string in = "cd " + d.string() + " && ";
  const auto expected =
      vela::testing::successful_output(in + mpirun(4, dir + "/units_openmpi", ""));
  ASSERT_EQ(expected.size(), 18u);
  EXPECT_THAT(expected, ::testing::Contains("fort.12: opened without a name by rank 3"));
  EXPECT_EQ(vela(in + dir + "/units --vp 4 --pes 1"), expected);
  EXPECT_EQ(vela(in + dir + "/units --vp 4 --pes 2"), expected);
  EXPECT_EQ(vela(in + dir + "/units --vp 4 --pes 2 --lb rotate --vp-balance-every barrier:1"),
            expected);
  // Every file the program made it deleted, but the one every rank read.
  std::vector<std::string> left;
  for (const auto& f : std::filesystem::directory_iterator(d)) left.push_back(f.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"units_shared.txt"});
  std::filesystem::remove_all(d);
}

TEST(FortranWrapper, CompilesSeparatelyAndLinksCAndFortranTogether) {
  const auto d = scratch("mixed");
  // Fixed form with a preprocessor line (.F), and a C function called from Fortran.
  write(d / "main.F",
        "      program mixed\n"
        "      include 'mpif.h'\n"
        "      integer ierr, rank, twice\n"
        "      external twice\n"
        "#ifdef VELA_MIXED\n"
        "      call MPI_INIT(ierr)\n"
        "#endif\n"
        "      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)\n"
        "      print '(a,i0,a,i0)', 'rank ', rank, ' twice ', twice(rank)\n"
        "      call MPI_FINALIZE(ierr)\n"
        "      end\n");
  write(d / "twice.c", "int twice_(const int* x) { return 2 * *x; }\n");
  const std::string mpif90 = VELA_MPIF90;
  const ProgramResult compiled =
      run_program("cd " + d.string() + " && " + mpif90 + " -DVELA_MIXED -c main.F", "");
  ASSERT_EQ(compiled.status, 0) << compiled.out;
  const ProgramResult linked =
      run_program("cd " + d.string() + " && " + mpif90 + " -o mixed main.o twice.c", "");
  ASSERT_EQ(linked.status, 0) << linked.out;
  const auto out = vela((d / "mixed").string() + " --vp 3 --pes 2");
  EXPECT_EQ(out, (std::vector<std::string>{"rank 0 twice 0", "rank 1 twice 2", "rank 2 twice 4"}));
  std::filesystem::remove_all(d);
}

// A Vela built where gfortran was missing: its vela-mpif90 (the same script with no Fortran
// compiler) says so and what to do.
// STOP ends its rank as a return from the main program would (its code the rank's status; the
// other ranks go on); ERROR STOP ends the run with its code, as MPI_ABORT does.
TEST(FortranPrograms, StopEndsItsRankAndErrorStopTheRun) {
  const auto d = scratch("stop");
  write(d / "stops.f90",
        "program stops\n"
        "  include 'mpif.h'\n"
        "  integer :: ierr, rank, total\n"
        "  character(len=8) :: mode\n"
        "  call MPI_INIT(ierr)\n"
        "  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)\n"
        "  call get_command_argument(1, mode)\n"
        "  call MPI_ALLREDUCE(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)\n"
        "  call MPI_FINALIZE(ierr)\n"
        "  if (mode == 'error' .and. rank == 1) error stop 4\n"
        "  if (rank == 0) stop 'rank 0 is done'\n"
        "  print '(a,i0,a,i0)', 'rank ', rank, ' total ', total\n"
        "  if (mode == 'code' .and. rank == 2) stop 3\n"
        "end program\n");
  const ProgramResult built = run_program(
      std::string(VELA_MPIF90) + " " + (d / "stops.f90").string() + " -o " + (d / "stops").string(),
      "");
  ASSERT_EQ(built.status, 0) << built.out;
  const std::string program = (d / "stops").string();
  const ProgramResult plain = run_program(program, "plain --vp 3 --pes 2");
  EXPECT_EQ(plain.status, 0) << plain.out;
  EXPECT_THAT(plain.out, HasSubstr("STOP rank 0 is done"));
  EXPECT_THAT(plain.out, HasSubstr("rank 1 total 3"));
  EXPECT_THAT(plain.out, HasSubstr("rank 2 total 3"));
  const ProgramResult code = run_program(program, "code --vp 3 --pes 2");
  EXPECT_EQ(code.status, 3) << code.out;
  EXPECT_THAT(code.out, HasSubstr("rank 2 total 3"));
  const ProgramResult error = run_program(program, "error --vp 3 --pes 2");
  EXPECT_EQ(error.status, 4) << error.out;
  EXPECT_THAT(error.out, HasSubstr("ERROR STOP 4"));
  std::filesystem::remove_all(d);
}

TEST(FortranWrapper, WithoutGfortranTheWrapperSaysSo) {
  const auto d = scratch("nogfortran");
  const std::string strip = "sed \"s|^fortran_compiler=.*|fortran_compiler=''|\" ";
  ASSERT_EQ(run_program(strip + VELA_MPIF90 + " > " + (d / "f90").string() + " && chmod +x " +
                            (d / "f90").string(),
                        "")
                .status,
            0);
  write(d / "p.f90", "program p\nend program\n");
  const ProgramResult r = run_program((d / "f90").string() + " -o p " + (d / "p.f90").string(), "");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no Fortran compiler"));
  EXPECT_THAT(r.out, HasSubstr("gfortran"));
  std::filesystem::remove_all(d);
}

TEST(FortranWrapper, ShowmeNamesGfortranAndTheFortranHeaders) {
  const ProgramResult r = run_program(std::string(VELA_MPIF90) + " --showme -o x x.f90", "");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("gfortran"));
  EXPECT_THAT(r.out, HasSubstr("vela/fortran"));  // where mpif.h and mpi.mod are
}

// A program image is compiled as an executable would be: a module procedure called from its
// module is inlined or called directly, not through the procedure linkage table (a shared
// object's default, which made the BRAMS twin's physics slower than under Open MPI's mpif90).
TEST(FortranWrapper, ModuleProceduresAreCalledAsInAnExecutable) {
  const auto d = scratch("direct");
  write(d / "m.f90",
        "module m\n  implicit none\ncontains\n"
        "  integer function twice(x)\n    integer, intent(in) :: x\n    twice = 2 * x\n"
        "  end function\n"
        "  integer function four_times(x)\n    integer, intent(in) :: x\n"
        "    four_times = twice(twice(x))\n  end function\nend module\n");
  const std::string mpif90 = VELA_MPIF90;
  const ProgramResult compiled =
      run_program("cd " + d.string() + " && " + mpif90 + " -O2 -S m.f90 -o m.s", "");
  ASSERT_EQ(compiled.status, 0) << compiled.out;
  const ProgramResult assembly = run_program("cat " + (d / "m.s").string(), "");
  EXPECT_THAT(assembly.out, HasSubstr("__m_MOD_four_times"));
  EXPECT_THAT(assembly.out, Not(HasSubstr("__m_MOD_twice@PLT")));
  // The program's own flag still wins.
  const ProgramResult asked = run_program(
      "cd " + d.string() + " && " + mpif90 + " -O2 -fsemantic-interposition -S m.f90 -o i.s", "");
  ASSERT_EQ(asked.status, 0) << asked.out;
  EXPECT_THAT(run_program("cat " + (d / "i.s").string(), "").out, HasSubstr("__m_MOD_twice@PLT"));
  std::filesystem::remove_all(d);
}

TEST(FortranWrapper, ACompileErrorIsGfortransAndFails) {
  const auto d = scratch("error");
  write(d / "bad.f90", "program bad\n  use mpi\n  call MPI_INIT(\nend program\n");
  const ProgramResult r =
      run_program("cd " + d.string() + " && " + std::string(VELA_MPIF90) + " -o bad bad.f90", "");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("bad.f90"));
  EXPECT_FALSE(std::filesystem::exists(d / "bad"));
  std::filesystem::remove_all(d);
}

}  // namespace
