/* Computes pi as the integral of 4 / (1 + x^2) over [0, 1] by the midpoint rule: rank 0 reads
 * the number of intervals, broadcasts it, each rank sums every size-th interval and the partial
 * sums are reduced to rank 0. A plain MPI program (nothing in it knows about Vela). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double integrand(double x) {
  return 4.0 / (1.0 + x * x);
}

int main(int argc, char* argv[]) {
  const double pi_reference = 3.141592653589793238462643;
  int rank, size, name_length;
  int intervals = 0;
  char name[MPI_MAX_PROCESSOR_NAME];
  double width, partial, pi, start = 0.0;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &name_length);
  printf("Process %d of %d is on %s\n", rank, size, name);
  fflush(stdout);

  if (rank == 0) {
    intervals = argc > 1 ? atoi(argv[1]) : 100000;
    start = MPI_Wtime();
  }
  MPI_Bcast(&intervals, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (intervals <= 0) {
    if (rank == 0) fprintf(stderr, "usage: cpi [intervals > 0]\n");
    MPI_Finalize();
    return 2;
  }

  width = 1.0 / (double)intervals;
  partial = 0.0;
  for (int i = rank; i < intervals; i += size) partial += integrand(width * ((double)i + 0.5));
  partial *= width;

  MPI_Reduce(&partial, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("intervals: %d\n", intervals);
    printf("pi is approximately %.16f, error %.16f\n", pi, fabs(pi - pi_reference));
    printf("wall clock time = %f\n", MPI_Wtime() - start);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
