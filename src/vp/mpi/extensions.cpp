// Vela's own calls beyond the MPI standard (AMPI's): the points where a rank lets the runtime
// move it (MPI_Migrate) or lets the other ranks of its PE run (MPI_Yield).
#include "internal.hpp"

namespace vela::mpi::detail {
namespace {

// A call without arguments that hands the rank to vp's `what`.
int rank_call(const char* call, void (*what)()) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    what();
  });
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Migrate(void) {
  return rank_call("MPI_Migrate", vp::migrate);
}

int VPMPI_Yield(void) {
  return rank_call("MPI_Yield", vp::yield);
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Migrate);
VMPI_PROFILED(Yield);
