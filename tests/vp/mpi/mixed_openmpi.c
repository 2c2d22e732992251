/* The Open MPI half of mpi_mixed_test: real MPI (the system's mpi.h and libmpi) in a process
 * that also runs Vela's ranks. */
#include <mpi.h>

#include "mixed_openmpi.h"

int openmpi_singleton(struct OpenMpiSeen* seen) {
  int ok = MPI_Init(NULL, NULL) == MPI_SUCCESS;
  MPI_Initialized(&seen->initialized);
  MPI_Comm_size(MPI_COMM_WORLD, &seen->size);
  MPI_Comm_rank(MPI_COMM_WORLD, &seen->rank);
  seen->sum = 0;
  ok = ok &&
       MPI_Allreduce(&seen->size, &seen->sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
  return ok;
}

int openmpi_finalize(void) {
  int finalized = 0;
  const int ok = MPI_Finalize() == MPI_SUCCESS;
  MPI_Finalized(&finalized);
  return ok && finalized;
}
