/* Allocation in ranks: every rank allocates blocks of one size at a time (16 B to 16 MiB),
 * writes one byte per page of each (as a program filling an array does), keeps the last WINDOW
 * blocks live and frees the oldest, so that each malloc follows a free of the same size (the
 * window filled first, untimed: the steady state is measured). Per
 * size it prints the mean nanoseconds per malloc/free pair over the ranks and the minor page
 * faults per thousand allocations (the PE thread's count around the rank's loop: a rank's loop
 * runs on its PE without switching, so the count is its own). A plain MPI program: built with
 * vela-mpicc it runs as Vela ranks (glibc's malloc in one process, each rank's own heap with
 * --vp-heap or across processes), with Open MPI's mpicc as plain processes on glibc.
 *   alloc_ranks [WINDOW]      (default 8)
 * Prints lines "size BYTES ns NS faults_per_1000 F" on rank 0. bench/alloc_ranks.py makes the
 * table. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static long minor_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

/* A block of `bytes`, one byte per page written with `mark` (the job ends if malloc fails). */
static unsigned char* touched_block(size_t bytes, unsigned char mark, int rank) {
  unsigned char* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "alloc_ranks: rank %d: malloc(%zu) failed\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t b = 0; b < bytes; b += 4096) p[b] = mark;
  p[bytes - 1] = 1;
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int window = argc > 1 ? atoi(argv[1]) : 8;
  if (window < 1 || window > 64) {
    if (rank == 0) fprintf(stderr, "alloc_ranks: WINDOW: expected 1 to 64, got %s\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned char* live[64] = {0};
  for (size_t bytes = 16; bytes <= ((size_t)16 << 20); bytes *= 16) {
    /* About 64 MiB allocated per rank and size, between 64 and 20000 blocks. */
    size_t count = ((size_t)64 << 20) / bytes;
    if (count < 64) count = 64;
    if (count > 20000) count = 20000;
    /* The window filled first, untimed: what is measured is the steady state, each block
     * allocated where one of its size was freed. */
    for (int s = 0; s < window; ++s) live[s] = touched_block(bytes, 1, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    const long faults_before = minor_faults();
    const double t0 = MPI_Wtime();
    for (size_t i = 0; i < count; ++i) {
      const size_t slot = i % (size_t)window;
      free(live[slot]);
      live[slot] = touched_block(bytes, (unsigned char)i, rank);
    }
    const double seconds = MPI_Wtime() - t0;
    const long faults = minor_faults() - faults_before;
    for (int s = 0; s < window; ++s) {
      free(live[s]);
      live[s] = NULL;
    }
    double mine[2] = {seconds * 1e9 / (double)count, 1000.0 * (double)faults / (double)count};
    double sum[2] = {0, 0};
    MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("size %zu ns %.1f faults_per_1000 %.1f\n", bytes, sum[0] / size, sum[1] / size);
    }
  }
  MPI_Finalize();
  return 0;
}
