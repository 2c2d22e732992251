// Seeded load traces (vela/lb/trace/generate.hpp): a moving storm, radiation spikes, drift and
// churn over the grid of generate_brams.
#include "vela/lb/trace/generate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "generate/checks.hpp"
#include "generate/layout.hpp"
#include "generate/random.hpp"

namespace vela::lb {

using namespace generate_detail;

namespace {

constexpr const char* kind = "trace";

void require_finite(const std::string& option, double value) {
  if (!std::isfinite(value)) reject(kind, option, "a finite number", show(value));
}

void check(const TraceOptions& o) {
  require_grid(kind, o.nx, o.ny);
  require_at_least(kind, "pes", o.pes, 1);
  require_positive(kind, "base_load", o.base_load);
  require_noise(kind, o.noise);
  require_at_least(kind, "steps", o.steps, 0);
  require_between(kind, "pes", o.pes, 1, max_trace_pes);
  if (o.storms) {
    for (std::size_t s = 0; s < o.storms->size(); ++s) {
      const MovingStorm& storm = (*o.storms)[s];
      const std::string name = "storm " + std::to_string(s) + " ";
      require_finite(name + "cx", storm.start.cx);
      require_finite(name + "cy", storm.start.cy);
      require_positive(kind, (name + "radius").c_str(), storm.start.radius);
      require_positive(kind, (name + "factor").c_str(), storm.start.factor);
      require_finite(name + "vx", storm.vx);
      require_finite(name + "vy", storm.vy);
    }
  }
  const RadiationSpikes& r = o.radiation;
  require_at_least(kind, "radiation.period", r.period, 0);
  if (r.period > 0) require_between(kind, "radiation.offset", r.offset, 0, r.period - 1);
  require_positive(kind, "radiation.factor", r.factor);
  if (!(o.drift.fraction >= 0.0 && o.drift.fraction <= 1.0)) {
    reject(kind, "drift.fraction", "in [0, 1]", show(o.drift.fraction));
  }
  if (!(o.drift.rate >= 0.0 && o.drift.rate < 1.0)) {
    reject(kind, "drift.rate", "in [0, 1)", show(o.drift.rate));
  }
  require_non_negative(kind, "churn.created_per_step", o.churn.created_per_step);
  require_non_negative(kind, "churn.deleted_per_step", o.churn.deleted_per_step);
  if (o.churn.where == Appear::storm && o.churn.created_per_step > 0.0 && o.storms &&
      o.storms->empty()) {
    reject(kind, "churn.where", "uniform when there is no storm", "storm");
  }
  // The objects alive at time t are at most nx ny + r t for a creation rate r: the loads of the
  // whole trace at most (steps + 1) nx ny + r steps (steps + 1) / 2, computed before any is made.
  const double times = static_cast<double>(o.steps) + 1.0;
  const double loads = static_cast<double>(o.nx) * static_cast<double>(o.ny) * times +
                       o.churn.created_per_step * (times - 1.0) * times / 2.0;
  if (loads > static_cast<double>(max_trace_loads)) {
    reject(kind, "size",
           "at most " + std::to_string(max_trace_loads) +
               " loads (2^28: the objects alive summed over the initial instance and the steps)",
           "up to " + show(loads));
  }
}

// Independent streams for the effects, so that turning churn on does not change the drift of
// the objects that were already there: splitmix64 of the seed and the stream's number.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<Storm> storms_at(const std::vector<MovingStorm>& moving, double t) {
  std::vector<Storm> storms;
  storms.reserve(moving.size());
  for (const MovingStorm& m : moving) {
    Storm s = m.start;
    s.cx += t * m.vx;
    s.cy += t * m.vy;
    storms.push_back(s);
  }
  return storms;
}

// How many events a rate per step gives at time t (t >= 1): fractional rates accumulate.
std::size_t events_at(double rate, std::int64_t t) {
  const auto now = std::floor(rate * static_cast<double>(t));
  const auto before = std::floor(rate * static_cast<double>(t - 1));
  return static_cast<std::size_t>(now - before);
}

// The alive objects, in alive order, with what their loads are made of.
struct Alive {
  std::vector<ObjectId> id;
  std::vector<double> x;
  std::vector<double> y;
  std::vector<double> base;
  std::vector<double> drift;
  std::vector<char> drifting;

  std::size_t size() const { return id.size(); }

  void add(ObjectId i, double px, double py, double b, bool d) {
    id.push_back(i);
    x.push_back(px);
    y.push_back(py);
    base.push_back(b);
    drift.push_back(1.0);
    drifting.push_back(d ? 1 : 0);
  }

  // Removes the objects at the marked positions, keeping the order of the others.
  void remove(const std::vector<char>& gone) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size(); ++i) {
      if (gone[i] != 0) continue;
      id[kept] = id[i];
      x[kept] = x[i];
      y[kept] = y[i];
      base[kept] = base[i];
      drift[kept] = drift[i];
      drifting[kept] = drifting[i];
      ++kept;
    }
    for (auto* v : {&x, &y, &base, &drift}) v->resize(kept);
    id.resize(kept);
    drifting.resize(kept);
  }
};

class Generator {
 public:
  explicit Generator(const TraceOptions& o)
      : o_(o),
        storms_(o.storms ? *o.storms
                         : std::vector<MovingStorm>{default_moving_storm(o.nx, o.ny, o.steps)}),
        drift_random_(stream_seed(o.seed, 1)),
        churn_random_(stream_seed(o.seed, 2)),
        placement_(block_placement_2d(o.nx, o.ny, o.pes)) {}

  Trace run(const std::function<void(std::int64_t)>& after_step) {
    Trace trace;
    trace.initial = grid();
    object_bytes_ = trace.initial.objects.empty() ? 0 : trace.initial.objects.front().size;
    next_id_ = o_.nx * o_.ny;
    for (const Object& obj : trace.initial.objects) {
      alive_.add(obj.id, obj.coords[0], obj.coords[1], obj.load,
                 drift_random_.uniform() < o_.drift.fraction);
    }
    const std::vector<double> loads = loads_at(0);
    for (std::size_t i = 0; i < loads.size(); ++i) trace.initial.objects[i].load = loads[i];
    trace.steps.resize(static_cast<std::size_t>(o_.steps));
    for (std::int64_t t = 1; t <= o_.steps; ++t) {
      TraceStep& step = trace.steps[static_cast<std::size_t>(t - 1)];
      delete_some(t, step);
      drift_once();  // before creating: a new object starts at drift 1
      create_some(t, step);
      step.loads = loads_at(t);
      if (after_step) after_step(t);
    }
    return trace;
  }

 private:
  // The grid with base loads (noise, no storm, no radiation).
  Instance grid() const {
    BramsOptions b;
    b.nx = o_.nx;
    b.ny = o_.ny;
    b.pes = o_.pes;
    b.seed = o_.seed;
    b.base_load = o_.base_load;
    b.noise = o_.noise;
    b.storms = std::vector<Storm>{};
    b.block_side = o_.block_side;
    b.levels = o_.levels;
    b.fields = o_.fields;
    b.halo_bytes = o_.halo_bytes;
    b.object_bytes = o_.object_bytes;
    return generate_brams(b);
  }

  std::vector<double> loads_at(std::int64_t t) const {
    const std::vector<Storm> storms = storms_at(storms_, static_cast<double>(t));
    const RadiationSpikes& r = o_.radiation;
    const double radiation = r.period > 0 && t >= 1 && t % r.period == r.offset ? r.factor : 1.0;
    std::vector<double> loads(alive_.size());
    for (std::size_t i = 0; i < loads.size(); ++i) {
      loads[i] = alive_.base[i] *
                 generate_detail::storm_multiplier(storms, alive_.x[i], alive_.y[i]) *
                 alive_.drift[i] * radiation;
    }
    return loads;
  }

  void drift_once() {
    const double rate = o_.drift.rate;
    for (std::size_t i = 0; i < alive_.size(); ++i) {
      if (alive_.drifting[i] != 0) alive_.drift[i] *= 1.0 + rate * drift_random_.uniform(-1.0, 1.0);
    }
  }

  void delete_some(std::int64_t t, TraceStep& step) {
    const std::size_t n = alive_.size();
    const std::size_t count = std::min(events_at(o_.churn.deleted_per_step, t), n);
    if (count == 0) return;
    std::vector<char> gone(n, 0);
    for (std::size_t k = 0; k < count;) {
      const auto i = std::min(
          n - 1, static_cast<std::size_t>(churn_random_.uniform() * static_cast<double>(n)));
      if (gone[i] != 0) continue;  // drawn before: draw again (count <= n, so this ends)
      gone[i] = 1;
      ++k;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (gone[i] != 0) step.deleted.push_back(alive_.id[i]);
    }
    alive_.remove(gone);
  }

  void create_some(std::int64_t t, TraceStep& step) {
    const std::size_t count = events_at(o_.churn.created_per_step, t);
    const double hi_x = static_cast<double>(o_.nx) - 0.5;
    const double hi_y = static_cast<double>(o_.ny) - 0.5;
    for (std::size_t k = 0; k < count; ++k) {
      double x = 0.0;
      double y = 0.0;
      if (o_.churn.where == Appear::storm && !storms_.empty()) {
        const auto which = std::min(storms_.size() - 1,
                                    static_cast<std::size_t>(churn_random_.uniform() *
                                                             static_cast<double>(storms_.size())));
        const Storm s = storms_at({storms_[which]}, static_cast<double>(t)).front();
        const double r = s.radius * std::sqrt(churn_random_.uniform());
        const double angle = 2.0 * std::numbers::pi * churn_random_.uniform();
        x = std::clamp(s.cx + r * std::cos(angle), -0.5, hi_x);
        y = std::clamp(s.cy + r * std::sin(angle), -0.5, hi_y);
      } else {
        x = churn_random_.uniform(-0.5, hi_x);
        y = churn_random_.uniform(-0.5, hi_y);
      }
      const double base = o_.base_load * (1.0 + churn_random_.uniform(-o_.noise, o_.noise));
      const bool drifting = churn_random_.uniform() < o_.drift.fraction;
      Object created;
      created.id = next_id_++;
      created.size = object_bytes_;
      created.coords = {x, y, 0.0};
      created.pe = pe_of_cell(x, y);
      step.created.push_back(created);
      alive_.add(created.id, x, y, base, drifting);
    }
  }

  // The PE that owns the grid cell holding (x, y) under the initial block placement.
  PeId pe_of_cell(double x, double y) const {
    const auto i = std::clamp<std::int64_t>(std::llround(x), 0, o_.nx - 1);
    const auto j = std::clamp<std::int64_t>(std::llround(y), 0, o_.ny - 1);
    return placement_[static_cast<std::size_t>(j * o_.nx + i)];
  }

  const TraceOptions& o_;
  std::vector<MovingStorm> storms_;
  RandomSource drift_random_;
  RandomSource churn_random_;
  std::vector<PeId> placement_;
  Alive alive_;
  ObjectId next_id_ = 0;
  std::uint64_t object_bytes_ = 0;
};

}  // namespace

MovingStorm default_moving_storm(std::int64_t nx, std::int64_t ny, std::int64_t steps) {
  MovingStorm m;
  m.start = default_storm(nx, ny);
  m.vx = steps > 0 ? 0.4 * static_cast<double>(nx) / static_cast<double>(steps) : 0.0;
  return m;
}

Trace generate_trace(const TraceOptions& options,
                     const std::function<void(std::int64_t steps_done)>& after_step) {
  check(options);
  return Generator(options).run(after_step);
}

}  // namespace vela::lb
