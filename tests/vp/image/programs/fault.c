/* A rank that faults: `segv` makes the last rank write through a bad pointer in crash_here(),
 * `overflow` makes it recurse until its stack runs out; `exit` makes every rank call exit(3)
 * after MPI_Finalize (as programs do after printing their usage); any other argument,
 * nothing. */
#include <stdlib.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int* volatile bad_pointer = (int*)16;

void crash_here(void) {
  *bad_pointer = 1;
}

int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = (char)depth;
  return frame[0] + (depth > 0 ? recurse(depth + 1) : 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1 && argc > 1 && strcmp(argv[1], "segv") == 0) crash_here();
  if (rank == size - 1 && argc > 1 && strcmp(argv[1], "overflow") == 0) printf("%d\n", recurse(1));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (argc > 1 && strcmp(argv[1], "exit") == 0) exit(3);
  return 0;
}
