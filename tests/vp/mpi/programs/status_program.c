/* An MPI program (for vela::mpi_main) whose first argument picks what it does, for the tests of
 * the process's exit status, error messages and arguments (mpi_programs_test). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  const int value = argc > 2 ? atoi(argv[2]) : 0;
  int code = 0;
  if (strcmp(mode, "args") == 0) {
    if (rank == size - 1) {
      printf("ranks %d, argc %d:", size, argc);
      for (int i = 1; i < argc; ++i) printf(" [%s]", argv[i]);
      printf("\n");
    }
  } else if (strcmp(mode, "return") == 0) {
    code = rank == size - 1 ? value : 0; /* only the last rank fails */
  } else if (strcmp(mode, "abort") == 0) {
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, value);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "abort-while-busy") == 0) {
    /* As a program waiting to be killed after MPI_Abort: rank 0 computes forever. */
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, value);
    if (rank == 0) {
      volatile unsigned long spin = 0;
      for (;;) ++spin;
    }
  } else if (strcmp(mode, "bad-dest") == 0) {
    MPI_Send(&value, 1, MPI_INT, value, 0, MPI_COMM_WORLD);
  } else if (strcmp(mode, "truncate-large") == 0) {
    /* A large message (sent from where it lies) into a receive buffer 8 bytes too small. */
    const int n = 100000;
    int* big = calloc((size_t)n, sizeof *big);
    if (rank == 0) MPI_Send(big, n, MPI_INT, size - 1, 0, MPI_COMM_WORLD);
    if (rank == size - 1) MPI_Recv(big, n - 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(big);
  } else if (strcmp(mode, "deadlock") == 0) {
    if (rank == 0) MPI_Recv(&code, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    if (rank == 0) fprintf(stderr, "status_program: unknown mode '%s'\n", mode);
    code = 2;
  }
  MPI_Finalize();
  return code;
}
