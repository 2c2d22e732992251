/* pingpong.c: the 8-byte ping-pong of ranks 0 and 1 in C, the twin of pingpong.f90 (the same
 * calls, a status written as Fortran's is). Usage: pingpong [ROUNDS]; prints "one-way us: X". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 200000;
  double value = 1.0;
  MPI_Status status;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(&value, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&value, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &status);
    } else if (rank == 1) {
      MPI_Recv(&value, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &status);
      MPI_Send(&value, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("one-way us: %.4f\n", elapsed / (2.0 * rounds) * 1e6);
  MPI_Finalize();
  return 0;
}
