/* MPI_Reduce of BYTES bytes of floats (a sum) to ROOT, timed on every rank as osu_reduce times
 * it: after a barrier, each rank times its own call; the mean of ITERS calls (after 10 not
 * counted) per rank, and the mean over the ranks (osu_reduce's figure). The root's result is
 * checked, and the loop's wall time per iteration (a barrier and a reduce, on the root: what the
 * whole program pays, whatever the order in which ranks come). Which rank is the root changes what
 * the mean counts: the root waits for the whole reduction, so its time holds whatever its PE's
 * other ranks do in their calls after it came. Built unchanged for Vela and AMPI
 * (docs/results/mpi-layer.md). Usage: reduce_roots BYTES ITERS ROOT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int positive(const char* text, const char* what, int rank) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0 || v > (1L << 30)) {
    if (rank == 0) fprintf(stderr, "reduce_roots: %s '%s': expected a count\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return (int)v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: reduce_roots BYTES ITERS ROOT\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bytes = positive(argv[1], "BYTES", rank);
  const int iters = positive(argv[2], "ITERS", rank);
  const int root = positive(argv[3], "ROOT", rank);
  if (iters < 1 || root >= size || bytes % 4 != 0) {
    if (rank == 0)
      fprintf(stderr, "reduce_roots: expected ITERS >= 1, ROOT below %d, BYTES a multiple of 4\n",
              size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = bytes / 4;
  float* in = malloc((size_t)bytes + 4);
  float* out = malloc((size_t)bytes + 4);
  for (int i = 0; i < n; ++i) in[i] = (float)(rank + 1);
  double total = 0.0;
  double loop_start = 0.0;
  for (int it = 0; it < iters + 10; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (it == 10) loop_start = MPI_Wtime();
    const double start = MPI_Wtime();
    MPI_Reduce(in, out, n, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
    if (it >= 10) total += MPI_Wtime() - start;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double loop = (MPI_Wtime() - loop_start) / iters * 1e6;
  const float expected = (float)size * (float)(size + 1) / 2.0f;
  int wrong = 0;
  for (int i = 0; rank == root && i < n; ++i) wrong += out[i] != expected;
  const double mine = total / iters * 1e6;
  double* all = malloc(sizeof(double) * (size_t)size);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
  if (rank == root) {
    double sum = 0.0;
    printf("bytes %d root %d us per rank:", bytes, root);
    for (int r = 0; r < size; ++r) {
      printf(" %.1f", all[r]);
      sum += all[r];
    }
    printf(" mean %.2f loop %.2f\n", sum / size, loop);
    if (wrong != 0) printf("reduce_roots: %d elements wrong at the root\n", wrong);
  }
  free(all);
  free(in);
  free(out);
  MPI_Finalize();
  return wrong != 0;
}
