// Seeded synthetic load traces: a BRAMS-like grid (generate_brams) whose loads change from step
// to step. Four effects, each off unless asked for except the storm, compose in one generator:
//
//   load(o, t) = base(o) * storms(t, x_o, y_o) * drift(o, t) * radiation(t)
//
// where t = 0 is the trace's initial instance and t = s + 1 is step s; base(o) is the object's
// base load with its noise (drawn once); storms(t, x, y) multiplies the raised-cosine factors of
// Storm (generate.hpp) centred where each storm is at time t; drift(o, t) is a random walk of
// the drifting objects; radiation(t) is `factor` on spike steps and 1 elsewhere. Objects may be
// created and deleted (Churn). Like the instance generators, the trace is a pure function of the
// options: the same options (seed included) give a bit-for-bit identical trace, using
// std::mt19937_64 and Vela's own distributions (src/lb/generate/random.hpp), never std:: ones. Bad
// options throw std::invalid_argument naming "trace", the option and what was expected; so do
// options whose trace would hold more than max_trace_loads loads ((steps + 1) nx ny plus the
// created objects' loads, counted before anything is made) or more than max_trace_pes PEs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/trace/trace.hpp"

namespace vela::lb {

// A storm moving in a straight line: at time t its centre is (start.cx + t vx, start.cy + t vy);
// its radius and factor stay those of `start`. A storm may leave the grid.
struct MovingStorm {
  Storm start;      // where it is in the initial instance (t = 0)
  double vx = 0.0;  // grid units per step
  double vy = 0.0;
};

// default_storm(nx, ny) drifting along +x so that its centre travels 0.4 nx over `steps` steps
// (Rodrigues' storm moves slowly across the domain); at rest when steps is 0.
MovingStorm default_moving_storm(std::int64_t nx, std::int64_t ny, std::int64_t steps);

// Radiation (Rodrigues, Fig. 4.3: a peak every 100 steps): every load times `factor` on the steps
// at times t >= 1 with t % period == offset, i.e. steps s = offset - 1 + k period (offset 0: steps
// period - 1, 2 period - 1, ...); 1 on every other step and in the initial instance.
struct RadiationSpikes {
  std::int64_t period = 0;  // 0: no radiation; else >= 1
  std::int64_t offset = 0;  // 0 .. period - 1
  double factor = 2.0;      // > 0
};

// Drift (Pearce §5.2: about half the work units change by up to 5% per step): each object is a
// drifting one with probability `fraction`, decided once when it appears; a drifting object's
// drift factor (1 when it appears) is multiplied at every later step by 1 + rate u, u uniform in
// [-1, 1). Without other effects its load thus changes by at most `rate` per step, relatively.
struct Drift {
  double fraction = 0.0;  // in [0, 1]
  double rate = 0.05;     // in [0, 1)
};

// Where created objects appear: anywhere on the grid (uniform), or in a storm (a point uniform
// in the disc of a storm picked uniformly, at its position at that time, clamped to the grid).
enum class Appear { uniform, storm };

// Objects created and deleted (Pearce's ParaDiS: elements come and go). At time t,
// floor(t r) - floor((t - 1) r) objects are created for a rate r, so r = 0.25 creates one every
// 4 steps and r = 3 three per step; deletions likewise (at most all alive objects). Deleted
// objects are drawn uniformly among those alive before the step. A created object gets the next
// unused id (nx * ny, nx * ny + 1, ...), a continuous position, the PE that owns that grid cell
// under the initial 2-D block placement, the grid's object size, and no edges.
struct Churn {
  double created_per_step = 0.0;  // finite, >= 0
  double deleted_per_step = 0.0;  // finite, >= 0
  Appear where = Appear::uniform;
};

struct TraceOptions {
  // The grid, as in BramsOptions: objects at (x = i, y = j), halo edges, 2-D block placement,
  // base load with relative noise. Its storms are the moving ones below.
  std::int64_t nx = 32;
  std::int64_t ny = 32;
  PeId pes = 64;
  std::uint64_t seed = 1;
  double base_load = 1.0;
  double noise = 0.05;
  std::int64_t block_side = 8;
  std::int64_t levels = 32;
  std::int64_t fields = 8;
  std::optional<std::uint64_t> halo_bytes{};    // unset: as in BramsOptions
  std::optional<std::uint64_t> object_bytes{};  // unset: as in BramsOptions

  std::int64_t steps = 2400;  // >= 0 (Rodrigues' 4-hour forecast is 2,400 steps)
  // Unset: one default_moving_storm(nx, ny, steps). Empty: no storm.
  std::optional<std::vector<MovingStorm>> storms{};
  RadiationSpikes radiation{};
  Drift drift{};
  Churn churn{};
};

// The trace described above: initial instance at t = 0 plus options.steps steps; no step
// replaces the edges (the halo edges of deleted objects go with them). `after_step`, when set,
// is called after each step is made with the number made so far (vela-lb's progress line).
Trace generate_trace(const TraceOptions& options,
                     const std::function<void(std::int64_t steps_done)>& after_step = {});

}  // namespace vela::lb
