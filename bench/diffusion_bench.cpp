// What one diffusion invocation costs as the object count grows at a fixed 64 objects per PE:
// BRAMS-like storms from 16,384 to 1,048,576 objects (256 to 16,384 PEs).
//
// Columns:
//   Time         the whole offline call (every PE's step in turn, plus the O(n + e) set-up).
//   max_pe_us    the busiest PE's local step: what an invocation costs when each PE runs its
//                own step, as in a distributed run.
//   mean_pe_us   the mean local step.
//   max_visits   the busiest PE's step in objects and adjacency entries read (a count, free of
//                timer noise); mean_visits the mean.
//   vs_16k       max_visits over the same count at 16,384 objects in this run: it stays near 1
//                when the cost does not depend on the total object count. max_pe_us varies more:
//                one preempted step among thousands of PEs sets it, and larger arrays miss cache.
//   per_obj_ns   the offline call's time per object.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using vela::lb::Instance;

constexpr std::int64_t kObjectsPerPe = 64;

const Instance& storm(std::int64_t side) {
  static std::map<std::int64_t, Instance> cache;
  auto it = cache.find(side);
  if (it == cache.end()) {
    vela::lb::BramsOptions o;
    o.nx = side;
    o.ny = side;
    o.pes = static_cast<vela::lb::PeId>(side * side / kObjectsPerPe);
    it = cache.emplace(side, vela::lb::generate_brams(o)).first;
  }
  return it->second;
}

struct Figures {
  double max_pe_ms = 0.0;
  double mean_pe_ms = 0.0;
  double max_visits = 0.0;
  double mean_visits = 0.0;
};

Figures local_steps(const vela::lb::StrategyReport& report) {
  Figures f;
  for (const auto& [key, value] : report.stats) {
    if (key == "max_pe_ms") f.max_pe_ms = value;
    if (key == "mean_pe_ms") f.mean_pe_ms = value;
    if (key == "max_pe_visits") f.max_visits = value;
    if (key == "mean_pe_visits") f.mean_visits = value;
  }
  return f;
}

// The smallest size's busiest local step, in objects and entries read.
double baseline_max_visits() {
  static const double value = [] {
    auto strategy = vela::lb::make_strategy("diffusion");
    return local_steps(vela::lb::run_strategy(*strategy, "diffusion", storm(128))).max_visits;
  }();
  return value;
}

void invocation(benchmark::State& state) {
  const Instance& in = storm(state.range(0));
  const double baseline = baseline_max_visits();
  Figures last;
  double best_max = 1e300;
  double mean = 0.0;
  double total_ms = 0.0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    auto strategy = vela::lb::make_strategy("diffusion");
    const auto report = vela::lb::run_strategy(*strategy, "diffusion", in);
    state.SetIterationTime(report.time_ms / 1000.0);
    const Figures f = local_steps(report);
    last = f;
    best_max = std::min(best_max, f.max_pe_ms);
    mean += f.mean_pe_ms;
    total_ms += report.time_ms;
    ++runs;
  }
  const auto n = static_cast<double>(in.objects.size());
  state.counters["objects"] = n;
  state.counters["max_pe_us"] = 1000.0 * best_max;
  state.counters["mean_pe_us"] = 1000.0 * mean / static_cast<double>(runs);
  state.counters["max_visits"] = last.max_visits;
  state.counters["mean_visits"] = last.mean_visits;
  state.counters["vs_16k"] = last.max_visits / baseline;
  state.counters["per_obj_ns"] = 1e6 * total_ms / static_cast<double>(runs) / n;
}

}  // namespace

BENCHMARK(invocation)
    ->ArgName("side")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
