/* What the MPI layer's communicators and datatypes cost, as a plain MPI program (the same source
 * builds against Open MPI: mpi_layer_openmpi). Prints markdown tables:
 *   split N    MPI_Comm_split of MPI_COMM_WORLD (colour rank % 2, key -rank): the slowest rank's
 *              time, median of N calls (each followed by MPI_Comm_free)
 *   collectives N
 *              one 8-byte MPI_Allreduce and one 8-byte MPI_Bcast, µs per call (median of N
 *              batches of 100), on MPI_COMM_WORLD, a duplicate of it, the first half of the
 *              ranks (a strided group), the even ranks, and the ranks in a shuffled order (a
 *              listed group); compare a half with a run of half as many ranks' world
 *   halo ROWS N
 *              ranks 0 and 1 swap a column of a ROWS x 64 array of doubles: as one
 *              MPI_Type_vector, and packed by hand into a contiguous buffer (and unpacked), µs
 *              per swap, median of N batches
 *   rma N      one-sided operations from rank 0 on rank 1's window (the others wait in a
 *              barrier): an 8-byte MPI_Put, MPI_Get, MPI_Accumulate and MPI_Fetch_and_op and a
 *              64 KiB MPI_Put, each followed by MPI_Win_flush inside one MPI_Win_lock_all
 *              epoch, and an MPI_Win_fence epoch in which every rank puts 8 bytes to the next:
 *              µs per operation, median of N batches
 * Usage: mpi_layer [split N] [collectives N] [halo ROWS N] [rma N]   (any subset, any order) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median of n values (sorts them), and their spread (max - min) through `spread`. */
static double median(double* values, int n, double* spread) {
  qsort(values, (size_t)n, sizeof *values, compare);
  *spread = values[n - 1] - values[0];
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static void split_table(int reps) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* times = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; ++r) {
    MPI_Comm half;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    double mine = MPI_Wtime() - start;
    double slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    times[r] = slowest;
    MPI_Comm_free(&half);
  }
  if (rank == 0) {
    double spread = 0;
    const double m = median(times, reps, &spread);
    printf("\n## MPI_Comm_split of %d ranks (ms, slowest rank)\n\n", size);
    printf("| ranks | median | spread | calls |\n|---:|---:|---:|---:|\n");
    printf("| %d | %.3f | %.3f | %d |\n", size, m * 1e3, spread * 1e3, reps);
  }
  free(times);
}

/* µs per call of 100 allreduces or bcasts on `comm`, median of `reps` batches (rank 0 of
 * MPI_COMM_WORLD reports; every rank of comm takes part). */
static double per_call(MPI_Comm comm, int reps, int bcast, double* spread) {
  double* times = malloc(sizeof(double) * (size_t)reps);
  double in = 1.0;
  double out = 0.0;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    for (int i = 0; i < 100; ++i) {
      if (bcast) {
        MPI_Bcast(&in, 1, MPI_DOUBLE, 0, comm);
      } else {
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
      }
    }
    double mine = (MPI_Wtime() - start) / 100;
    MPI_Allreduce(&mine, &times[r], 1, MPI_DOUBLE, MPI_MAX, comm);
  }
  const double m = median(times, reps, spread);
  *spread *= 1e6;
  free(times);
  return m * 1e6;
}

static void collectives_table(int reps) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  MPI_Comm first_half;
  MPI_Comm evens;
  MPI_Comm shuffled;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 0 : 1, rank, &first_half);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &evens);
  MPI_Comm_split(MPI_COMM_WORLD, 0, (rank * 7919) % size, &shuffled);
  const char* names[] = {"MPI_COMM_WORLD", "duplicate of it", "first half (strided group)",
                         "even ranks (stride 2)", "all, shuffled (listed group)"};
  MPI_Comm comms[] = {MPI_COMM_WORLD, dup, first_half, evens, shuffled};
  if (rank == 0) {
    printf("\n## 8-byte collectives on communicators (µs per call, %d ranks in the run)\n\n", size);
    printf("| communicator | ranks | MPI_Allreduce | spread | MPI_Bcast | spread |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
  }
  for (int k = 0; k < 5; ++k) {
    int n = 0;
    MPI_Comm_size(comms[k], &n);
    double s1 = 0;
    double s2 = 0;
    const double all = per_call(comms[k], reps, 0, &s1);
    const double bcast = per_call(comms[k], reps, 1, &s2);
    int mine = 0;
    MPI_Comm_rank(comms[k], &mine);
    /* Rank 0 of the world prints (it is rank 0 of every one of these but the shuffled one, whose
     * own rank 0 hands its figures over). */
    double figures[4] = {all, s1, bcast, s2};
    if (k == 4) {
      if (mine == 0 && rank != 0) MPI_Send(figures, 4, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD);
      if (rank == 0 && mine != 0)
        MPI_Recv(figures, 4, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
      printf("| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", names[k], n, figures[0], figures[1],
             figures[2], figures[3]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&shuffled);
  MPI_Comm_free(&evens);
  MPI_Comm_free(&first_half);
  MPI_Comm_free(&dup);
}

#define COLUMNS 64

static void halo_table(int rows, int reps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double* a = malloc(sizeof(double) * (size_t)rows * COLUMNS);
  double* packed = malloc(sizeof(double) * (size_t)rows);
  double* unpacked = malloc(sizeof(double) * (size_t)rows);
  for (int i = 0; i < rows * COLUMNS; ++i) a[i] = rank + i * 1e-3;
  MPI_Datatype column;
  MPI_Type_vector(rows, 1, COLUMNS, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  double* vector_times = malloc(sizeof(double) * (size_t)reps);
  double* hand_times = malloc(sizeof(double) * (size_t)reps);
  const int other = 1 - rank;
  const int swaps = 200;
  for (int r = 0; r < reps; ++r) {
    for (int variant = 0; variant < 2; ++variant) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      if (rank < 2) {
        for (int s = 0; s < swaps; ++s) {
          if (variant == 0) {
            MPI_Sendrecv(&a[COLUMNS - 2], 1, column, other, 1, &a[0], 1, column, other, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            for (int i = 0; i < rows; ++i) packed[i] = a[i * COLUMNS + COLUMNS - 2];
            MPI_Sendrecv(packed, rows, MPI_DOUBLE, other, 2, unpacked, rows, MPI_DOUBLE, other, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < rows; ++i) a[i * COLUMNS] = unpacked[i];
          }
        }
      }
      const double per = (MPI_Wtime() - start) / swaps * 1e6;
      if (variant == 0) {
        vector_times[r] = per;
      } else {
        hand_times[r] = per;
      }
    }
  }
  if (rank == 0) {
    double s1 = 0;
    double s2 = 0;
    const double v = median(vector_times, reps, &s1);
    const double h = median(hand_times, reps, &s2);
    printf("\n## A strided halo: one column of a %d x %d array of doubles (µs per swap)\n\n", rows,
           COLUMNS);
    printf("| rows | MPI_Type_vector | spread | packed by hand | spread | vector / hand |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", rows, v, s1, h, s2, v / h);
  }
  MPI_Type_free(&column);
  free(vector_times);
  free(hand_times);
  free(unpacked);
  free(packed);
  free(a);
}

enum { RMA_PUT, RMA_GET, RMA_ACC, RMA_FOP, RMA_BIG, RMA_FENCE, RMA_KINDS };
static const char* const rma_names[RMA_KINDS] = {
    "8 B MPI_Put + flush",          "8 B MPI_Get + flush",    "8 B MPI_Accumulate + flush",
    "8 B MPI_Fetch_and_op + flush", "64 KiB MPI_Put + flush", "MPI_Win_fence epoch (8 B put each)"};

/* µs per operation of kind `kind` on `win`, over `ops` operations (every rank calls it). */
static double rma_batch(MPI_Win win, int kind, int ops, long* big) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long value = 1;
  long result = 0;
  if (kind == RMA_FENCE) MPI_Win_fence(MPI_MODE_NOPRECEDE, win); /* opens the fence epochs */
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (kind == RMA_FENCE) {
    for (int i = 0; i < ops; ++i) {
      MPI_Put(&value, 1, MPI_LONG, (rank + 1) % size, 0, 1, MPI_LONG, win);
      MPI_Win_fence(0, win);
    }
  } else if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ops; ++i) {
      if (kind == RMA_PUT) MPI_Put(&value, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
      if (kind == RMA_GET) MPI_Get(&result, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
      if (kind == RMA_ACC) MPI_Accumulate(&value, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
      if (kind == RMA_FOP) MPI_Fetch_and_op(&value, &result, MPI_LONG, 1, 0, MPI_SUM, win);
      if (kind == RMA_BIG) MPI_Put(big, 8192, MPI_LONG, 1, 0, 8192, MPI_LONG, win);
      MPI_Win_flush(1, win);
    }
    MPI_Win_unlock_all(win);
  }
  const double per = (MPI_Wtime() - start) / ops * 1e6;
  if (kind == RMA_FENCE) MPI_Win_fence(MPI_MODE_NOSUCCEED, win); /* passive epochs may follow */
  MPI_Barrier(MPI_COMM_WORLD); /* the target waits here while rank 0 works on its memory */
  return per;
}

static void rma_table(int reps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long* memory = NULL;
  MPI_Win win;
  MPI_Win_allocate(8192 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
  long* big = calloc(8192, sizeof(long));
  double* times = malloc(sizeof(double) * (size_t)reps);
  if (rank == 0) {
    printf("\n## One-sided operations, rank 0 on rank 1's window (µs per operation)\n\n");
    printf("| operation | median | spread |\n|---|---:|---:|\n");
  }
  for (int kind = 0; kind < RMA_KINDS; ++kind) {
    for (int r = 0; r < reps; ++r) times[r] = rma_batch(win, kind, kind == RMA_BIG ? 20 : 100, big);
    double spread = 0;
    const double m = median(times, reps, &spread);
    if (rank == 0) printf("| %s | %.2f | %.2f |\n", rma_names[kind], m, spread);
  }
  MPI_Win_free(&win);
  free(times);
  free(big);
}

/* A positive count from the command line, or -1. */
static int positive(const char* text) {
  char* end = NULL;
  const long value = strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 && value < 1000000000 ? (int)value : -1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; ++i) {
    const int a = i + 1 < argc ? positive(argv[i + 1]) : -1;
    const int b = i + 2 < argc ? positive(argv[i + 2]) : -1;
    if (strcmp(argv[i], "split") == 0 && a > 0) {
      split_table(a);
      i += 1;
    } else if (strcmp(argv[i], "collectives") == 0 && a > 0) {
      collectives_table(a);
      i += 1;
    } else if (strcmp(argv[i], "rma") == 0 && a > 0 && size >= 2) {
      rma_table(a);
      i += 1;
    } else if (strcmp(argv[i], "halo") == 0 && a > 0 && b > 0 && size >= 2) {
      halo_table(a, b);
      i += 2;
    } else {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) {
        fprintf(stderr,
                "mpi_layer: unknown or incomplete argument '%s' (expected split N, collectives N, "
                "halo ROWS N, rma N with positive counts; halo and rma need 2 ranks or more)\n",
                argv[i]);
      }
      MPI_Finalize();
      return 2;
    }
  }
  MPI_Finalize();
  return 0;
}
