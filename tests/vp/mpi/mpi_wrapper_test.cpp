// The compiler wrappers vela-mpicc and vela-mpicxx: C and C++ MPI programs with either
// signature of main compile, link and run as ranks; calls outside the subset do not compile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>

#include "support/program.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using vela::testing::ProgramResult;
using vela::testing::run_program;

class MpiWrapper : public vela::testing::ScratchDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string file = path(name);
    std::ofstream(file) << text;
    return file;
  }
};

// Every rank adds its number; rank 0 prints what the program says and the sum.
const char* const c_body = R"(
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
)";

TEST_F(MpiWrapper, CProgramWithVoidMain) {
  const std::string source = write("void.c", std::string(R"(#include <mpi.h>
#include <stdio.h>
int main(void) {
  MPI_Init(NULL, NULL);)") + c_body + R"(
  if (rank == 0) printf("C, main(void): %d ranks, sum %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult build = run_program(
      VELA_MPICC, "-std=c99 -Wall -Wextra -Wpedantic -Werror " + source + " -o " + path("void"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("void"), "--vp 3 --pes 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "C, main(void): 3 ranks, sum 3\n");
}

TEST_F(MpiWrapper, CProgramWithArgumentsFromTwoFiles) {
  // One file compiled apart (-c), the other compiled and linked in the same command.
  const std::string helper =
      write("helper.c", "int twice(int x);\nint twice(int x) { return 2 * x; }\n");
  const std::string source = write("args.c", std::string(R"(#include <mpi.h>
#include <stdio.h>
int twice(int x);
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);)") + c_body + R"(
  if (rank == 0) printf("C, main(argc, argv): %d ranks, sum %d, %s\n", size, twice(sum), argv[1]);
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult object =
      run_program(VELA_MPICC, "-c -O2 " + helper + " -o " + path("helper.o"));
  ASSERT_EQ(object.status, 0) << object.out;
  const ProgramResult build = run_program(
      VELA_MPICC, "-O2 -Wall -Werror " + source + " " + path("helper.o") + " -o " + path("args"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("args"), "--vp 4 --pes 2 hello");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "C, main(argc, argv): 4 ranks, sum 12, hello\n");
}

// main in a static library, linked as an executable's link would (HPL keeps it in libhpl.a);
// and no main anywhere is a link error, as with the compiler.
TEST_F(MpiWrapper, MainFromAStaticLibrary) {
#if defined(VELA_SANITIZED_BUILD)
  GTEST_SKIP() << "a main in a static library is linked in by the program image's link; "
                  "sanitizer builds link programs with their main (renamed by mpi.h)";
#endif
  const std::string source = write("libmain.c", std::string(R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);)") + c_body + R"(
  if (rank == 0) printf("main from an archive: %d ranks, sum %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult object =
      run_program(VELA_MPICC, "-c -O2 " + source + " -o " + path("libmain.o"));
  ASSERT_EQ(object.status, 0) << object.out;
  const ProgramResult archive =
      run_program("ar", "rcs " + path("libprogram.a") + " " + path("libmain.o"));
  ASSERT_EQ(archive.status, 0) << archive.out;
  const ProgramResult build =
      run_program(VELA_MPICC, "-O2 -o " + path("archived") + " " + path("libprogram.a"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("archived"), "--vp 3 --pes 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "main from an archive: 3 ranks, sum 3\n");

  const std::string helper =
      write("nomain.c", "int twice(int x);\nint twice(int x) { return 2 * x; }\n");
  const ProgramResult none = run_program(VELA_MPICC, helper + " -o " + path("nomain"));
  EXPECT_NE(none.status, 0);
  EXPECT_THAT(none.out, HasSubstr("undefined reference to"));  // ld's words, or the wrapper's
  EXPECT_THAT(none.out, HasSubstr("main"));
}

// Files a rank leaves open when its main returns are flushed and closed, as exit() does, also
// when their FILEs live in the rank's own heap (--vp-heap), which is gone by the time the
// process exits (HPC Challenge leaves its output file open).
TEST_F(MpiWrapper, FilesLeftOpenInARanksHeapAreWritten) {
  const std::string source = write("open.c", R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[64];
  snprintf(name, sizeof name, "%s.%d", argv[1], rank);
  FILE* f = fopen(name, "w");
  for (int i = 0; i < 1000; ++i) fprintf(f, "rank %d line %d\n", rank, i);
  MPI_Finalize();
  return 0; /* f is never closed */
}
)");
  const ProgramResult build = run_program(VELA_MPICC, "-O2 " + source + " -o " + path("open"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("open"), "--vp 4 --pes 2 --vp-heap 16m " + path("out"));
  EXPECT_EQ(r.status, 0) << r.out;
  for (int rank = 0; rank < 4; ++rank) {
    std::ifstream in(path("out." + std::to_string(rank)));
    std::string line;
    std::string last;
    int lines = 0;
    while (std::getline(in, line)) {
      ++lines;
      last = line;
    }
    EXPECT_EQ(lines, 1000) << "rank " << rank;
    EXPECT_EQ(last, "rank " + std::to_string(rank) + " line 999");
  }
}

// A child a rank forks ends when its main returns, with main's status and what it printed
// (osu_latency_mp forks its senders; the runtime's other threads do not follow into the child).
TEST_F(MpiWrapper, AForkedChildEndsWhenItsMainReturns) {
  const std::string source = write("fork.c", R"(#include <mpi.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pid_t child = -1;
  if (rank == 0) {
    fflush(stdout);
    child = fork();
    if (child == 0) {
      printf("child of rank 0 returns 7\n");
      return 7;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int status = 0;
    const struct timespec tenth = {0, 100000000};
    for (int i = 0; i < 100 && waitpid(child, &status, WNOHANG) == 0; ++i) nanosleep(&tenth, NULL);
    if (WIFEXITED(status)) printf("child ended with %d\n", WEXITSTATUS(status));
    else printf("child still running\n");
  }
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult build = run_program(VELA_MPICC, "-O2 " + source + " -o " + path("fork"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("fork"), "--vp 2 --pes 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("child of rank 0 returns 7\n"));
  EXPECT_THAT(r.out, HasSubstr("child ended with 7\n"));
}

TEST_F(MpiWrapper, CxxProgramWithVoidMain) {
  const std::string source = write("void.cpp", std::string(R"(#include <mpi.h>
#include <iostream>
#include <vector>
int main() {
  MPI_Init(nullptr, nullptr);)") + c_body + R"(
  std::vector<int> all(static_cast<std::size_t>(size));
  MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  if (rank == 0) std::cout << "C++, main(): " << size << " ranks, sum " << sum << ", last " << all.back() << "\n";
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult build = run_program(
      VELA_MPICXX, "-std=c++20 -Wall -Wextra -Wpedantic -Werror " + source + " -o " + path("void"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("void"), "--vp 5 --pes 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "C++, main(): 5 ranks, sum 10, last 4\n");
}

TEST_F(MpiWrapper, CxxProgramWithArguments) {
  const std::string source = write("args.cpp", std::string(R"(#include <mpi.h>
#include <cstdio>
#include <string>
#include <utility>
int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);)") + c_body + R"(
  const std::string word = argc > 1 ? argv[1] : "none";
  if (rank == 0) std::printf("C++, main(argc, argv): %d ranks, sum %d, %s\n", size, sum, word.c_str());
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult build =
      run_program(VELA_MPICXX, "-O2 -Wall -Wextra -Werror " + source + " -o " + path("args"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("args"), "--vp 2 --pes 2 world");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "C++, main(argc, argv): 2 ranks, sum 1, world\n");
}

// The profiling interface: a program's own MPI_Send replaces the library's and reaches it as
// PMPI_Send (each rank counts its own sends: the counter is privatized).
TEST_F(MpiWrapper, ProfilingInterfaceWrapsCalls) {
#if defined(VELA_SANITIZED_BUILD)
  GTEST_SKIP() << "the program counts its sends in a global, which is each rank's own only in a "
                  "loaded image; sanitizer builds link programs with their main";
#endif
  const std::string source = write("profiled.c", R"(#include <mpi.h>
#include <stdio.h>
static int sends = 0;
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}
int main(int argc, char** argv) {
  int rank, size, got, total = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i) {
    MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Reduce(&sends, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("sends counted: %d\n", total);
  MPI_Finalize();
  return 0;
}
)");
  const ProgramResult build = run_program(VELA_MPICC, "-O2 " + source + " -o " + path("profiled"));
  ASSERT_EQ(build.status, 0) << build.out;
  const ProgramResult r = run_program(path("profiled"), "--vp 4 --pes 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("sends counted: 12"));
}

TEST_F(MpiWrapper, UnsupportedCallsDoNotCompile) {
  const std::string split = R"(#include <mpi.h>
int main(int argc, char** argv) {
  MPI_File file;
  MPI_Init(&argc, &argv);
  MPI_File_open(MPI_COMM_WORLD, "out", MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  MPI_Finalize();
  return 0;
}
)";
  for (const auto& [compiler, file] :
       {std::pair{VELA_MPICC, "split.c"}, std::pair{VELA_MPICXX, "split.cpp"}}) {
    const std::string source = write(file, split);
    const ProgramResult r = run_program(compiler, "-c " + source + " -o " + path("split.o"));
    EXPECT_NE(r.status, 0) << file << " compiled";
    EXPECT_THAT(r.out, HasSubstr("MPI_File_open is not supported by Vela's MPI")) << file;
  }
  // A call the header does not know at all: C's implicit declaration is an error too.
  const std::string fence = R"(#include <mpi.h>
int main(void) {
  MPI_Init(0, 0);
  MPI_T_init_thread(0, 0);
  return 0;
}
)";
  for (const auto& [compiler, file] :
       {std::pair{VELA_MPICC, "fence.c"}, std::pair{VELA_MPICXX, "fence.cpp"}}) {
    const std::string source = write(file, fence);
    const ProgramResult r = run_program(compiler, "-c " + source + " -o " + path("fence.o"));
    EXPECT_NE(r.status, 0) << file << " compiled";
    EXPECT_THAT(r.out, HasSubstr("MPI_T_init_thread")) << file;
  }
}

TEST_F(MpiWrapper, ShowmePrintsTheCommands) {
  const ProgramResult r = run_program(VELA_MPICC, "--showme x.c -o x");
  EXPECT_EQ(r.status, 0) << r.out;
#if defined(VELA_SANITIZED_BUILD)
  // Sanitizer builds link the program with its main.
  EXPECT_THAT(r.out, HasSubstr("libvela_mpi_main.a"));
#else
  // The program as a shared object, then Vela's runtime with it embedded.
  EXPECT_THAT(r.out, HasSubstr("-shared"));
  EXPECT_THAT(r.out, HasSubstr("-fPIC"));
  EXPECT_THAT(r.out, HasSubstr("libvela_mpi_image_main.a"));
#endif
  EXPECT_THAT(r.out, HasSubstr("-Werror=implicit-function-declaration"));
}

#if !defined(VELA_SANITIZED_BUILD)
// A program image is compiled as an executable would be: a function called from its own file
// is inlined or called directly, not through the procedure linkage table (a shared object's
// default); the program's own -fsemantic-interposition still wins.
TEST_F(MpiWrapper, OwnFunctionsAreCalledAsInAnExecutable) {
  const std::string text = R"(#include <mpi.h>
int twice(int x) { return 2 * x; }
int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  rank = twice(rank);
  MPI_Finalize();
  return rank;
}
)";
  const std::pair<const char*, std::string> builds[] = {{VELA_MPICC, write("direct.c", text)},
                                                        {VELA_MPICXX, write("direct.cpp", text)}};
  const auto through_plt = ::testing::ContainsRegex("twice[a-z]*@PLT");
  for (const auto& [compiler, source] : builds) {
    const std::string assembly = path("direct.s");
    ASSERT_EQ(run_program(compiler, "-O2 -S " + source + " -o " + assembly).status, 0);
    const ProgramResult plain = run_program("cat", assembly);
    EXPECT_THAT(plain.out, HasSubstr("main")) << compiler;
    EXPECT_THAT(plain.out, Not(through_plt)) << compiler;
    ASSERT_EQ(run_program(compiler, "-O2 -fsemantic-interposition -S " + source + " -o " + assembly)
                  .status,
              0);
    EXPECT_THAT(run_program("cat", assembly).out, through_plt) << compiler;
  }
}
#endif

#if defined(VELA_SANITIZED_BUILD)
// Sanitizer builds link programs with their main: automatic privatization is refused, saying
// why and what to use, at link time and at run time.
TEST_F(MpiWrapper, SanitizerBuildsRefuseAutomaticPrivatization) {
  const ProgramResult link = run_program(VELA_MPICC, "--vp-privatize auto x.c -o x");
  EXPECT_NE(link.status, 0);
  EXPECT_THAT(link.out, HasSubstr("sanitizer build"));
  EXPECT_THAT(link.out, HasSubstr("use none, tls or copy"));
  const std::string source = write("plain.c", std::string(R"(#include <mpi.h>
int main(void) {
  MPI_Init(0, 0);
  MPI_Finalize();
  return 0;
}
)"));
  ASSERT_EQ(run_program(VELA_MPICC, source + " -o " + path("plain")).status, 0);
  const ProgramResult run = run_program(path("plain"), "--vp 2 --vp-privatize auto");
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.out, HasSubstr("a sanitizer build does not load programs as images"));
  EXPECT_EQ(run_program(path("plain"), "--vp 2 --vp-privatize none").status, 0);
}
#endif

// The libraries' machine code unless the program asks for link-time optimization.
TEST_F(MpiWrapper, LinksWithoutLinkTimeOptimizationUnlessAsked) {
  for (const char* compiler : {VELA_MPICC, VELA_MPICXX}) {
    const ProgramResult plain = run_program(compiler, "--showme x.c -o x");
    EXPECT_EQ(plain.status, 0) << plain.out;
    EXPECT_THAT(plain.out, HasSubstr("-fno-lto")) << compiler;
    const ProgramResult asked = run_program(compiler, "--showme -flto=auto x.c -o x");
    EXPECT_EQ(asked.status, 0) << asked.out;
    EXPECT_THAT(asked.out, Not(HasSubstr("-fno-lto"))) << compiler;
    EXPECT_THAT(asked.out, HasSubstr("-flto=auto")) << compiler;
    const ProgramResult compile_only = run_program(compiler, "--showme -c x.c -o x.o");
    EXPECT_THAT(compile_only.out, Not(HasSubstr("-fno-lto"))) << compiler;
  }
}

}  // namespace
