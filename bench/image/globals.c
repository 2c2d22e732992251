/* A plain MPI program holding 10^GLOBALS_EXP int globals, each its own variable (-DGLOBALS_EXP=0
 * to 5), built by vela-mpicc as a loaded image: what a rank switch, a rank's memory, the start
 * of many ranks and a rank's move cost under --vp-privatize auto against none
 * (bench/image_privatization.sh prints the tables).
 *   globals switch [YIELDS]   2 ranks on 1 PE: each increments a global and calls MPI_Yield,
 *                             YIELDS times, 7 times; prints the best ns per context switch
 *   globals start             every rank: MPI_Init, touch one global, MPI_Finalize
 *   globals move [STEPS]      every rank: touches one global, MPI_Migrate STEPS times */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GLOBALS_EXP
#define GLOBALS_EXP 0
#endif

/* clang-format off */
#define X10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define X100(M, p) X10(M, p##0) X10(M, p##1) X10(M, p##2) X10(M, p##3) X10(M, p##4) \
  X10(M, p##5) X10(M, p##6) X10(M, p##7) X10(M, p##8) X10(M, p##9)
#define X1000(M, p) X100(M, p##0) X100(M, p##1) X100(M, p##2) X100(M, p##3) X100(M, p##4) \
  X100(M, p##5) X100(M, p##6) X100(M, p##7) X100(M, p##8) X100(M, p##9)
#define X10000(M, p) X1000(M, p##0) X1000(M, p##1) X1000(M, p##2) X1000(M, p##3) \
  X1000(M, p##4) X1000(M, p##5) X1000(M, p##6) X1000(M, p##7) X1000(M, p##8) X1000(M, p##9)
#define X100000(M, p) X10000(M, p##0) X10000(M, p##1) X10000(M, p##2) X10000(M, p##3) \
  X10000(M, p##4) X10000(M, p##5) X10000(M, p##6) X10000(M, p##7) X10000(M, p##8) \
  X10000(M, p##9)
/* clang-format on */
#define GLOBAL(n) int global##n = 1;
#if GLOBALS_EXP == 0
GLOBAL(_0)
#elif GLOBALS_EXP == 1
X10(GLOBAL, _)
#elif GLOBALS_EXP == 2
X100(GLOBAL, _)
#elif GLOBALS_EXP == 3
X1000(GLOBAL, _)
#elif GLOBALS_EXP == 4
X10000(GLOBAL, _)
#else
X100000(GLOBAL, _)
#endif

#if GLOBALS_EXP == 0
#define FIRST global_0
#elif GLOBALS_EXP == 1
#define FIRST global_0
#elif GLOBALS_EXP == 2
#define FIRST global_00
#elif GLOBALS_EXP == 3
#define FIRST global_000
#elif GLOBALS_EXP == 4
#define FIRST global_0000
#else
#define FIRST global_00000
#endif

static double switch_ns(int yields) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < yields; ++i) {
      ++FIRST;
      MPI_Yield();
    }
    const double ns = (MPI_Wtime() - start) * 1e9 / (2.0 * yields);
    if (ns < best) best = ns;
  }
  return best;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "switch";
  const int count = argc > 2 ? atoi(argv[2]) : 0;
  if (strcmp(mode, "switch") == 0) {
    const double ns = switch_ns(count > 0 ? count : 50000);
    if (rank == 0) printf("ns per switch: %.1f\n", ns);
  } else if (strcmp(mode, "move") == 0) {
    FIRST += rank;
    for (int step = 0; step < (count > 0 ? count : 4); ++step) MPI_Migrate();
  } else {
    FIRST += rank;
  }
  MPI_Finalize();
  return 0;
}
