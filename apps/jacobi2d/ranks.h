/* The MPI version of Jacobi2D (ranks.c): an MPI program's main, run by every rank. */
#ifndef JACOBI2D_RANKS_H
#define JACOBI2D_RANKS_H

#ifdef __cplusplus
extern "C" {
#endif

int jacobi2d_ranks(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif
