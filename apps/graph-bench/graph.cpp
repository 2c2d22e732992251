// The graph benchmark's problem: generators, the instance-file input, drift and do_work.
#include "graph.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/io/io.hpp"

namespace graph_bench {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {

// A uniform double in [0, 1) from the hash of (seed, a, b).
double uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return static_cast<double>(mix(seed ^ mix(a ^ mix(b + 0x5eed))) >> 11) * 0x1.0p-53;
}

bool finite_positive(double x) {
  return x > 0.0 && std::isfinite(x);
}

Graph from_instance(const vela::lb::Instance& in, bool starts_from_pe) {
  Graph g;
  const std::size_t n = in.objects.size();
  g.to.resize(n);
  g.from.resize(n);
  for (const vela::lb::Edge& e : in.edges) {
    if (e.from == e.to) continue;
    g.to[e.from].push_back(e.to);
    g.from[e.to].push_back(e.from);
  }
  for (auto* lists : {&g.to, &g.from}) {
    for (auto& list : *lists) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
  }
  for (const auto& list : g.to) g.edges += list.size();
  const auto pes = static_cast<double>(in.pes.size());
  for (std::size_t i = 0; i < n; ++i) {
    g.weight.push_back(in.objects[i].load);
    g.start.push_back(starts_from_pe ? static_cast<double>(in.objects[i].pe) / pes
                                     : static_cast<double>(i) / static_cast<double>(n));
  }
  return g;
}

}  // namespace

std::string check(const GraphOptions& o) {
  if (o.instance.empty() && o.gen != "gamma" && o.gen != "cluster") {
    return fmt::format("--gen {}: unknown generator; expected gamma or cluster", o.gen);
  }
  if (o.units < 1 || o.units > (1 << 24)) {
    return fmt::format("--units {}: expected a unit count in [1, 16777216]", o.units);
  }
  if (!finite_positive(o.shape)) return fmt::format("--shape {}: expected a number > 0", o.shape);
  if (!finite_positive(o.scale)) return fmt::format("--scale {}: expected a number > 0", o.scale);
  if (!finite_positive(o.overload)) {
    return fmt::format("--overload {}: expected a weight multiplier > 0", o.overload);
  }
  if (!(o.region > 0.0 && o.region < 100.0)) {
    return fmt::format("--region {}: expected a percentage of the units in (0, 100)", o.region);
  }
  if (!(o.drift >= 0.0 && o.drift <= 50.0)) {
    return fmt::format("--drift {}: expected a percentage per step in [0, 50]", o.drift);
  }
  return {};
}

Graph make_graph(const GraphOptions& o) {
  if (const std::string bad = check(o); !bad.empty()) throw std::invalid_argument(bad);
  if (!o.instance.empty()) {
    const vela::lb::Instance in = vela::lb::read_instance(o.instance);
    if (in.objects.empty()) {
      throw std::invalid_argument("--instance " + o.instance + ": the instance has no objects");
    }
    Graph g = from_instance(in, true);
    double total = 0.0;
    for (const double w : g.weight) total += w;
    if (!(total > 0.0)) {
      throw std::invalid_argument("--instance " + o.instance +
                                  ": every object's load is 0; expected some work");
    }
    const double mean = total / static_cast<double>(g.weight.size());
    for (double& w : g.weight) w /= mean;
    return g;
  }
  vela::lb::Instance in;
  if (o.gen == "gamma") {
    vela::lb::GammaOptions gamma;
    gamma.objects = o.units;
    gamma.pes = 1;
    gamma.seed = o.seed;
    gamma.shape = o.shape;
    gamma.scale = o.scale;
    in = vela::lb::generate_gamma(gamma);
  } else {
    vela::lb::ClusteredOptions cluster;  // base weights only: the region is placed below
    cluster.objects = o.units;
    cluster.pes = 2;
    cluster.overloaded = 1;
    cluster.factor = 1.0;
    cluster.seed = o.seed;
    in = vela::lb::generate_clustered(cluster);
    const auto heavy =
        static_cast<std::size_t>(std::ceil(static_cast<double>(o.units) * o.region / 100.0));
    for (std::size_t i = 0; i < heavy && i < in.objects.size(); ++i) {
      in.objects[i].load *= o.overload;
    }
  }
  return from_instance(in, false);
}

bool drifts(std::uint64_t seed, std::uint64_t unit) {
  return uniform(seed, unit, 0xd1f7) < 0.5;
}

double drifted(double weight, double drift_percent, std::uint64_t seed, std::uint64_t unit,
               std::int64_t step) {
  if (drift_percent == 0.0 || !drifts(seed, unit)) return weight;
  const double u =
      2.0 * uniform(seed ^ 0x6472696674ull, unit, static_cast<std::uint64_t>(step)) - 1.0;
  return weight * (1.0 + drift_percent / 100.0 * u);
}

vela::lb::Trace load_trace(const Graph& graph, const GraphOptions& options, std::int64_t steps,
                           int pes, double seconds_per_unit, std::uint64_t unit_bytes,
                           std::uint64_t message_bytes) {
  vela::lb::Trace trace;
  vela::lb::Instance& start = trace.initial;
  start.pes.assign(static_cast<std::size_t>(pes), vela::lb::Pe{});
  const std::size_t units = graph.weight.size();
  for (std::size_t u = 0; u < units; ++u) {
    vela::lb::Object o;
    o.id = u;
    o.load = graph.weight[u] * seconds_per_unit;
    o.size = unit_bytes;
    o.pe = std::min(static_cast<vela::lb::PeId>(graph.start[u] * pes), pes - 1);
    start.objects.push_back(o);
    for (const std::uint32_t v : graph.to[u]) {
      start.edges.push_back({static_cast<std::uint32_t>(u), v, 1, message_bytes});
    }
  }
  std::vector<double> weight = graph.weight;
  trace.steps.resize(static_cast<std::size_t>(steps));
  for (std::int64_t step = 0; step < steps; ++step) {
    std::vector<double>& loads = trace.steps[static_cast<std::size_t>(step)].loads;
    loads.reserve(units);
    for (std::size_t u = 0; u < units; ++u) {
      loads.push_back(weight[u] * seconds_per_unit);
      weight[u] = drifted(weight[u], options.drift, options.seed, u, step);
    }
  }
  return trace;
}

namespace {

// 32 KiB of hashed words (fits a first-level cache): read in an order the chain decides.
const std::array<std::uint64_t, 4096>& work_table() {
  static const std::array<std::uint64_t, 4096> table = [] {
    std::array<std::uint64_t, 4096> t{};
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = mix(i + 1);
    return t;
  }();
  return table;
}

}  // namespace

std::uint64_t do_work(std::uint64_t iterations, std::uint64_t state) {
  const auto& table = work_table();
  for (std::uint64_t i = 0; i < iterations; ++i) {
    state = (state ^ table[state >> 52]) * 0x9e3779b97f4a7c15ull + i;
  }
  return state;
}

Calibration calibrate(double ns_per_unit) {
  using clock = std::chrono::steady_clock;
  // A volatile store of each result: do_work has no side effects, so the compiler could drop it.
  volatile std::uint64_t keep = do_work(1 << 16, 1);  // warms the table and the clock
  std::uint64_t iterations = 1 << 16;
  double best = 0.0;
  // Grow the run to at least 10 ms, then keep the fastest of five such runs.
  for (int trial = 0; trial < 5;) {
    const auto begin = clock::now();
    keep = do_work(iterations, keep | 1);
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - begin).count();
    if (ns < 1e7) {
      iterations *= 2;
      continue;
    }
    const double per = ns / static_cast<double>(iterations);
    best = trial == 0 ? per : std::min(best, per);
    ++trial;
  }
  return {best, ns_per_unit / best};
}

}  // namespace graph_bench
