/* Jacobi2D as a plain MPI program (C99 against vela/mpi.h; it also builds against any MPI with
 * -DJACOBI2D_STANDALONE, vela-mpicc's included, whose MPI_Migrate stays a balancing point): the
 * N x N mesh in one block per rank (a px x py grid of ranks), halos exchanged with
 * MPI_Irecv/MPI_Isend/MPI_Waitall, a residual by MPI_Allreduce each step, and MPI_Migrate every
 * --sync-every steps. The numerics and the checksum are the object version's (main.cpp), so
 * both print the same checksum for any decomposition. */
#define VELA_MPI_NO_MAIN
#include "ranks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef JACOBI2D_STANDALONE
#include <mpi.h>
#ifndef MPI_Migrate
#define MPI_Migrate() ((void)0) /* plain MPI has no balancing point (Vela's mpi.h has one) */
#endif
#else
#include <vela/mpi.h>
#endif

enum { LEFT, RIGHT, DOWN, UP };

void (*jacobi2d_after_step)(int step, int steps) = NULL;

typedef struct {
  int mesh, steps, heavy, sync_every;
  int px, py, bx, by;      /* rank grid and this rank's position in it */
  int x0, y0, nx, ny;      /* this rank's block */
  double *u, *next;        /* (nx + 2) x (ny + 2), with the halo */
} Block;

static int range_start(int cells, int blocks, int b) {
  return (int)((int64_t)cells * b / blocks);
}

static uint64_t mix(uint64_t x) { /* the object version's 64-bit finalizer */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static double* at(double* a, const Block* b, int i, int j) {
  return &a[(size_t)j * (size_t)(b->nx + 2) + (size_t)i];
}

static int heavy(const Block* b, int gx, int gy) {
  const int lo = b->mesh / 8, hi = 3 * b->mesh / 8;
  return b->heavy > 1 && gx >= lo && gx < hi && gy >= lo && gy < hi;
}

/* Dirichlet boundary: the mesh's top row is held at 1, the other edges at 0. */
static void apply_boundary(Block* b, double* a) {
  if (b->y0 + b->ny == b->mesh) {
    for (int i = 0; i < b->nx + 2; ++i) *at(a, b, i, b->ny + 1) = 1.0;
  }
}

/* The rank grid closest to square: px the largest divisor of n not above sqrt(n). */
static void rank_grid(int n, int* px, int* py) {
  int best = 1;
  for (int d = 1; (long)d * d <= n; ++d) {
    if (n % d == 0) best = d;
  }
  *px = n / best;
  *py = best;
}

static int neighbour(const Block* b, int side) {
  switch (side) {
    case LEFT: return b->bx > 0 ? b->by * b->px + b->bx - 1 : MPI_PROC_NULL;
    case RIGHT: return b->bx + 1 < b->px ? b->by * b->px + b->bx + 1 : MPI_PROC_NULL;
    case DOWN: return b->by > 0 ? (b->by - 1) * b->px + b->bx : MPI_PROC_NULL;
    default: return b->by + 1 < b->py ? (b->by + 1) * b->px + b->bx : MPI_PROC_NULL;
  }
}

/* Sends this block's edges and receives the neighbours' into the halo. */
static void exchange(Block* b, double* send[4], double* recv[4]) {
  MPI_Request q[8];
  int n = 0;
  const int len[4] = {b->ny, b->ny, b->nx, b->nx};
  for (int j = 0; j < b->ny; ++j) {
    send[LEFT][j] = *at(b->u, b, 1, j + 1);
    send[RIGHT][j] = *at(b->u, b, b->nx, j + 1);
  }
  for (int i = 0; i < b->nx; ++i) {
    send[DOWN][i] = *at(b->u, b, i + 1, 1);
    send[UP][i] = *at(b->u, b, i + 1, b->ny);
  }
  for (int s = 0; s < 4; ++s) {
    const int peer = neighbour(b, s);
    if (peer == MPI_PROC_NULL) continue;
    /* Tag: the side as the receiver sees it (my LEFT edge is my left neighbour's RIGHT halo). */
    MPI_Irecv(recv[s], len[s], MPI_DOUBLE, peer, s, MPI_COMM_WORLD, &q[n++]);
    MPI_Isend(send[s], len[s], MPI_DOUBLE, peer, s ^ 1, MPI_COMM_WORLD, &q[n++]);
  }
  MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
  if (neighbour(b, LEFT) != MPI_PROC_NULL)
    for (int j = 0; j < b->ny; ++j) *at(b->u, b, 0, j + 1) = recv[LEFT][j];
  if (neighbour(b, RIGHT) != MPI_PROC_NULL)
    for (int j = 0; j < b->ny; ++j) *at(b->u, b, b->nx + 1, j + 1) = recv[RIGHT][j];
  if (neighbour(b, DOWN) != MPI_PROC_NULL)
    for (int i = 0; i < b->nx; ++i) *at(b->u, b, i + 1, 0) = recv[DOWN][i];
  if (neighbour(b, UP) != MPI_PROC_NULL)
    for (int i = 0; i < b->nx; ++i) *at(b->u, b, i + 1, b->ny + 1) = recv[UP][i];
}

/* One step; returns the largest change of a cell. */
static double compute(Block* b) {
  double change = 0.0;
  for (int j = 1; j <= b->ny; ++j) {
    for (int i = 1; i <= b->nx; ++i) {
      double v = 0.25 * (*at(b->u, b, i - 1, j) + *at(b->u, b, i + 1, j) +
                         *at(b->u, b, i, j - 1) + *at(b->u, b, i, j + 1));
      if (heavy(b, b->x0 + i - 1, b->y0 + j - 1)) {
        /* Extra physics-like work: a damped fixed-point iteration that nudges the value. */
        double s = v;
        for (int k = 1; k < b->heavy; ++k) s = 0.5 * s + 0.5 * v * (1.0 - 1e-3 * s * s);
        v += 1e-6 * (s - v);
      }
      const double d = v - *at(b->u, b, i, j);
      if (d > change) change = d;
      if (-d > change) change = -d;
      *at(b->next, b, i, j) = v;
    }
  }
  double* t = b->u;
  b->u = b->next;
  b->next = t;
  return change;
}

/* Per cell a hash of its global position and value bits; four 16-bit lanes summed exactly. */
static void checksum(const Block* b, double lanes[4]) {
  for (int l = 0; l < 4; ++l) lanes[l] = 0.0;
  for (int j = 1; j <= b->ny; ++j) {
    for (int i = 1; i <= b->nx; ++i) {
      const uint64_t cell = (uint64_t)(b->y0 + j - 1) * (uint64_t)b->mesh + (uint64_t)(b->x0 + i - 1);
      uint64_t bits;
      const double v = b->u[(size_t)j * (size_t)(b->nx + 2) + (size_t)i];
      memcpy(&bits, &v, sizeof bits);
      const uint64_t h = mix(cell ^ mix(bits));
      for (int l = 0; l < 4; ++l) lanes[l] += (double)((h >> (16 * l)) & 0xffff);
    }
  }
}

static int parse(int argc, char** argv, Block* b) {
  for (int k = 1; k < argc; ++k) {
    int* target = NULL;
    if (strcmp(argv[k], "--mesh") == 0) target = &b->mesh;
    else if (strcmp(argv[k], "--steps") == 0) target = &b->steps;
    else if (strcmp(argv[k], "--heavy") == 0) target = &b->heavy;
    else if (strcmp(argv[k], "--sync-every") == 0) target = &b->sync_every;
    if (target == NULL || k + 1 >= argc) {
      fprintf(stderr, "jacobi2d: unknown argument '%s' (expected --mesh, --steps, --heavy, "
                      "--sync-every with a value)\n", argv[k]);
      return 0;
    }
    char* end = NULL;
    const long v = strtol(argv[++k], &end, 10);
    if (*end != '\0' || v < 0 || v > (1L << 30)) {
      fprintf(stderr, "jacobi2d: %s '%s': expected a non-negative integer\n", argv[k - 1], argv[k]);
      return 0;
    }
    *target = (int)v;
  }
  return 1;
}

int jacobi2d_ranks(int argc, char** argv) {
  Block b;
  memset(&b, 0, sizeof b);
  b.mesh = 512;
  b.steps = 100;
  b.heavy = 1;
  b.sync_every = 10;
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!parse(argc, argv, &b)) MPI_Abort(MPI_COMM_WORLD, 1);
  rank_grid(size, &b.px, &b.py);
  if (b.px > b.mesh || b.py > b.mesh) {
    if (rank == 0) fprintf(stderr, "jacobi2d: %d ranks exceed --mesh %d: every block needs a cell\n", size, b.mesh);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  b.bx = rank % b.px;
  b.by = rank / b.px;
  b.x0 = range_start(b.mesh, b.px, b.bx);
  b.y0 = range_start(b.mesh, b.py, b.by);
  b.nx = range_start(b.mesh, b.px, b.bx + 1) - b.x0;
  b.ny = range_start(b.mesh, b.py, b.by + 1) - b.y0;
  const size_t cells = (size_t)(b.nx + 2) * (size_t)(b.ny + 2);
  b.u = calloc(cells, sizeof(double));
  b.next = calloc(cells, sizeof(double));
  double* send[4];
  double* recv[4];
  const int edge = b.nx > b.ny ? b.nx : b.ny;
  for (int s = 0; s < 4; ++s) {
    send[s] = malloc((size_t)edge * sizeof(double));
    recv[s] = malloc((size_t)edge * sizeof(double));
  }
  apply_boundary(&b, b.u);
  apply_boundary(&b, b.next);

  MPI_Barrier(MPI_COMM_WORLD);
  const double begin = MPI_Wtime();
  double residual = 0.0;
  for (int step = 1; step <= b.steps; ++step) {
    exchange(&b, send, recv);
    const double change = compute(&b);
    MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (b.sync_every > 0 && step % b.sync_every == 0 && step < b.steps) MPI_Migrate();
    if (rank == 0 && jacobi2d_after_step != NULL) jacobi2d_after_step(step, b.steps);
  }
  double lanes[4], total[4];
  checksum(&b, lanes);
  MPI_Reduce(lanes, total, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  const double end = MPI_Wtime();
  if (rank == 0) {
    uint64_t sum = 0;
    for (int l = 0; l < 4; ++l) sum = mix(sum ^ (uint64_t)total[l]);
    printf("checksum: %016llx\n", (unsigned long long)sum);
    printf("residual: %.6e\n", residual);
    printf("time: %.6f\n", end - begin);
  }
  for (int s = 0; s < 4; ++s) {
    free(send[s]);
    free(recv[s]);
  }
  free(b.u);
  free(b.next);
  MPI_Finalize();
  return 0;
}

#ifdef JACOBI2D_STANDALONE
int main(int argc, char** argv) {
  return jacobi2d_ranks(argc, argv);
}
#endif
