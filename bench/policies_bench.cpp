// The automatic threshold's choice: replaying a window of recent steps under the six
// candidate thresholds must take <= 0.1 s for 1,024 objects x 50 steps (Rodrigues §4.5).
//
// Rows:
//   strategy_call/S      baseline: one call of strategy S (made fresh, as the choice makes it)
//                        on the window's last step.
//   auto_threshold/S     choose_threshold over the window with strategy S.
// Columns (counters):
//   balances     strategy calls the six replays asked for (memoized calls are fewer).
//   x_call       the choice's time over one strategy call measured in this run.
//   target_ok    1 when the choice takes <= 0.1 s.
// The window is a BRAMS-like trace (generate_trace): a moving storm with a radiation spike every
// 10 steps, 64 PEs; costs 0.05 s per strategy call, 1 ms per object moved plus 1 ns per byte.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "vela/lb/policy/auto_threshold.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/lb/trace/generate.hpp"

namespace {

struct Window {
  vela::lb::LoadWindow loads{1};
  vela::lb::Instance latest;
};

const Window& window_for(std::int64_t side, std::int64_t steps) {
  static std::map<std::pair<std::int64_t, std::int64_t>, Window> cache;
  const auto key = std::make_pair(side, steps);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  vela::lb::TraceOptions o;
  o.nx = side;
  o.ny = side;
  o.pes = 64;
  o.steps = steps;
  o.radiation.period = 10;
  const vela::lb::Trace trace = vela::lb::generate_trace(o);
  Window w;
  w.loads = vela::lb::LoadWindow(static_cast<std::size_t>(steps));
  vela::lb::TraceCursor cursor(trace);
  for (std::size_t s = 0; cursor.next(); ++s) w.loads.record(s, cursor.instance());
  w.latest = cursor.instance();
  return cache.emplace(key, std::move(w)).first->second;
}

vela::lb::CostParameters costs() {
  vela::lb::CostParameters c;
  c.strategy_seconds = 0.05;
  c.startup = 1e-3;
  c.per_byte = 1e-9;
  return c;
}

std::map<std::pair<std::string, std::int64_t>, double>& baseline_seconds() {
  static std::map<std::pair<std::string, std::int64_t>, double> seconds;
  return seconds;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void strategy_call(benchmark::State& state, const std::string& strategy) {
  const Window& w = window_for(state.range(0), state.range(1));
  double total = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto solver = vela::lb::make_strategy(strategy);
    benchmark::DoNotOptimize(solver->solve(w.latest).assignment.pe.data());
    total += seconds_since(start);
  }
  baseline_seconds()[{strategy, state.range(0)}] = total / static_cast<double>(state.iterations());
}

void auto_threshold(benchmark::State& state, const std::string& strategy) {
  const Window& w = window_for(state.range(0), state.range(1));
  double total = 0.0;
  std::size_t balances = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const vela::lb::ThresholdChoice c = vela::lb::choose_threshold(
        w.loads, w.latest, vela::lb::default_thresholds(), 1, strategy, {}, costs());
    total += seconds_since(start);
    balances = 0;
    for (const std::size_t b : c.balances) balances += b;
    benchmark::DoNotOptimize(c.threshold);
  }
  const double mean = total / static_cast<double>(state.iterations());
  state.counters["balances"] = static_cast<double>(balances);
  const auto base = baseline_seconds().find({strategy, state.range(0)});
  if (base != baseline_seconds().end() && base->second > 0.0) {
    state.counters["x_call"] = mean / base->second;
  }
  state.counters["target_ok"] = mean <= 0.1 ? 1.0 : 0.0;
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Args({32, 50})->Args({128, 50})->ArgNames({"side", "window"})->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string strategy : {"greedy", "refine", "hilbert"}) {
    benchmark::RegisterBenchmark(("strategy_call/" + strategy).c_str(), strategy_call, strategy)
        ->Apply(sizes);
    benchmark::RegisterBenchmark(("auto_threshold/" + strategy).c_str(), auto_threshold, strategy)
        ->Apply(sizes);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
