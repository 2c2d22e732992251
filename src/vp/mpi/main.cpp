// The real main() of a program whose main vela/mpi.h renamed vela_mpi_main: runs it as the
// ranks' body. Linked from the vela::mpi_main library only when the program has no main().
#include <unistd.h>

#include <cstdio>

#include "vela/mpi/run.hpp"

// The program defines one of these; the references are weak, so the others stay null. C has
// one symbol for every signature (extra arguments are ignored by the calling convention); C++
// mangles each signature differently.
extern "C" int vela_mpi_main_c(int, char**, char**) __asm__("vela_mpi_main") __attribute__((weak));
int vela_mpi_main() __attribute__((weak));
int vela_mpi_main(int, char**) __attribute__((weak));
int vela_mpi_main(int, const char**) __attribute__((weak));
int vela_mpi_main(int, char**, char**) __attribute__((weak));

namespace {

int program_main(int argc, char** argv) {
  if (vela_mpi_main_c != nullptr) return vela_mpi_main_c(argc, argv, environ);
  int (*no_arguments)() = vela_mpi_main;
  int (*arguments)(int, char**) = vela_mpi_main;
  int (*const_arguments)(int, const char**) = vela_mpi_main;
  int (*environment)(int, char**, char**) = vela_mpi_main;
  if (no_arguments != nullptr) return no_arguments();
  if (arguments != nullptr) return arguments(argc, argv);
  if (const_arguments != nullptr) return const_arguments(argc, const_cast<const char**>(argv));
  if (environment != nullptr) return environment(argc, argv, environ);
  return 0;  // not reached: main() checks that the program has a main first
}

int defined_mains() {
  int (*no_arguments)() = vela_mpi_main;
  int (*arguments)(int, char**) = vela_mpi_main;
  int (*const_arguments)(int, const char**) = vela_mpi_main;
  int (*environment)(int, char**, char**) = vela_mpi_main;
  return (vela_mpi_main_c != nullptr) + (no_arguments != nullptr) + (arguments != nullptr) +
         (const_arguments != nullptr) + (environment != nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  vela::vp::prepare_ranks_across_processes(argc, argv);
  const char* program = argc > 0 ? argv[0] : "mpi";
  const int mains = defined_mains();
  if (mains != 1) {
    std::fprintf(stderr,
                 mains == 0 ? "%s: error: the program has no main (the file that defines it "
                              "must include vela/mpi.h)\n"
                            : "%s: error: the program defines main more than once (vela/mpi.h "
                              "renames each to vela_mpi_main)\n",
                 program);
    return 1;
  }
  return vela::mpi::main(argc, argv, &program_main);
}
