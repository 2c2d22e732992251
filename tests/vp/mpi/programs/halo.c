/* 1-D heat diffusion on a rod split into equal blocks, one per rank: each step exchanges the
 * block's edge cells with the neighbours (MPI_Sendrecv, MPI_PROC_NULL at the rod's ends),
 * relaxes the block and reduces the largest change with MPI_Allreduce. A plain MPI program. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 64 /* per rank */

int main(int argc, char** argv) {
  int rank, size;
  double u[CELLS + 2], next[CELLS + 2];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? atoi(argv[1]) : 200;
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  /* The rod starts cold with a hot left end held at 1. */
  for (int i = 0; i < CELLS + 2; ++i) u[i] = 0.0;
  if (rank == 0) u[0] = 1.0;

  for (int step = 1; step <= steps; ++step) {
    MPI_Sendrecv(&u[CELLS], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[CELLS + 1], 1, MPI_DOUBLE, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) u[0] = 1.0;
    if (rank == size - 1) u[CELLS + 1] = 0.0;
    double change = 0.0;
    for (int i = 1; i <= CELLS; ++i) {
      next[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
      change = fmax(change, fabs(next[i] - u[i]));
    }
    for (int i = 1; i <= CELLS; ++i) u[i] = next[i];
    double largest;
    MPI_Allreduce(&change, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && step % 50 == 0) printf("step %d: largest change %.12e\n", step, largest);
  }
  double heat = 0.0, total;
  for (int i = 1; i <= CELLS; ++i) heat += u[i];
  MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("heat in the rod: %.12e\n", total);
  MPI_Finalize();
  return 0;
}
