/* What the Open MPI half of mpi_mixed_test reports (no MPI header needed to read it). */
#ifndef VELA_TESTS_MIXED_OPENMPI_H
#define VELA_TESTS_MIXED_OPENMPI_H

#ifdef __cplusplus
extern "C" {
#endif

struct OpenMpiSeen {
  int initialized;
  int size;
  int rank;
  int sum;
};

/* MPI_Init of a one-process (singleton) run and a few calls; 1 when all succeeded. */
int openmpi_singleton(struct OpenMpiSeen* seen);
/* MPI_Finalize; 1 when it succeeded and MPI_Finalized says so. */
int openmpi_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
