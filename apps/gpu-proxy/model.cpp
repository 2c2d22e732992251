/* The GPU proxy (seed 004): a plain MPI program in the shape of a GPU-accelerated
 * weather model, run on Vela's ranks.
 *
 * --nx x --ny columns of --nz levels, --fields fields, split over the ranks in a 2-D grid of
 * blocks (sizes differ by at most one column), halo width 1. Per step: halo exchange of every
 * field with the four neighbours -> a damped Jacobi update of each field (the dynamics) ->
 * column physics, a sweep up each column whose trip count is multiplied by C(i, j) = 2 in a
 * heavy region (--load: moving across the domain, fixed, or none) -> MPI_Allreduce of the
 * Jacobi residual. MPI_Migrate() every --lb-every steps.
 *
 * The kernels run on the back end of --backend (backend.hpp). As in the seed, a rank waits
 * for its kernels synchronously in the --measure-steps steps before each MPI_Migrate(), so
 * that their time is measured as the rank's load; in the other steps it launches them and
 * yields (MPI_Yield) until its stream is done, so the ranks sharing a device overlap.
 *
 * Built with -DGPU_PROXY_STANDALONE it is an ordinary Open MPI program that prints the same
 * checksum for the same --ranks. The checksum hashes every value's bits with its position
 * (summed modulo 2^64, so the reduction's order does not matter): equal checksums mean equal
 * fields whatever the ranks, PEs, balancer, migrations and back end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#ifdef GPU_PROXY_STANDALONE
#define OMPI_SKIP_MPICXX 1 /* the C API only: no C++ bindings (and their warnings) */
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#define MPI_Migrate() ((void)0) /* plain MPI has no balancing point */
#define MPI_Yield() ((void)0)   /* nor other ranks in the process to run */
#else
#define VELA_MPI_NO_MAIN
#include <vela/mpi.h>
#endif

#include "backend.hpp"
#include "model.hpp"
#include "options.hpp"

namespace {

using gpu_proxy::Backend;
using gpu_proxy::Block;
using gpu_proxy::Region;

enum class Load { moving, fixed, none };
enum class Launch { measured, sync, async };

struct Config {
  int nx, ny, nz, fields, steps, lb_every, measure_steps, physics_work;
  bool cuda;
  Load load;
  Launch launch;
  std::string step_log;
};

int* int_target(Config& c, int index) {
  int* targets[] = {
      &c.nx, &c.ny, &c.nz, &c.fields, &c.steps, &c.lb_every, &c.measure_steps, &c.physics_work};
  return targets[index];
}

/* Parses the options of options.hpp (main.cpp has already checked them when it runs the
 * ranks; the Open MPI build has only this). */
bool parse(int argc, char** argv, Config& c, std::string& error) {
  const int int_count = sizeof gpu_proxy::int_options / sizeof gpu_proxy::int_options[0];
  for (int o = 0; o < int_count; ++o) *int_target(c, o) = gpu_proxy::int_options[o].fallback;
  int choice[3] = {0, 0, 0};
  c.step_log.clear();
  for (int a = 1; a < argc; ++a) {
    const char* name = argv[a];
    if (a + 1 >= argc) {
      error = std::string("'") + name + "': expected an option followed by its value";
      return false;
    }
    const char* value = argv[++a];
    bool known = false;
    for (int o = 0; o < int_count && !known; ++o) {
      const gpu_proxy::IntOption& option = gpu_proxy::int_options[o];
      if (strcmp(name, option.name) != 0) continue;
      known = true;
      char* end = nullptr;
      const long v = strtol(value, &end, 10);
      if (*value == '\0' || *end != '\0' || v < option.min || v > option.max) {
        error = std::string(option.name) + " '" + value + "': expected an integer from " +
                std::to_string(option.min) + " to " + std::to_string(option.max);
        return false;
      }
      *int_target(c, o) = static_cast<int>(v);
    }
    for (int o = 0; o < 3 && !known; ++o) {
      const gpu_proxy::ChoiceOption& option = gpu_proxy::choice_options[o];
      if (strcmp(name, option.name) != 0) continue;
      known = true;
      int found = -1;
      std::string expected;
      for (int v = 0; v < option.count; ++v) {
        if (strcmp(value, option.values[v]) == 0) found = v;
        expected += std::string(v == 0                  ? ""
                                : v + 1 == option.count ? " or "
                                                        : ", ") +
                    option.values[v];
      }
      if (found < 0) {
        error = std::string(option.name) + " '" + value + "': expected " + expected;
        return false;
      }
      choice[o] = found;
    }
    if (!known && strcmp(name, gpu_proxy::step_log_option) == 0) {
      known = true;
      c.step_log = value;
    }
    if (!known) {
      error = std::string("unknown option '") + name +
              "' (expected --nx, --ny, --nz, --fields, --steps, --lb-every, --measure-steps, "
              "--physics-work, --backend, --load, --launch or --step-log, each with a value)";
      return false;
    }
  }
  c.cuda = choice[0] == 1;
  c.load = static_cast<Load>(choice[1]);
  c.launch = static_cast<Launch>(choice[2]);
  return true;
}

int range_start(int cells, int blocks, int b) {
  return static_cast<int>(static_cast<int64_t>(cells) * b / blocks);
}

/* The heavy region of a step. moving: a square of half the domain's sides that starts in the
 * lower left corner and reaches the upper right one at the last step, so the heavy columns
 * cross the blocks of many ranks; fixed: the left half of the columns (the left half of the
 * rank grid, which the runtime's block placement of the grid puts on the first PEs, as the
 * seed's node 0 held the heavy load). */
Region heavy_region(const Config& c, int step) {
  switch (c.load) {
    case Load::none:
      return {0, 0, 0, 0};
    case Load::fixed:
      return {0, c.nx / 2, 0, c.ny};
    default: {
      const int hx = c.nx / 2 > 0 ? c.nx / 2 : 1, hy = c.ny / 2 > 0 ? c.ny / 2 : 1;
      const long span = c.steps > 1 ? c.steps - 1 : 1;
      const int ox = static_cast<int>(static_cast<long>(c.nx - hx) * (step - 1) / span);
      const int oy = static_cast<int>(static_cast<long>(c.ny - hy) * (step - 1) / span);
      return {ox, ox + hx, oy, oy + hy};
    }
  }
}

/* Whether `step` waits for its kernels synchronously: with --launch measured, the
 * --measure-steps steps just before an MPI_Migrate() (the balancer sees the loads of the
 * period, and these are the steps whose kernel time lands in them). */
bool synchronous_step(const Config& c, int step) {
  if (c.launch != Launch::measured) return c.launch == Launch::sync;
  if (c.lb_every == 0) return false;
  const long next = (static_cast<long>(step) + c.lb_every - 1) / c.lb_every * c.lb_every;
  return next < c.steps && next - step < c.measure_steps;
}

void yield_rank() {
  MPI_Yield();
}

/* The halo exchange of every field: the back end copies the edges out (waiting as the step
 * does), the messages go, the back end copies the halos in (queued before the step's kernels). */
void exchange(Backend& backend, const Block& b, const int neighbour[4], bool synchronous) {
  MPI_Request requests[8];
  int n = 0;
  for (int s = 0; s < 4; ++s) {
    if (neighbour[s] != MPI_PROC_NULL) backend.pack(s);
  }
  backend.finish(synchronous, &yield_rank);
  for (int s = 0; s < 4; ++s) {
    if (neighbour[s] == MPI_PROC_NULL) continue;
    const int count = gpu_proxy::side_columns(b, s) * b.nz * b.fields;
    /* Tag: the side as the receiver sees it (my left edge is my left neighbour's right halo). */
    MPI_Irecv(backend.receive_buffer(s), count, MPI_DOUBLE, neighbour[s], s, MPI_COMM_WORLD,
              &requests[n++]);
    MPI_Isend(backend.send_buffer(s), count, MPI_DOUBLE, neighbour[s], s ^ 1, MPI_COMM_WORLD,
              &requests[n++]);
  }
  MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  for (int s = 0; s < 4; ++s) {
    if (neighbour[s] != MPI_PROC_NULL) backend.unpack(s);
  }
}

uint64_t local_checksum(Backend& backend, const Block& b) {
  std::vector<double> all(static_cast<size_t>(b.cells()) * b.fields);
  backend.read(all.data());
  uint64_t sum = 0;
  for (int f = 0; f < b.fields; ++f) {
    const double* a = all.data() + f * b.cells();
    for (int j = 1; j <= b.ly; ++j) {
      for (int i = 1; i <= b.lx; ++i) {
        const uint64_t column =
            static_cast<uint64_t>(b.y0 + j - 1) * b.nx + static_cast<uint64_t>(b.x0 + i - 1);
        for (int k = 0; k < b.nz; ++k) {
          uint64_t bits;
          memcpy(&bits, &a[b.cell(i, j) + k], sizeof bits);
          const uint64_t position = (column * b.nz + k) * gpu_proxy::max_fields + f;
          sum += gpu_proxy::mix(position ^ gpu_proxy::mix(bits));
        }
      }
    }
  }
  return sum;
}

struct Interval {
  int first, last;
  double seconds;
};

bool write_step_log(const Config& c, const std::vector<double>& seconds,
                    const std::vector<char>& synchronous, const std::vector<double>& migrate) {
  FILE* out = fopen(c.step_log.c_str(), "w");
  if (out == nullptr) {
    fprintf(stderr, "gpu-proxy: --step-log '%s': cannot open it for writing\n", c.step_log.c_str());
    return false;
  }
  fprintf(out, "step,seconds,mode,migrate_seconds\n");
  for (int s = 0; s < c.steps; ++s) {
    fprintf(out, "%d,%.9f,%s,%.9f\n", s + 1, seconds[s], synchronous[s] ? "sync" : "async",
            migrate[s]);
  }
  const int failed = ferror(out);
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "gpu-proxy: --step-log '%s': writing failed\n", c.step_log.c_str());
    return false;
  }
  return true;
}

int run(const Config& c, int rank, int size) {
  int px = 1, py = 1;
  gpu_proxy_rank_grid(size, &px, &py);
  if (px > c.nx || py > c.ny) {
    if (rank == 0) {
      fprintf(stderr,
              "gpu-proxy: %d ranks make a %d x %d grid of blocks, more than the %d x %d columns "
              "(--nx, --ny): every rank needs at least one column\n",
              size, px, py, c.nx, c.ny);
    }
    return 1;
  }
  if (c.cuda) {
    const std::string why = gpu_proxy::cuda_unavailable();
    if (!why.empty()) {
      if (rank == 0) fprintf(stderr, "gpu-proxy: --backend cuda: %s\n", why.c_str());
      return 1;
    }
  }
  const int bx = rank % px, by = rank / px;
  Block b{};
  b.nx = c.nx;
  b.ny = c.ny;
  b.nz = c.nz;
  b.fields = c.fields;
  b.x0 = range_start(c.nx, px, bx);
  b.y0 = range_start(c.ny, py, by);
  b.lx = range_start(c.nx, px, bx + 1) - b.x0;
  b.ly = range_start(c.ny, py, by + 1) - b.y0;
  int neighbour[4];
  neighbour[gpu_proxy::left] = bx > 0 ? rank - 1 : MPI_PROC_NULL;
  neighbour[gpu_proxy::right] = bx + 1 < px ? rank + 1 : MPI_PROC_NULL;
  neighbour[gpu_proxy::down] = by > 0 ? rank - px : MPI_PROC_NULL;
  neighbour[gpu_proxy::up] = by + 1 < py ? rank + px : MPI_PROC_NULL;

  std::unique_ptr<Backend> backend;
  {
    /* Every cell, halo included: outside the domain the halo keeps these boundary values. */
    std::vector<double> initial(static_cast<size_t>(b.cells()) * b.fields);
    for (int f = 0; f < b.fields; ++f) {
      for (int j = 0; j <= b.ly + 1; ++j) {
        for (int i = 0; i <= b.lx + 1; ++i) {
          for (int k = 0; k < b.nz; ++k) {
            initial[f * b.cells() + b.cell(i, j) + k] =
                gpu_proxy::initial_value(f, b.x0 + i - 1, b.y0 + j - 1, k, c.nx, c.nz);
          }
        }
      }
    }
    backend = c.cuda ? gpu_proxy::make_cuda_backend(b, initial.data(), rank)
                     : gpu_proxy::make_cpu_backend(b, initial.data());
  }

  std::vector<double> step_seconds(c.steps), migrate_seconds(c.steps);
  std::vector<char> synchronous(c.steps);
  std::vector<Interval> intervals;
  double residual = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double begin = MPI_Wtime();
  double interval_begin = begin, migrate_total = 0.0;
  int interval_first = 1, migrate_calls = 0;
  for (int step = 1; step <= c.steps; ++step) {
    const double start = MPI_Wtime();
    const bool sync = synchronous_step(c, step);
    exchange(*backend, b, neighbour, sync);
    backend->step(heavy_region(c, step), c.physics_work);
    backend->finish(sync, &yield_rank);
    const double local = backend->residual();
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double end = MPI_Wtime();
    step_seconds[step - 1] = end - start;
    synchronous[step - 1] = sync;
    if (c.lb_every > 0 && step % c.lb_every == 0 && step < c.steps) {
      intervals.push_back({interval_first, step, end - interval_begin});
      MPI_Migrate();
      const double after = MPI_Wtime();
      migrate_seconds[step - 1] = after - end;
      migrate_total += after - end;
      ++migrate_calls;
      interval_begin = after;
      interval_first = step + 1;
    }
  }
  const double end = MPI_Wtime();
  intervals.push_back({interval_first, c.steps, end - interval_begin});

  const uint64_t local_sum = local_checksum(*backend, b);
  uint64_t sum = 0;
  MPI_Reduce(&local_sum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  static const char* const loads[] = {"moving", "fixed", "no"};
  printf(
      "gpu-proxy: %d x %d columns x %d levels, %d fields, %d steps, %d ranks (%d x %d blocks), "
      "%s back end, %s load\n",
      c.nx, c.ny, c.nz, c.fields, c.steps, size, px, py, c.cuda ? "cuda" : "cpu",
      loads[static_cast<int>(c.load)]);
  printf("checksum: %016llx\n", static_cast<unsigned long long>(sum));
  printf("residual: %.6e\n", residual);
  printf("time: %.6f\n", end - begin);
  printf("step: %.6f\n", (end - begin) / c.steps);
  for (const bool mode : {true, false}) {
    int count = 0;
    double total = 0.0;
    for (int s = 0; s < c.steps; ++s) {
      if (static_cast<bool>(synchronous[s]) != mode) continue;
      ++count;
      total += step_seconds[s];
    }
    printf("%s steps: %d, %.6f s per step\n", mode ? "sync" : "async", count,
           count > 0 ? total / count : 0.0);
  }
  for (const Interval& i : intervals) printf("steps %d-%d: %.6f s\n", i.first, i.last, i.seconds);
  printf("migrate: %d calls, %.6f s\n", migrate_calls, migrate_total);
  fflush(stdout);
  if (!c.step_log.empty() && !write_step_log(c, step_seconds, synchronous, migrate_seconds)) {
    return 1;
  }
  return 0;
}

}  // namespace

int gpu_proxy_model(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Config config;
  std::string error;
  if (!parse(argc, argv, config, error)) {
    if (rank == 0) fprintf(stderr, "gpu-proxy: %s\n", error.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int code = 1;
  try {
    code = run(config, rank, size);
  } catch (const std::exception& e) {
    fprintf(stderr, "gpu-proxy: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Every rank meets the same conditions before the loop, so all fail together or none. */
  MPI_Finalize();
  return code;
}

#ifdef GPU_PROXY_STANDALONE
int main(int argc, char** argv) {
  return gpu_proxy_model(argc, argv);
}
#endif
