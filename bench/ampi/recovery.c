/* recovery: a plain-MPI 1-D stencil for measuring what a lost process costs on Vela and on AMPI
 * (bench/ampi_recovery.py). Each rank owns CELLS cells of a ring; every step it exchanges one
 * halo cell with each neighbour, relaxes its cells WORK times (the compute), and every
 * MIGRATE_EVERY steps calls MPI_Migrate() (Vela's balancing and checkpoint point; under AMPI the
 * shim bench/ampi/migrate_shim.h makes it AMPI_Migrate, checkpointing). All state is on the
 * rank's stack and heap (no globals), so AMPI needs no privatization method to checkpoint it.
 * Prints the run's checksum (every cell's bits hashed with its position, summed modulo 2^64:
 * the same for any rank placement) and, at every balancing point, nothing.
 *   recovery CELLS STEPS WORK MIGRATE_EVERY
 * Costs: STEPS * CELLS * WORK relaxations per rank, two 8-byte messages per rank and step. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPI_Migrate
#define MPI_Migrate() ((void)0) /* plain MPI has no balancing point */
#endif

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static long parse(const char* text, const char* what) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1) {
    fprintf(stderr, "recovery: %s: expected a positive integer, got '%s'\n", what, text);
    exit(1);
  }
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    fprintf(stderr, "usage: recovery CELLS STEPS WORK MIGRATE_EVERY\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const long cells = parse(argv[1], "CELLS");
  const long steps = parse(argv[2], "STEPS");
  const long work = parse(argv[3], "WORK");
  const long every = parse(argv[4], "MIGRATE_EVERY");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* u = malloc((size_t)(cells + 2) * sizeof *u);
  double* v = malloc((size_t)(cells + 2) * sizeof *v);
  if (u == NULL || v == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long i = 0; i < cells + 2; ++i) u[i] = (double)((rank * cells + i) % 97) / 97.0;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (long step = 1; step <= steps; ++step) {
    MPI_Sendrecv(&u[cells], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[cells + 1], 1, MPI_DOUBLE, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long w = 0; w < work; ++w) {
      for (long i = 1; i <= cells; ++i) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
      v[0] = u[0];
      v[cells + 1] = u[cells + 1];
      double* t = u;
      u = v;
      v = t;
    }
    if (step % every == 0 && step < steps) MPI_Migrate();
  }
  uint64_t sum = 0, total = 0;
  for (long i = 1; i <= cells; ++i) {
    uint64_t bits;
    memcpy(&bits, &u[i], sizeof bits);
    sum += mix(bits ^ mix((uint64_t)(rank * cells + i)));
  }
  MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("checksum: %016llx\n", (unsigned long long)total);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
