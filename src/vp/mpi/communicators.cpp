// MPI's groups, contexts and communicators: one communicator, MPI_COMM_WORLD, whose ranks are
// vp's ranks.
#include "internal.hpp"

namespace vela::mpi::detail {
namespace {

// MPI_Comm_rank and MPI_Comm_size: what `value` reads of the calling rank's label, written
// through `out` (named `what`).
template <class Value>
int comm_query(const char* call, MPI_Comm comm, int* out, const char* what, Value value) {
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    check_out(call, out, what);
    *out = value(label);
  });
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return comm_query("MPI_Comm_rank", comm, rank, "rank",
                    [](const Label& label) { return label.rank(); });
}

int VMPI_Comm_size(MPI_Comm comm, int* size) {
  return comm_query("MPI_Comm_size", comm, size, "size",
                    [](const Label& label) { return label.size(); });
}

}  // extern "C"
