/* The <mpi.h> of MPI programs built against Vela unchanged: this directory is on the include
 * path of vela::mpi_main and of the vela-mpicc / vela-mpicxx wrappers, so that `#include
 * <mpi.h>` finds Vela's MPI subset rather than the system's MPI. */
#include "vela/mpi.h"
