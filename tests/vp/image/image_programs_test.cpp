// Programs built unchanged by vela-mpicc / vela-mpicxx run as loaded images, every rank with its
// own globals (--vp-privatize auto): their output equals the same sources' under Open MPI, one
// process per rank, on 1 and 2 PEs, over 2 processes, with every rank migrating at every step,
// and after a restart from a checkpoint on another layout. With the globals shared
// (--vp-privatize none) the same output comes out wrong, which is what makes these tests fail
// when privatization is off or broken. Also: the wrappers' --show-globals and their warning,
// and --vp-privatize's values and refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

std::string mpirun(int processes, const std::string& program, const std::string& args) {
  return vela::testing::openmpi_mpirun(VELA_MPIEXEC, processes, program, args);
}

std::vector<std::string> lines(const std::string& out) {
  return vela::testing::sorted_lines(out);
}

// The expected output: the Open MPI build's, one process per rank.
std::vector<std::string> openmpi(const char* program, int ranks, const std::string& args) {
  return vela::testing::successful_output(mpirun(ranks, program, args));
}

std::vector<std::string> vela(const std::string& command) {
  return vela::testing::successful_output(command);
}

const std::string globals_args = "-s 4 -t -k 0.5";

TEST(ImagePrograms, GlobalsArePerRankOnOneAndTwoPes) {
  const auto expected = openmpi(GLOBALS_OPENMPI, 4, globals_args);
  ASSERT_EQ(expected.size(), 5u);
  EXPECT_EQ(vela(std::string(GLOBALS_VELA) + " --vp 4 --pes 1 " + globals_args), expected);
  EXPECT_EQ(vela(std::string(GLOBALS_VELA) + " --vp 4 --pes 2 --lb rotate " + globals_args),
            expected);
  // auto is the default; naming it changes nothing.
  EXPECT_EQ(vela(std::string(GLOBALS_VELA) + " --vp 4 --pes 2 --vp-privatize auto " + globals_args),
            expected);
}

TEST(ImagePrograms, GlobalsMoveWithTheirRanksBetweenProcesses) {
  const auto expected = openmpi(GLOBALS_OPENMPI, 4, globals_args);
  EXPECT_EQ(vela(mpirun(2, GLOBALS_VELA, "--vp 4 --lb rotate " + globals_args)), expected);
}

TEST(ImagePrograms, SharedGlobalsGiveWrongOutput) {
  // The property the others rest on: this program cannot pass with its globals shared (its
  // ranks even disagree on the step count: only the first parses the options).
  const auto expected = openmpi(GLOBALS_OPENMPI, 4, globals_args);
  const ProgramResult r = run_program(
      std::string(GLOBALS_VELA) + " --vp 4 --pes 1 --vp-privatize none " + globals_args, "");
  EXPECT_NE(lines(r.out), expected);
}

TEST(ImagePrograms, CheckpointedGlobalsRestartOnAnotherLayout) {
  const auto expected = openmpi(GLOBALS_OPENMPI, 4, globals_args);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vela_image_ckpt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const ProgramResult crashed =
      run_program("env VELA_TEST_EXIT_AT=1 " + std::string(GLOBALS_VELA) +
                      " --vp 4 --pes 2 --lb rotate --checkpoint " + dir.string() +
                      " --checkpoint-every 1 " + globals_args,
                  "");
  ASSERT_EQ(crashed.status, 3) << crashed.out;
  EXPECT_EQ(vela(std::string(GLOBALS_VELA) + " --vp 4 --pes 1 --restart " + dir.string() + " " +
                 globals_args),
            expected);
  EXPECT_EQ(vela(mpirun(2, GLOBALS_VELA, "--vp 4 --restart " + dir.string() + " " + globals_args)),
            expected);
  std::filesystem::remove_all(dir);
}

TEST(ImagePrograms, CxxObjectsArePerRank) {
  const auto expected = openmpi(OBJECTS_OPENMPI, 3, "");
  // Per rank: two objects constructed (the global, the thread_local), the rank line, both
  // destroyed.
  ASSERT_EQ(expected.size(), 15u);
  EXPECT_EQ(vela(std::string(OBJECTS_VELA) + " --vp 3 --pes 1"), expected);
  EXPECT_EQ(vela(std::string(OBJECTS_VELA) + " --vp 3 --pes 2 --lb rotate"), expected);
  EXPECT_EQ(vela(mpirun(2, OBJECTS_VELA, "--vp 3 --lb rotate")), expected);
  // Shared: one object constructed and destroyed for all, one history.
  const ProgramResult shared =
      run_program(std::string(OBJECTS_VELA) + " --vp 3 --pes 1 --vp-privatize none", "");
  EXPECT_EQ(shared.status, 0) << shared.out;
  EXPECT_NE(lines(shared.out), expected);
}

TEST(ImagePrograms, TlsGivesRanksTheirThreadLocalsOnly) {
  // Under tls the program's globals are shared but each rank has its own thread_local: the
  // "thread" field (per rank) is right, the history (shared) is not.
  const ProgramResult r =
      run_program(std::string(OBJECTS_VELA) + " --vp 3 --pes 1 --vp-privatize tls", "");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("rank 2: made 9 history 9"));
  EXPECT_THAT(r.out, HasSubstr("thread 106"));  // 100 + 3 steps of rank 2
}

TEST(ImagePrograms, PrivatizeValuesAreChecked) {
  const ProgramResult bad =
      run_program(std::string(GLOBALS_VELA) + " --vp 2 --vp-privatize all", "");
  EXPECT_NE(bad.status, 0);
  EXPECT_THAT(bad.out, HasSubstr("--vp-privatize"));
  EXPECT_THAT(bad.out, HasSubstr("auto,tls,copy,none"));
  const ProgramResult both =
      run_program(std::string(GLOBALS_VELA) + " --vp 2 --vp-privatize none --vp-tls-globals", "");
  EXPECT_NE(both.status, 0);
  EXPECT_THAT(both.out, HasSubstr("ask for two methods"));
  // A program linked with its main cannot give each rank its own instance.
  const ProgramResult classic =
      run_program(std::string(CLASSIC_PROGRAM) + " --vp 2 --vp-privatize auto", "");
  EXPECT_NE(classic.status, 0);
  EXPECT_THAT(classic.out, HasSubstr("--vp-privatize auto: this program was linked with its main"));
}

// A fault in a rank of an image names the rank and the program's function; under mpirun the
// whole job ends, with the message, instead of hanging.
TEST(ImagePrograms, FaultsNameTheRankAndTheFunction) {
  const ProgramResult segv = run_program(std::string(FAULT_VELA) + " --vp 3 --pes 2 segv", "");
  EXPECT_NE(segv.status, 0);
  EXPECT_THAT(segv.out, ::testing::ContainsRegex(
                            "rank 2 on PE [01] \\(process 0\\): segmentation fault at 0x10 "
                            "while running crash_here"));
  const ProgramResult overflow =
      run_program(std::string(FAULT_VELA) + " --vp 3 --pes 2 overflow", "");
  EXPECT_NE(overflow.status, 0);
  // The default stack is 1 MiB.
  EXPECT_THAT(overflow.out, HasSubstr("stack overflow in its 1048576-byte stack (use --vp-stack)"));
  const ProgramResult across =
      run_program("timeout 120 " + mpirun(2, FAULT_VELA, "--vp 4 segv"), "");
  EXPECT_NE(across.status, 0);
  EXPECT_NE(across.status, 124) << "the job did not end";
  EXPECT_THAT(across.out, ::testing::ContainsRegex("rank 3 on PE [0-9]+ \\(process 1\\): "
                                                   "segmentation fault at 0x10 while running "
                                                   "crash_here"));
  const ProgramResult fine = run_program(std::string(FAULT_VELA) + " --vp 3 --pes 2 none", "");
  EXPECT_EQ(fine.status, 0) << fine.out;
}

// Every rank calling exit() at once, on two PEs: the first ends the process with its status.
TEST(ImagePrograms, ExitFromRanksOnSeveralPesEndsTheProcess) {
  for (int run = 0; run < 5; ++run) {
    const ProgramResult r = run_program(std::string(FAULT_VELA) + " --vp 4 --pes 2 exit", "");
    EXPECT_EQ(r.status, 3) << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("segmentation fault")));
  }
}

// Threads ranks start and join, ranks ending while others still start threads: the threads'
// sums are Open MPI's, on 1 and 2 PEs, with ranks moving at every step, and over 2 processes
// (where a thread's stack that glibc caches with a vector in a rank's heap crashed the
// process's next pthread_create once that rank had ended).
TEST(ImagePrograms, ThreadsRanksStartAreTheProcesss) {
  const auto expected = openmpi(THREADS_OPENMPI, 4, "");
  ASSERT_EQ(expected.size(), 4u);
  EXPECT_EQ(vela(std::string(THREADS_VELA) + " --vp 4 --pes 1"), expected);
  EXPECT_EQ(vela(std::string(THREADS_VELA) + " --vp 4 --pes 2 --lb rotate"), expected);
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(vela(mpirun(2, THREADS_VELA, "--vp 4")), expected);
  }
}

class ImageWrapper : public vela::testing::ScratchDirTest {};

TEST_F(ImageWrapper, ShowGlobalsListsNameSizeAndSource) {
  const ProgramResult r = run_program(VELA_MPICC, std::string("--show-globals ") + GLOBALS_VELA);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("counter +4  .*globals_main.c"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("scale +8  .*globals_main.c"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("calls[.0-9]* +4 "));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("my_rank +4  .*globals_steps.c"));
  EXPECT_THAT(r.out, Not(HasSubstr("__dso_handle")));
}

// The globals of a static library linked into the program are the rank's too.
TEST_F(ImageWrapper, StaticLibraryGlobalsArePerRank) {
  const std::string library = path("count.c");
  std::ofstream(library) << "int count = 0;\nint bump(void) { return ++count; }\n";
  const std::string main = path("main.c");
  std::ofstream(main) << R"(#include <mpi.h>
#include <stdio.h>
int bump(void);
int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d count %d\n", rank, bump());
  MPI_Finalize();
  return 0;
}
)";
  ASSERT_EQ(run_program(VELA_MPICC, "-c " + library + " -o " + path("count.o")).status, 0);
  ASSERT_EQ(run_program("ar", "rcs " + path("libcount.a") + " " + path("count.o")).status, 0);
  const ProgramResult built =
      run_program(VELA_MPICC, main + " -L" + dir_.string() + " -lcount -o " + path("counted"));
  ASSERT_EQ(built.status, 0) << built.out;
  const std::vector<std::string> own{"rank 0 count 1", "rank 1 count 1", "rank 2 count 1"};
  EXPECT_EQ(vela(path("counted") + " --vp 3 --pes 1"), own);
  EXPECT_EQ(vela(path("counted") + " --vp 3 --pes 2"), own);
  // Shared, the ranks count 1, 2 and 3 between them (in the order they come).
  const ProgramResult shared =
      run_program(path("counted") + " --vp 3 --pes 1 --vp-privatize none", "");
  EXPECT_THAT(shared.out, HasSubstr("count 3"));
  // A static library of code that is not position-independent cannot go into an image.
  ASSERT_EQ(run_program("cc", "-fno-pic -c " + library + " -o " + path("fixed.o")).status, 0);
  ASSERT_EQ(run_program("ar", "rcs " + path("libfixed.a") + " " + path("fixed.o")).status, 0);
  const ProgramResult fixed =
      run_program(VELA_MPICC, main + " -L" + dir_.string() + " -lfixed -o " + path("fixed"));
  EXPECT_NE(fixed.status, 0);
  EXPECT_THAT(fixed.out, HasSubstr("must be position-independent code"));
}

TEST_F(ImageWrapper, LinkingWithSharedGlobalsWarns) {
  const std::string sources = std::string(GLOBALS_SOURCES);
  const ProgramResult quiet = run_program(VELA_MPICC, "-g -O1 " + sources + " -o " + path("auto"));
  EXPECT_EQ(quiet.status, 0) << quiet.out;
  EXPECT_EQ(quiet.out, "");  // all is well: nothing to say
  const ProgramResult warned =
      run_program(VELA_MPICC, "-O1 --vp-privatize none " + sources + " -o " + path("globals"));
  EXPECT_EQ(warned.status, 0) << warned.out;
  EXPECT_THAT(warned.out, HasSubstr("warning: --vp-privatize none"));
  EXPECT_THAT(warned.out, HasSubstr("counter"));
  EXPECT_THAT(warned.out, ::testing::ContainsRegex("share the program's [0-9]+ writable global"));
  // The link-time method is the program's default: its globals are shared.
  const std::string run = " --vp 4 --pes 1 " + globals_args;
  const ProgramResult shared = run_program(GLOBALS_VELA + run + " --vp-privatize none", "");
  // (Named as the other, which error messages start with.)
  const ProgramResult linked = run_program(path("globals") + run, "");
  EXPECT_EQ(linked.status, shared.status) << linked.out;
  EXPECT_EQ(lines(linked.out), lines(shared.out));
  const ProgramResult value = run_program(VELA_MPICC, "--vp-privatize some " + sources + " -o x");
  EXPECT_NE(value.status, 0);
  EXPECT_THAT(value.out, HasSubstr("--vp-privatize 'some': expected auto, tls, copy or none"));
}

}  // namespace
