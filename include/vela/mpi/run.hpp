// Running MPI programs written for vela/mpi.h from C++: what the vela::mpi_main library's main()
// does, for programs and tests that keep their own main (define VELA_MPI_NO_MAIN before
// including vela/mpi.h there, and link vela::mpi rather than vela::mpi_main).
#pragma once

#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace vela::mpi {

// An MPI program's main (the function vela/mpi.h renamed vela_mpi_main).
using Main = int (*)(int argc, char** argv);

// Runs `main` as the body of options.ranks ranks (0: one per PE) over `runtime`'s PEs, each rank
// with its own copy of argv[0..argc). Returns the exit status: MPI_Abort's code when a rank
// called it, else the first non-zero value returned by a rank's main in rank order (so a
// failing rank is never hidden), else 0. An error in an MPI call ends the run (errors are
// fatal) and is thrown here as vela::vp::Error, its message naming the call ("MPI_Recv: ...");
// so is a deadlock. One MPI run at a time per process.
int run(rt::Runtime& runtime, const vp::Options& options, Main main, int argc, char** argv);
// The same with argv given as strings (arguments[0]: the program's name).
int run(rt::Runtime& runtime, const vp::Options& options, Main main,
        std::vector<std::string> arguments);

// A whole program: takes the runtime's options (--vp, --pes, --lb, ...; --vela-help lists them)
// out of argv and passes the other arguments, in order, to every rank's `main` (all of those
// after "--" unread); runs it and returns the process's exit status, as run() does. Errors are
// printed as "<program>: error: <message>" and give status 1.
int main(int argc, char** argv, Main main);

}  // namespace vela::mpi
