// The optimal reference strategy on gamma-distributed loads (seed 001's distribution, shape 2,
// mean 1) over identical PEs: the exact number-partitioning search against GLPK's MILP on the
// same instance, both with a 10 s limit. Target: 40 objects / 4 PEs proven optimal in <= 10 s.
//
// Columns:
//   Time        the solve (manual time, as the strategy reports it).
//   proven      1 when optimality was proven within the limit.
//   gap         (answer - proven lower bound) / answer; 0 when proven.
//   vs_ideal    max PE time over the ideal (average) time, minus 1.
//   vs_lpt      max PE time over greedy LPT's.
//   x_milp      the search's time over the MILP's on the same instance, measured in this run
//               (the MILP row of 40 objects / 4 PEs, seed 1).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using vela::lb::Instance;

const Instance& gamma(std::int64_t objects, std::int64_t pes, std::int64_t seed) {
  static std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Instance> cache;
  const auto key = std::make_tuple(objects, pes, seed);
  auto it = cache.find(key);
  if (it == cache.end()) {
    vela::lb::GammaOptions o;
    o.objects = objects;
    o.pes = static_cast<vela::lb::PeId>(pes);
    o.seed = static_cast<std::uint64_t>(seed);
    it = cache.emplace(key, vela::lb::generate_gamma(o)).first;
  }
  return it->second;
}

double stat(const vela::lb::StrategyReport& r, const std::string& name) {
  for (const auto& [key, value] : r.stats) {
    if (key == name) return value;
  }
  return -1.0;
}

double max_time(const Instance& in, const vela::lb::Assignment& a) {
  const std::vector<double> loads = vela::lb::pe_loads(in, a);
  return *std::max_element(loads.begin(), loads.end());
}

// The same instance through the exact search or through GLPK.
vela::lb::StrategyReport solve(const Instance& in, bool milp) {
  vela::lb::RawParams p = {{"time_limit", "10"}};
  if (milp) p["method"] = "milp";
  auto strategy = vela::lb::make_strategy("optimal", p);
  return vela::lb::run_strategy(*strategy, "optimal", in);
}

double milp_ms() {
  static const double value = solve(gamma(40, 4, 1), true).time_ms;
  return value;
}

void optimal(benchmark::State& state) {
  const Instance& in = gamma(state.range(0), state.range(1), state.range(2));
  const bool milp = state.range(3) == 1;
  auto greedy = vela::lb::make_strategy("greedy");
  const double lpt = max_time(in, vela::lb::run_strategy(*greedy, "greedy", in).assignment);
  vela::lb::StrategyReport last;
  for (auto _ : state) {
    last = solve(in, milp);
    state.SetIterationTime(last.time_ms / 1000.0);
  }
  const double t = max_time(in, last.assignment);
  state.counters["proven"] = stat(last, "optimal");
  state.counters["gap"] = stat(last, "gap");
  state.counters["vs_ideal"] = t / vela::lb::ideal_time(in) - 1.0;
  state.counters["vs_lpt"] = t / lpt;
  state.counters["x_milp"] = last.time_ms / milp_ms();
  state.SetLabel(milp ? "milp" : "exact search");
}

}  // namespace

BENCHMARK(optimal)
    ->ArgNames({"objects", "pes", "seed", "milp"})
    ->Args({40, 4, 1, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(optimal)
    ->ArgNames({"objects", "pes", "seed", "milp"})
    ->Args({40, 4, 1, 0})
    ->Args({40, 4, 2, 0})
    ->Args({40, 4, 3, 0})
    ->Args({40, 4, 4, 0})
    ->Args({40, 4, 5, 0})
    ->Args({44, 4, 1, 0})
    ->Args({40, 8, 1, 0})
    ->Args({44, 8, 1, 0})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
