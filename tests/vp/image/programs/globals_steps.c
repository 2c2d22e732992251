/* The MPI side of globals_main.c: a rank migrates at every step (MPI_Migrate: with a
 * balancer that moves every rank, between PEs and processes), and may leave the process there
 * (VELA_TEST_EXIT_AT=STEP: rank 0 ends the process after that step, for a restart from a
 * checkpoint). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int my_rank = -1;

int start(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  return my_rank;
}

void step_done(int step) {
  MPI_Migrate();
  const char* exit_at = getenv("VELA_TEST_EXIT_AT");
  if (exit_at != NULL && atoi(exit_at) == step && my_rank == 0) {
    fflush(stdout);
    _Exit(3);
  }
}

void finish(long total) {
  long sum = 0;
  MPI_Allreduce(&total, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (my_rank == 0) printf("sum of totals %ld\n", sum);
  MPI_Finalize();
}
