/* Collectives over many ranks, timed inside the program: after a first barrier (every rank
 * started), rank 0 times REPS rounds of MPI_Barrier then MPI_Allreduce of one integer (the
 * ranks' sum, checked) and prints the mean milliseconds of a round. bench/side_by_side.py runs it
 * with 10^4 ranks on Vela and AMPI (Open MPI would need 10^4 processes).
 *   many_ranks [REPS]      (default 10) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int reps = argc > 1 ? atoi(argv[1]) : 10;
  if (reps < 1) {
    if (rank == 0) fprintf(stderr, "many_ranks: REPS: expected a positive count\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  long long sum = 0;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    long long mine = rank, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum = all;
  }
  const double ms = (MPI_Wtime() - start) * 1e3 / reps;
  if (sum != (long long)size * (size - 1) / 2) {
    fprintf(stderr, "many_ranks: rank %d: sum %lld, expected %lld\n", rank, sum,
            (long long)size * (size - 1) / 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("ranks %d barrier+allreduce ms %.3f\n", size, ms);
  MPI_Finalize();
  return 0;
}
