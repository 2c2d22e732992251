/* The BRAMS proxy: a plain MPI program in the shape of a mesoscale weather model.
 *
 * NX x NY columns of NZ levels, split over the ranks in a 2-D grid of blocks (sizes differ by at
 * most one column), halo width 1. Per step: halo exchange of the prognostic fields -> dynamics
 * (upwind advection and diffusion of potential temperature, vapour and cloud water by the
 * horizontal wind; the wind diffused, relaxed to a sheared background flow and pushed by
 * temperature gradients) -> column physics (saturation adjustment by Newton iterations, which
 * only saturated levels need, so a storm's columns cost more; latent heat carried upward;
 * cloud water falling out from the top down into rain; radiation every --radiation-every steps,
 * heavier where the sun is; an optional static topography cost) -> a CFL-like MPI_Allreduce
 * that sets the next time step. A storm (a vapour source) develops and moves slowly across
 * the domain, so the load moves with it; MPI_Migrate() every --lb-every steps lets the runtime
 * move ranks after it.
 *
 * Module state lives in file-scope variables declared with BRAMS_MODULE (module.hpp), as a
 * legacy code keeps it; that header gives each rank its own copy by the privatization method
 * this copy is compiled for. Built with -DBRAMS_STANDALONE it is an ordinary Open MPI program
 * (mpicxx -DBRAMS_STANDALONE model.cpp netcdf_output.cpp), which prints the same checksum for the
 * same --ranks; the same build by vela-mpicxx (its module state plain globals) runs as Vela
 * ranks, each with its own instance of the program (--vp-privatize auto).
 *
 * The checksum hashes every cell's bits with its global position (sums modulo 2^64, so the
 * order of the reduction does not matter): equal checksums mean equal fields, bit for bit,
 * whatever the rank count, the PEs, the balancer or the migrations. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BRAMS_STANDALONE
#include <mpi.h>
#ifndef MPI_Migrate
#define MPI_Migrate() ((void)0) /* plain MPI has no balancing point (Vela's mpi.h has one) */
#endif
#define BRAMS_ENTRY brams_model
#else
#define VELA_MPI_NO_MAIN
#include <vela/mpi.h>
#endif

#include "model.hpp"
#include "module.hpp"
#include "netcdf_output.hpp"
#include "vela/progress/reporter.hpp" /* header-only: the plain-MPI build needs -Iinclude only */

#ifndef BRAMS_ENTRY
#error "BRAMS_ENTRY names this copy's entry point (apps/brams/CMakeLists.txt)"
#endif

namespace {

enum { LEFT, RIGHT, DOWN, UP };
constexpr int fields_count = 5; /* th, qv, qc, u, v: the prognostic fields */

/* Physical constants of the proxy (non-dimensional; one grid length, one time unit). */
constexpr double nu = 0.04;         /* horizontal diffusion */
constexpr double nu_z = 0.02;       /* vertical diffusion */
constexpr double relax_time = 50.0; /* wind relaxation to the background flow */
constexpr double buoyancy = 0.02;   /* wind pushed by temperature gradients */
constexpr double qsat0 = 0.02;      /* saturation vapour at level 0, th = 0 */
constexpr double latent = 2.0;      /* heating per unit condensed */
constexpr double qc_fall = 0.002;   /* cloud water above which it falls out */
constexpr double cooling_time = 200.0;
constexpr double cfl = 0.4;
constexpr double dt_max = 0.5;
constexpr double two_pi = 6.283185307179586;

struct Config {
  int nx, ny, nz, steps, lb_every;
  int storm_work, storm_radius, storm_drift, radiation_every, radiation_work, topography;
  int record_pes;
  int explicit_moves; /* --explicit-moves: ranks moved by hand at the first balancing point */
  int quiet;          /* --quiet: no progress line */
  char step_log[512];
  char record[512];
  char output[512];
};

struct GridModule {
  int rank, size, px, py, bx, by; /* rank grid and this rank's place in it */
  int x0, y0, lx, ly;             /* this rank's block of columns */
  int neighbour[4];
  long row; /* doubles per row of columns: (lx + 2) * nz */
};

struct FieldsModule {
  double* f[fields_count]; /* (lx + 2) x (ly + 2) columns of nz levels, with the halo */
  double* next[fields_count];
  double* rain; /* lx x ly accumulated surface rain */
  double* send[4];
  double* recv[4];
};

struct ClockModule {
  int step;
  double dt, wind_max;
  double* step_seconds;    /* rank 0: wall time of each step (without MPI_Migrate) */
  double* migrate_seconds; /* rank 0: time in MPI_Migrate after each step */
  double* loads;           /* --record: this rank's compute seconds in each step */
  double busy;             /* this rank's compute seconds since the last balancing point */
  double cpu;              /* --record: this rank's CPU seconds in the current step so far */
};

BRAMS_MODULE(Config, config);
BRAMS_MODULE(GridModule, grid);
BRAMS_MODULE(FieldsModule, fields);
BRAMS_MODULE(ClockModule, clock_state);

enum { TH, QV, QC, U, V };

int range_start(int cells, int blocks, int b) {
  return (int)((int64_t)cells * b / blocks);
}

/* CPU seconds of the calling thread: a rank's compute between two of its MPI calls runs on one
 * thread without a switch, so this is its load even when other processes share the cores. */
double thread_seconds() {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* --record: the step's CPU seconds of this rank gain those since `from` (a thread_seconds()
 * reading, or 0 when not recording): the packing and unpacking of halos, the dynamics and physics
 * and the wind pass before the reduction, everything the rank computes between its MPI calls. */
double cpu_mark() {
  return clock_state->loads != NULL ? thread_seconds() : 0.0;
}
void cpu_since(double from) {
  if (clock_state->loads != NULL) clock_state->cpu += thread_seconds() - from;
}

/* Zeroed doubles, or the run ends with a message naming what could not be had (an --nx, --ny,
 * --nz or --steps too large for this machine's memory). */
double* doubles(size_t count, const char* what) {
  void* p = count > SIZE_MAX / sizeof(double) ? NULL : calloc(count, sizeof(double));
  if (p == NULL) {
    fprintf(stderr,
            "brams: cannot allocate %zu doubles for %s (--nx, --ny, --nz or --steps too large)\n",
            count, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return (double*)p;
}

/* An MPI element count, or the run ends: a message beyond 2^31 - 1 elements does not fit MPI's
 * int counts. */
int message_count(size_t count, const char* what) {
  if (count > 2147483647u) {
    fprintf(stderr, "brams: %s would send %zu doubles in one message, more than MPI's 2^31 - 1\n",
            what, count);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return (int)count;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

long cell(int i, int j) {
  return (long)j * grid->row + (long)i * config->nz;
}

double qsat(double th, int k) {
  return qsat0 * exp(-0.08 * k + 0.06 * th);
}

/* ---- options ---- */

struct IntOption {
  const char* name;
  int* target;
  int min, max;
};

int parse(int argc, char** argv, int rank) {
  Config& c = *config;
  c.nx = 64;
  c.ny = 64;
  c.nz = 20;
  c.steps = 240;
  c.lb_every = 60;
  c.storm_work = 128;
  c.storm_radius = 0;
  c.storm_drift = 55;
  c.radiation_every = 100;
  c.radiation_work = 6;
  c.topography = 0;
  c.record_pes = 64;
  c.explicit_moves = 0;
  c.quiet = 0;
  c.step_log[0] = '\0';
  c.record[0] = '\0';
  c.output[0] = '\0';
  const IntOption options[] = {
      {"--nx", &c.nx, 1, 1 << 20},
      {"--ny", &c.ny, 1, 1 << 20},
      {"--nz", &c.nz, 1, 4096},
      {"--steps", &c.steps, 1, 1 << 30},
      {"--lb-every", &c.lb_every, 0, 1 << 30},
      {"--storm-work", &c.storm_work, 1, 1 << 20},
      {"--storm-radius", &c.storm_radius, 0, 1 << 20},
      {"--storm-drift", &c.storm_drift, 0, 70},
      {"--radiation-every", &c.radiation_every, 0, 1 << 30},
      {"--radiation-work", &c.radiation_work, 0, 1 << 20},
      {"--topography", &c.topography, 0, 1 << 20},
      {"--record-pes", &c.record_pes, 1, 1 << 20},
      {"--explicit-moves", &c.explicit_moves, 0, 1 << 20},
  };
  for (int k = 1; k < argc; ++k) {
    if (strcmp(argv[k], "--quiet") == 0) {
      c.quiet = 1;
      continue;
    }
    char* target = strcmp(argv[k], "--step-log") == 0 ? c.step_log
                   : strcmp(argv[k], "--record") == 0 ? c.record
                   : strcmp(argv[k], "--output") == 0 ? c.output
                                                      : NULL;
    if (target != NULL && k + 1 < argc) {
      if (strlen(argv[k + 1]) >= sizeof c.step_log) {
        if (rank == 0) fprintf(stderr, "brams: %s: the path is too long\n", argv[k]);
        return 0;
      }
      strcpy(target, argv[++k]);
      continue;
    }
    const IntOption* option = NULL;
    for (const IntOption& o : options) {
      if (strcmp(argv[k], o.name) == 0) option = &o;
    }
    if (option == NULL || k + 1 >= argc) {
      if (rank == 0) {
        fprintf(
            stderr,
            "brams: unknown argument '%s' (expected --nx, --ny, --nz, --steps, --lb-every, "
            "--storm-work, --storm-radius, --storm-drift, --radiation-every, --radiation-work, "
            "--topography, --explicit-moves, --step-log, --record, --record-pes or --output, each "
            "with a "
            "value, or --quiet)\n",
            argv[k]);
      }
      return 0;
    }
    char* end = NULL;
    const long v = strtol(argv[++k], &end, 10);
    if (*argv[k] == '\0' || *end != '\0' || v < option->min || v > option->max) {
      if (rank == 0) {
        fprintf(stderr, "brams: %s '%s': expected an integer from %d to %d\n", option->name,
                argv[k], option->min, option->max);
      }
      return 0;
    }
    *option->target = (int)v;
  }
  if (c.storm_radius == 0) c.storm_radius = c.nx / 10 > 2 ? c.nx / 10 : 2;
  return 1;
}

/* ---- set-up ---- */

int decompose(int rank, int size) {
  GridModule& g = *grid;
  g.rank = rank;
  g.size = size;
  brams_rank_grid(size, &g.px, &g.py);
  if (g.px > config->nx || g.py > config->ny) {
    if (rank == 0) {
      fprintf(stderr,
              "brams: %d ranks make a %d x %d grid of blocks, more than the %d x %d columns "
              "(--nx, --ny): every rank needs at least one column\n",
              size, g.px, g.py, config->nx, config->ny);
    }
    return 0;
  }
  g.bx = rank % g.px;
  g.by = rank / g.px;
  g.x0 = range_start(config->nx, g.px, g.bx);
  g.y0 = range_start(config->ny, g.py, g.by);
  g.lx = range_start(config->nx, g.px, g.bx + 1) - g.x0;
  g.ly = range_start(config->ny, g.py, g.by + 1) - g.y0;
  g.row = (long)(g.lx + 2) * config->nz;
  g.neighbour[LEFT] = g.bx > 0 ? rank - 1 : MPI_PROC_NULL;
  g.neighbour[RIGHT] = g.bx + 1 < g.px ? rank + 1 : MPI_PROC_NULL;
  g.neighbour[DOWN] = g.by > 0 ? rank - g.px : MPI_PROC_NULL;
  g.neighbour[UP] = g.by + 1 < g.py ? rank + g.px : MPI_PROC_NULL;
  return 1;
}

/* The sizes come as arguments: this runs per cell, where reading module state through a
 * privatized variable (an out-of-line call per access) would cost as much as the formula. */
double background_u(int gy, int k, int ny, int nz) {
  return 0.6 * (1.0 + 0.5 * sin(two_pi * gy / ny)) * (0.5 + (double)k / nz);
}
constexpr double background_v = 0.25;

/* Terrain height in [0, 1): a ridge across the domain. */
double terrain(int gx, int gy) {
  const double x = (double)gx / config->nx, y = (double)gy / config->ny;
  const double d = (y - 0.3 - 0.4 * x) / 0.12;
  return exp(-d * d);
}

void allocate() {
  const GridModule& g = *grid;
  const size_t cells = (size_t)(g.lx + 2) * (size_t)(g.ly + 2) * (size_t)config->nz;
  for (int f = 0; f < fields_count; ++f) {
    fields->f[f] = doubles(cells, "a field");
    fields->next[f] = doubles(cells, "a field");
  }
  fields->rain = doubles((size_t)g.lx * (size_t)g.ly, "the rain");
  const int edge = g.lx > g.ly ? g.lx : g.ly;
  for (int s = 0; s < 4; ++s) {
    fields->send[s] = doubles((size_t)edge * (size_t)config->nz * fields_count, "halo buffers");
    fields->recv[s] = doubles((size_t)edge * (size_t)config->nz * fields_count, "halo buffers");
  }
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      const long c = cell(i, j);
      for (int k = 0; k < config->nz; ++k) {
        fields->f[QV][c + k] = 0.8 * qsat(0.0, k);
        fields->f[U][c + k] = background_u(g.y0 + j - 1, k, config->ny, config->nz);
        fields->f[V][c + k] = background_v;
      }
    }
  }
  if (grid->rank == 0) {
    clock_state->step_seconds = doubles((size_t)config->steps, "the step log");
    clock_state->migrate_seconds = doubles((size_t)config->steps, "the step log");
  }
  if (config->record[0] != '\0') {
    clock_state->loads = doubles((size_t)config->steps, "--record");
  }
}

void release() {
  for (int f = 0; f < fields_count; ++f) {
    free(fields->f[f]);
    free(fields->next[f]);
  }
  free(fields->rain);
  for (int s = 0; s < 4; ++s) {
    free(fields->send[s]);
    free(fields->recv[s]);
  }
  free(clock_state->step_seconds);
  free(clock_state->migrate_seconds);
  free(clock_state->loads);
}

/* ---- halo exchange ---- */

/* Copies the columns of side s (interior edge or halo) to or from a buffer, field by field. */
void copy_side(int side, bool halo, double* buffer, bool to_buffer) {
  const GridModule& g = *grid;
  const int nz = config->nz;
  int i0 = 0, j0 = 0, di = 0, dj = 0, n = 0;
  switch (side) {
    case LEFT:
      i0 = halo ? 0 : 1;
      j0 = 1;
      dj = 1;
      n = g.ly;
      break;
    case RIGHT:
      i0 = halo ? g.lx + 1 : g.lx;
      j0 = 1;
      dj = 1;
      n = g.ly;
      break;
    case DOWN:
      i0 = 1;
      j0 = halo ? 0 : 1;
      di = 1;
      n = g.lx;
      break;
    default:
      i0 = 1;
      j0 = halo ? g.ly + 1 : g.ly;
      di = 1;
      n = g.lx;
      break;
  }
  double* b = buffer;
  for (int f = 0; f < fields_count; ++f) {
    double* a = fields->f[f];
    for (int m = 0; m < n; ++m) {
      double* col = a + cell(i0 + m * di, j0 + m * dj);
      if (to_buffer)
        memcpy(b, col, (size_t)nz * sizeof(double));
      else
        memcpy(col, b, (size_t)nz * sizeof(double));
      b += nz;
    }
  }
}

/* At the domain's edge the halo repeats the edge columns (zero gradient). */
void fill_boundary(int side) {
  const GridModule& g = *grid;
  const size_t bytes = (size_t)config->nz * sizeof(double);
  for (int f = 0; f < fields_count; ++f) {
    double* a = fields->f[f];
    if (side == LEFT || side == RIGHT) {
      const int from = side == LEFT ? 1 : g.lx, to = side == LEFT ? 0 : g.lx + 1;
      for (int j = 1; j <= g.ly; ++j) memcpy(a + cell(to, j), a + cell(from, j), bytes);
    } else {
      const int from = side == DOWN ? 1 : g.ly, to = side == DOWN ? 0 : g.ly + 1;
      for (int i = 1; i <= g.lx; ++i) memcpy(a + cell(i, to), a + cell(i, from), bytes);
    }
  }
}

void exchange() {
  const GridModule& g = *grid;
  MPI_Request q[8];
  int n = 0;
  for (int s = 0; s < 4; ++s) {
    if (g.neighbour[s] == MPI_PROC_NULL) continue;
    const int count = message_count(
        (size_t)(s == LEFT || s == RIGHT ? g.ly : g.lx) * (size_t)config->nz * fields_count,
        "a halo");
    const double packing = cpu_mark();
    copy_side(s, false, fields->send[s], true);
    cpu_since(packing);
    /* Tag: the side as the receiver sees it (my LEFT edge is my left neighbour's RIGHT halo). */
    MPI_Irecv(fields->recv[s], count, MPI_DOUBLE, g.neighbour[s], s, MPI_COMM_WORLD, &q[n++]);
    MPI_Isend(fields->send[s], count, MPI_DOUBLE, g.neighbour[s], s ^ 1, MPI_COMM_WORLD, &q[n++]);
  }
  MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
  const double unpacking = cpu_mark();
  for (int s = 0; s < 4; ++s) {
    if (g.neighbour[s] == MPI_PROC_NULL)
      fill_boundary(s);
    else
      copy_side(s, true, fields->recv[s], false);
  }
  cpu_since(unpacking);
}

/* ---- dynamics ---- */

void dynamics() {
  const GridModule& g = *grid;
  const int nz = config->nz, ny = config->ny;
  const double dt = clock_state->dt;
  const long row = g.row;
  double* const* f = fields->f;
  double* const* next = fields->next;
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      const long c = cell(i, j);
      for (int k = 0; k < nz; ++k) {
        const long p = c + k;
        const double u = f[U][p], v = f[V][p];
        for (int s = TH; s <= QC; ++s) {
          const double* a = f[s];
          const double a0 = a[p], w = a[p - nz], e = a[p + nz], so = a[p - row], no = a[p + row];
          const double fx = u > 0.0 ? u * (a0 - w) : u * (e - a0);
          const double fy = v > 0.0 ? v * (a0 - so) : v * (no - a0);
          const double below = k > 0 ? a[p - 1] : a0, above = k + 1 < nz ? a[p + 1] : a0;
          const double lap = (w + e + so + no) - 4.0 * a0;
          double value = a0 - dt * (fx + fy) + dt * (nu * lap + nu_z * (below + above - 2.0 * a0));
          if (s != TH && value < 0.0) value = 0.0;
          next[s][p] = value;
        }
        const double* th = f[TH];
        const double lap_u =
            (f[U][p - nz] + f[U][p + nz] + f[U][p - row] + f[U][p + row]) - 4.0 * u;
        const double lap_v =
            (f[V][p - nz] + f[V][p + nz] + f[V][p - row] + f[V][p + row]) - 4.0 * v;
        next[U][p] =
            u + dt * (nu * lap_u - (u - background_u(g.y0 + j - 1, k, ny, nz)) / relax_time -
                      buoyancy * 0.5 * (th[p + nz] - th[p - nz]));
        next[V][p] = v + dt * (nu * lap_v - (v - background_v) / relax_time -
                               buoyancy * 0.5 * (th[p + row] - th[p - row]));
      }
    }
  }
  for (int s = 0; s < fields_count; ++s) {
    double* t = fields->f[s];
    fields->f[s] = fields->next[s];
    fields->next[s] = t;
  }
}

/* ---- column physics ---- */

void physics() {
  const GridModule& g = *grid;
  const Config& c = *config;
  const int nz = c.nz, step = clock_state->step;
  const double dt = clock_state->dt;
  const double progress = (double)step / c.steps;
  /* The storm: develops over the first fifth of the run and drifts slowly north. */
  const double drift = c.storm_drift / 100.0; /* of the domain's depth over the run */
  const double storm_x = c.nx * (0.22 + 0.33 * drift * progress);
  const double storm_y = c.ny * (0.2 + drift * progress);
  const double strength = 0.004 * (progress < 0.2 ? 0.25 + 3.75 * progress : 1.0);
  const double radius2 = (double)c.storm_radius * c.storm_radius;
  const bool radiation = c.radiation_every > 0 && step % c.radiation_every == 0;
  const double sun_x = c.nx * (0.5 * progress - floor(0.5 * progress));
  double* th = fields->f[TH];
  double* qv = fields->f[QV];
  double* qc = fields->f[QC];
  double* u = fields->f[U];
  double* v = fields->f[V];
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      const int gx = g.x0 + i - 1, gy = g.y0 + j - 1;
      const long col = cell(i, j);
      /* Vapour from the storm's source into the lower half of the column. */
      const double ddx = gx - storm_x, ddy = gy - storm_y;
      const double r2 = (ddx * ddx + ddy * ddy) / radius2;
      if (r2 < 9.0) {
        const double source = strength * exp(-r2);
        const int low = nz / 2 > 0 ? nz / 2 : 1;
        for (int k = 0; k < low; ++k) qv[col + k] += dt * source * (1.0 - (double)k / low);
      }
      /* Saturation adjustment, bottom up: saturated levels iterate, and the latent heat they
       * release is carried to the level above (the vertical dependency). */
      double carried = 0.0;
      for (int k = 0; k < nz; ++k) {
        const long p = col + k;
        const double t0 = th[p] + 0.5 * carried;
        carried = 0.0;
        if (qv[p] > qsat(t0, k)) {
          double t = t0, q = qv[p];
          for (int it = 0; it < c.storm_work; ++it) {
            const double qs = qsat(t, k);
            const double d = (q - qs) / (1.0 + latent * 0.06 * qs);
            q -= d;
            t += latent * d;
          }
          qc[p] += qv[p] - q;
          qv[p] = q;
          carried = t - t0;
          th[p] = t;
        } else {
          th[p] = t0;
        }
      }
      /* Fall-out from the top down: what exceeds the threshold falls to the level below. */
      double falling = 0.0;
      for (int k = nz - 1; k >= 0; --k) {
        const long p = col + k;
        qc[p] += falling;
        falling = qc[p] > qc_fall ? 0.5 * (qc[p] - qc_fall) : 0.0;
        qc[p] -= falling;
      }
      fields->rain[(long)(j - 1) * g.lx + (i - 1)] += falling;
      /* Radiation: a pass down the column on radiation steps, more iterations under the sun. */
      if (radiation) {
        double sun = cos(two_pi * (gx - sun_x) / c.nx);
        if (sun < 0.0) sun = 0.0;
        const int passes = 1 + (int)(c.radiation_work * sun);
        double flux = 0.1 + sun;
        for (int k = nz - 1; k >= 0; --k) {
          const long p = col + k;
          const double depth = 0.05 + 20.0 * qc[p];
          double transmitted = 1.0;
          for (int it = 1; it <= passes; ++it)
            transmitted = 0.5 * (transmitted + exp(-depth * it / passes));
          th[p] += dt * 0.5 * flux * (1.0 - transmitted);
          flux *= transmitted;
        }
      }
      for (int k = 0; k < nz; ++k) th[col + k] -= dt * th[col + k] / cooling_time;
      /* Topography: drag on the lowest levels, iterated by height (a static extra cost). */
      if (c.topography > 0) {
        const double h = terrain(gx, gy);
        const int passes = (int)(c.topography * h);
        const int levels = nz < 3 ? nz : 3;
        for (int it = 0; it < passes; ++it) {
          for (int k = 0; k < levels; ++k) {
            u[col + k] *= 1.0 - 1e-4 * h * sqrt(u[col + k] * u[col + k] + v[col + k] * v[col + k]);
            v[col + k] *= 1.0 - 1e-4 * h;
          }
        }
      }
    }
  }
}

/* The largest horizontal wind speed sum of this rank's columns. */
double local_wind() {
  const GridModule& g = *grid;
  const int nz = config->nz;
  const double* u = fields->f[U];
  const double* v = fields->f[V];
  double largest = 0.0;
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      const long col = cell(i, j);
      for (int k = 0; k < nz; ++k) {
        const double s = fabs(u[col + k]) + fabs(v[col + k]);
        if (s > largest) largest = s;
      }
    }
  }
  return largest;
}

void set_time_step() {
  const double wind = cpu_mark();
  const double local = local_wind();
  cpu_since(wind);
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  clock_state->wind_max = global;
  const double dt = global > 0.0 ? cfl / global : dt_max;
  clock_state->dt = dt < dt_max ? dt : dt_max;
}

/* ---- results ---- */

uint64_t local_checksum() {
  const GridModule& g = *grid;
  const Config& c = *config;
  uint64_t sum = 0;
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      const uint64_t column = (uint64_t)(g.y0 + j - 1) * (uint64_t)c.nx + (uint64_t)(g.x0 + i - 1);
      for (int f = 0; f < fields_count; ++f) {
        for (int k = 0; k < c.nz; ++k) {
          uint64_t bits;
          memcpy(&bits, &fields->f[f][cell(i, j) + k], sizeof bits);
          sum += mix(((column * (uint64_t)c.nz + (uint64_t)k) * 8 + (uint64_t)f) ^ mix(bits));
        }
      }
      uint64_t bits;
      memcpy(&bits, &fields->rain[(long)(j - 1) * g.lx + (i - 1)], sizeof bits);
      sum += mix((column * 8 + 7) ^ mix(bits ^ 0x5bd1e995ull));
    }
  }
  return sum;
}

double local_max(int f) {
  const GridModule& g = *grid;
  double largest = 0.0;
  for (int j = 1; j <= g.ly; ++j) {
    for (int i = 1; i <= g.lx; ++i) {
      for (int k = 0; k < config->nz; ++k) {
        const double value = fields->f[f][cell(i, j) + k];
        if (value > largest) largest = value;
      }
    }
  }
  return largest;
}

int write_step_log(const char* path) {
  FILE* out = fopen(path, "w");
  if (out == NULL) {
    fprintf(stderr, "brams: --step-log '%s': cannot open it for writing\n", path);
    return 0;
  }
  fprintf(out, "step,seconds,migrate_seconds\n");
  for (int s = 0; s < config->steps; ++s) {
    fprintf(out, "%d,%.9f,%.9f\n", s + 1, clock_state->step_seconds[s],
            clock_state->migrate_seconds[s]);
  }
  const int failed = ferror(out);
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "brams: --step-log '%s': writing failed\n", path);
    return 0;
  }
  return 1;
}

/* Rank r's block, as decompose() gives it to rank r. */
void block_of(int r, int* x0, int* y0, int* lx, int* ly) {
  const GridModule& g = *grid;
  const int bx = r % g.px, by = r / g.px;
  *x0 = range_start(config->nx, g.px, bx);
  *y0 = range_start(config->ny, g.py, by);
  *lx = range_start(config->nx, g.px, bx + 1) - *x0;
  *ly = range_start(config->ny, g.py, by + 1) - *y0;
}

void write_numbers(FILE* out, const double* values, long n, long stride) {
  for (long r = 0; r < n; ++r) fprintf(out, "%s%.17g", r ? ", " : "", values[r * stride]);
}

/* --record: a vela-lb trace (docs/trace-format.md) of the ranks' measured compute (CPU) time per
 * step, their places in the rank grid as coordinates, the halo messages as edges, and the ranks
 * placed in blocks of the rank grid over --record-pes PEs: what `vela-lb replay` runs at scale. */
int write_trace(const char* path, const double* loads) {
  const GridModule& g = *grid;
  const Config& c = *config;
  FILE* out = fopen(path, "w");
  if (out == NULL) {
    fprintf(stderr, "brams: --record '%s': cannot open it for writing\n", path);
    return 0;
  }
  const int pes = c.record_pes;
  int qx = 1, qy = 1;
  brams_rank_grid(pes, &qx, &qy);
  fprintf(out,
          "{\"format\": \"vela-trace\", \"version\": 1,\n\"initial\": {\"format\": "
          "\"vela-instance\", \"version\": 1, \"dims\": 2,\n\"pes\": {\"speed\": [");
  for (int p = 0; p < pes; ++p) fprintf(out, "%s1", p ? ", " : "");
  fprintf(out, "], \"background\": [");
  for (int p = 0; p < pes; ++p) fprintf(out, "%s0", p ? ", " : "");
  fprintf(out, "], \"cluster\": [");
  for (int p = 0; p < pes; ++p) fprintf(out, "%s0", p ? ", " : "");
  fprintf(out, "]},\n\"objects\": {\"id\": [");
  for (int r = 0; r < g.size; ++r) fprintf(out, "%s%d", r ? ", " : "", r);
  fprintf(out, "],\n\"load\": [");
  write_numbers(out, loads, g.size, c.steps);
  fprintf(out, "],\n\"size\": [");
  for (int r = 0; r < g.size; ++r) {
    int x0, y0, lx, ly;
    block_of(r, &x0, &y0, &lx, &ly);
    const long bytes = (long)(lx + 2) * (ly + 2) * c.nz * fields_count * 2 * 8 + (long)lx * ly * 8;
    fprintf(out, "%s%ld", r ? ", " : "", bytes);
  }
  fprintf(out, "],\n\"pe\": [");
  for (int r = 0; r < g.size; ++r) {
    /* Blocks of the rank grid per PE, the PEs themselves in a grid closest to square. */
    const int bx = r % g.px, by = r / g.px;
    const int pe = (int)((long)by * qy / g.py) * qx + (int)((long)bx * qx / g.px);
    fprintf(out, "%s%d", r ? ", " : "", pe < pes ? pe : pes - 1);
  }
  fprintf(out, "],\n\"migratable\": [");
  for (int r = 0; r < g.size; ++r) fprintf(out, "%strue", r ? ", " : "");
  /* Coordinates: the rank's place in the rank grid, as the runtime gives the geometric
   * strategies (the ranks' collection is that grid), so that a replay or simulation of this
   * trace balances as the run did. */
  for (int axis = 0; axis < 2; ++axis) {
    fprintf(out, "],\n\"%s\": [", axis == 0 ? "x" : "y");
    for (int r = 0; r < g.size; ++r) {
      fprintf(out, "%s%d", r ? ", " : "", axis == 0 ? r % g.px : r / g.px);
    }
  }
  /* Edges: each rank's halo message to each neighbour, every step. */
  fprintf(out, "]},\n\"edges\": {");
  const char* columns[4] = {"from", "to", "messages", "bytes"};
  for (int column = 0; column < 4; ++column) {
    fprintf(out, "%s\"%s\": [", column ? "], " : "", columns[column]);
    bool first = true;
    for (int r = 0; r < g.size; ++r) {
      const int bx = r % g.px, by = r / g.px;
      int x0, y0, lx, ly;
      block_of(r, &x0, &y0, &lx, &ly);
      const int to[4] = {bx > 0 ? r - 1 : -1, bx + 1 < g.px ? r + 1 : -1, by > 0 ? r - g.px : -1,
                         by + 1 < g.py ? r + g.px : -1};
      for (int s = 0; s < 4; ++s) {
        if (to[s] < 0) continue;
        const long bytes = (long)(s < 2 ? ly : lx) * c.nz * fields_count * 8;
        const long value = column == 0 ? r : column == 1 ? to[s] : column == 2 ? 1 : bytes;
        fprintf(out, "%s%ld", first ? "" : ", ", value);
        first = false;
      }
    }
  }
  fprintf(out, "]}},\n\"steps\": [\n");
  for (int step = 0; step < c.steps; ++step) {
    fprintf(out, "{\"loads\": [");
    write_numbers(out, loads + step, g.size, c.steps);
    fprintf(out, "]}%s\n", step + 1 < c.steps ? "," : "");
  }
  fprintf(out, "]}\n");
  const int failed = ferror(out);
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "brams: --record '%s': writing failed\n", path);
    return 0;
  }
  return 1;
}

/* --output: every rank's block goes to rank 0 (five fields level by level, then the rain),
 * which assembles the domain and writes it as netCDF. Collective; false on rank 0 when the
 * file could not be written (the message printed). */
int write_output(const char* path) {
  const GridModule& g = *grid;
  const Config& c = *config;
  const long plane = (long)c.nx * c.ny;
  const long block = (long)g.lx * g.ly;
  const size_t layers = (size_t)(fields_count * c.nz + 1);
  double* mine = doubles(layers * (size_t)block, "--output");
  double* b = mine;
  for (int f = 0; f < fields_count; ++f) {
    const double* a = fields->f[f];
    for (int k = 0; k < c.nz; ++k) {
      for (int j = 1; j <= g.ly; ++j) {
        for (int i = 1; i <= g.lx; ++i) *b++ = a[cell(i, j) + k];
      }
    }
  }
  memcpy(b, fields->rain, (size_t)block * sizeof(double));
  int ok = 1;
  if (g.rank != 0) {
    MPI_Send(mine, message_count(layers * (size_t)block, "--output"), MPI_DOUBLE, 0, 77,
             MPI_COMM_WORLD);
  } else {
    double* all = doubles(layers * (size_t)plane, "--output");
    for (int r = 0; r < g.size; ++r) {
      int x0, y0, lx, ly;
      block_of(r, &x0, &y0, &lx, &ly);
      const long n = (long)lx * ly;
      double* from = mine;
      if (r != 0) {
        from = doubles(layers * (size_t)n, "--output");
        MPI_Recv(from, message_count(layers * (size_t)n, "--output"), MPI_DOUBLE, r, 77,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (long layer = 0; layer < (long)layers; ++layer) {
        for (int j = 0; j < ly; ++j) {
          memcpy(all + layer * plane + (long)(y0 + j) * c.nx + x0, from + layer * n + (long)j * lx,
                 (size_t)lx * sizeof(double));
        }
      }
      if (r != 0) free(from);
    }
    const long field = plane * c.nz;
    BramsOutput out = {c.nx,
                       c.ny,
                       c.nz,
                       c.steps,
                       g.size,
                       all,
                       all + field,
                       all + 2 * field,
                       all + 3 * field,
                       all + 4 * field,
                       all + 5 * field};
    char error[1400];
    if (!brams_write_netcdf(path, out, error, sizeof error)) {
      fprintf(stderr, "brams: %s\n", error);
      ok = 0;
    }
    free(all);
  }
  free(mine);
  return ok;
}

}  // namespace

#ifdef BRAMS_PRIVATIZE_COPY
/* The copy-in/copy-out method copies registered globals at every switch: these are the
 * model's module variables (register before the ranks start, forget after). */
void brams_globals_copy(bool enable) {
  if (enable) {
    vela::vp::register_global(config);
    vela::vp::register_global(grid);
    vela::vp::register_global(fields);
    vela::vp::register_global(clock_state);
  } else {
    vela::vp::unregister_globals();
  }
}
#endif

/* --explicit-moves N (seed 000's Table 4.2): at the first balancing point the N busiest ranks of
 * the busiest PE move by hand (MPI_Migrate_to_pe), each to the PE least loaded then, as the seed
 * moved the storm's threads off its processor; a balancer (--lb), if any, decides the rest. Rank
 * 0 decides from every rank's compute time so far and PE, and prints the moves. Under Vela only:
 * plain MPI has no PEs to move to. O(size * N) at rank 0, one gather and one broadcast. */
static void explicit_moves(int rank, int size) {
#ifdef VELA_MPI
  const double mine[2] = {clock_state->busy, (double)MPI_My_pe()};
  double* all = doubles(2 * (size_t)size, "--explicit-moves");
  MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int* to = (int*)malloc(sizeof(int) * (size_t)size);
  const int pes = MPI_Num_pes();
  double* load = doubles((size_t)pes, "--explicit-moves");
  if (to == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int r = 0; r < size; ++r) to[r] = -1;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) load[(int)all[2 * r + 1]] += all[2 * r];
    int busiest = 0;
    for (int p = 1; p < pes; ++p) busiest = load[p] > load[busiest] ? p : busiest;
    printf("explicit moves:");
    for (int k = 0; k < config->explicit_moves; ++k) {
      int pick = -1;
      for (int r = 0; r < size; ++r) {
        if ((int)all[2 * r + 1] == busiest && to[r] < 0 && (pick < 0 || all[2 * r] > all[2 * pick]))
          pick = r;
      }
      int least = 0;
      for (int p = 1; p < pes; ++p) least = load[p] < load[least] ? p : least;
      if (pick < 0 || least == busiest) break;
      to[pick] = least;
      load[busiest] -= all[2 * pick];
      load[least] += all[2 * pick];
      printf(" rank %d (PE %d -> %d)", pick, busiest, least);
    }
    printf("\n");
  }
  MPI_Bcast(to, size, MPI_INT, 0, MPI_COMM_WORLD);
  if (to[rank] >= 0) MPI_Migrate_to_pe(to[rank]);
  free(load);
  free(to);
  free(all);
#else
  if (rank == 0 && size > 0) printf("explicit moves: none (plain MPI has no PEs to move to)\n");
#endif
}

/* Every rank finds the same bad option and rank 0 says what it is: the barrier makes sure it
 * has said so before some rank's MPI_Abort ends the run. */
static void abort_after_rank0_spoke() {
  fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int BRAMS_ENTRY(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!parse(argc, argv, rank) || !decompose(rank, size)) abort_after_rank0_spoke();
  if (config->output[0] != '\0' && !brams_netcdf_available()) {
    if (rank == 0) {
      fprintf(stderr,
              "brams: --output '%s': this build has no netCDF (install libnetcdf-dev and "
              "rebuild)\n",
              config->output);
    }
    abort_after_rank0_spoke();
  }
  allocate();
  set_time_step();

  MPI_Barrier(MPI_COMM_WORLD);
  const double begin = MPI_Wtime();
  double migrate_total = 0.0;
  int migrate_calls = 0;
  /* Rank 0 draws the progress line (when stderr is a terminal and without --quiet). */
  vela::progress::Reporter progress({"brams", "steps", (uint64_t)config->steps},
                                    config->quiet != 0 || rank != 0);
  for (int step = 1; step <= config->steps; ++step) {
    const double start = MPI_Wtime();
    clock_state->step = step;
    clock_state->cpu = 0.0;
    exchange();
    const double compute = cpu_mark();
    const double busy_from = MPI_Wtime();
    dynamics();
    physics();
    clock_state->busy += MPI_Wtime() - busy_from;
    cpu_since(compute);
    set_time_step();
    if (clock_state->loads != NULL) clock_state->loads[step - 1] = clock_state->cpu;
    const double end = MPI_Wtime();
    if (rank == 0) clock_state->step_seconds[step - 1] = end - start;
    if (config->lb_every > 0 && step % config->lb_every == 0 && step < config->steps) {
      if (config->explicit_moves > 0 && migrate_calls == 0) explicit_moves(rank, size);
      MPI_Migrate();
      const double after = MPI_Wtime();
      ++migrate_calls;
      migrate_total += after - end;
      if (rank == 0) clock_state->migrate_seconds[step - 1] = after - end;
    }
    progress.set((uint64_t)step);
  }
  progress.finish();
  const uint64_t local_sum = local_checksum();
  uint64_t sum = 0;
  MPI_Reduce(&local_sum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  const double local[2] = {local_max(QC), local_max(TH)};
  double largest[2] = {0.0, 0.0};
  MPI_Reduce(local, largest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double* all_loads = NULL;
  if (config->record[0] != '\0') {
    if (rank == 0) all_loads = doubles((size_t)size * (size_t)config->steps, "--record");
    MPI_Gather(clock_state->loads, config->steps, MPI_DOUBLE, all_loads, config->steps, MPI_DOUBLE,
               0, MPI_COMM_WORLD);
  }
  const int written = config->output[0] != '\0' ? write_output(config->output) : 1;
  const double end = MPI_Wtime();
  int code = written ? 0 : 1;
  if (rank == 0) {
    const Config& c = *config;
    printf("brams: %d x %d columns x %d levels, %d steps, %d ranks (%d x %d blocks)\n", c.nx, c.ny,
           c.nz, c.steps, size, grid->px, grid->py);
    printf("checksum: %016llx\n", (unsigned long long)sum);
    printf("max qc: %.6e  max th: %.6e  last dt: %.6e\n", largest[0], largest[1], clock_state->dt);
    printf("time: %.6f\n", end - begin);
    printf("step: %.6f\n", (end - begin) / c.steps);
    printf("migrate: %d calls, %.6f s\n", migrate_calls, migrate_total);
    fflush(stdout);
    if (c.step_log[0] != '\0' && !write_step_log(c.step_log)) code = 1;
    if (c.record[0] != '\0' && !write_trace(c.record, all_loads)) code = 1;
  }
  free(all_loads);
  release();
  MPI_Finalize();
  return code;
}

#ifdef BRAMS_STANDALONE
int main(int argc, char** argv) {
  return brams_model(argc, argv);
}
#endif
