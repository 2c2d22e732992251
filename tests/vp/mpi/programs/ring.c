/* Passes a token round the ranks for a few laps with MPI_Send / MPI_Recv: every rank adds its
 * number to it, rank 0 reports it after each lap. A plain MPI program. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size, laps, token = 0;
  MPI_Status status;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  laps = argc > 1 ? atoi(argv[1]) : 3;
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;

  for (int lap = 1; lap <= laps; ++lap) {
    if (rank == 0) {
      token += 1000 * lap;
      MPI_Send(&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, previous, lap, MPI_COMM_WORLD, &status);
      printf("lap %d: token %d came back from rank %d (tag %d)\n", lap, token, status.MPI_SOURCE,
             status.MPI_TAG);
    } else {
      MPI_Recv(&token, 1, MPI_INT, previous, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      token += rank;
      MPI_Send(&token, 1, MPI_INT, next, status.MPI_TAG, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("ring of %d ranks: final token %d\n", size, token);
  MPI_Finalize();
  return 0;
}
