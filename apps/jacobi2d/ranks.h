/* The MPI version of Jacobi2D (ranks.c): an MPI program's main, run by every rank. */
#ifndef JACOBI2D_RANKS_H
#define JACOBI2D_RANKS_H

#ifdef __cplusplus
extern "C" {
#endif

int jacobi2d_ranks(int argc, char** argv);

/* When set, rank 0 calls it after each step with the steps done and the steps in all (the Vela
 * driver draws its progress line with it); null in the plain-MPI build. Set before the ranks
 * start, read-only while they run. */
extern void (*jacobi2d_after_step)(int step, int steps);

#ifdef __cplusplus
}
#endif

#endif
