// The grid strategies (grid-comm, grid-metis, grid-hybrid) against greedy and
// metis on a Jacobi 2-D grid (loads within +-10%, one halo message per neighbour and direction)
// spread over 4 clusters of 16 PEs, objects placed naively (object k on PE k mod 64, as the
// seed's "Naive mapping"), 1,024 to 65,536 objects.
//
// Each row reports the strategy's time, then as ratios against greedy measured in the same run
// its time (x_greedy) and the messages it leaves between clusters (wan_x_greedy), and as figures
// lambda after, messages between clusters (wan_msgs) and between PEs (pe_msgs), and migrations.
// Target: grid-hybrid <= 100 ms at 4,096 objects (the seed's GridHybridLB took 6.7 s).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {
StrategyInfo greedy();
StrategyInfo metis();
StrategyInfo grid_comm();
StrategyInfo grid_metis();
StrategyInfo grid_hybrid();
}  // namespace vela::lb::builtin

namespace {

using vela::lb::Instance;

constexpr vela::lb::PeId kClusters = 4;
constexpr vela::lb::PeId kPesPerCluster = 16;

const Instance& instance_for(std::int64_t objects) {
  static std::map<std::int64_t, Instance> cache;
  auto it = cache.find(objects);
  if (it != cache.end()) return it->second;
  vela::lb::JacobiOptions o;
  o.nx = o.ny = 1;
  while (o.nx * o.ny < objects) o.nx *= 2, o.ny = o.nx;  // 2^(2k) objects: a square grid
  o.pes = kClusters * kPesPerCluster;
  o.noise = 0.10;
  Instance in = vela::lb::generate_jacobi(o);
  for (std::size_t p = 0; p < in.pes.size(); ++p) {
    in.pes[p].cluster = static_cast<std::int32_t>(p) / kPesPerCluster;
  }
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    in.objects[i].pe = static_cast<vela::lb::PeId>(i % in.pes.size());
  }
  return cache.emplace(objects, std::move(in)).first->second;
}

struct Baseline {
  double time_ms = 0.0;
  double wan = 0.0;
};

// Greedy's figures per size; greedy is registered first, so it runs first.
std::map<std::int64_t, Baseline>& baselines() {
  static std::map<std::int64_t, Baseline> b;
  return b;
}

void run(benchmark::State& state, const vela::lb::StrategyInfo& info) {
  const Instance& in = instance_for(state.range(0));
  const vela::lb::ParamValues params(info.name, info.params, {});
  vela::lb::StrategyReport report;
  double total_ms = 0.0;
  for (auto _ : state) {
    auto strategy = info.make(params);
    report = vela::lb::run_strategy(*strategy, info.name, in);
    state.SetIterationTime(report.time_ms / 1000.0);
    total_ms += report.time_ms;
  }
  const double mean_ms = total_ms / static_cast<double>(state.iterations());
  const auto wan = static_cast<double>(report.cut_after.cluster_messages);
  if (info.name == "greedy") baselines()[state.range(0)] = {mean_ms, wan};
  const auto base = baselines().find(state.range(0));
  if (base != baselines().end() && base->second.time_ms > 0.0) {
    state.counters["x_greedy"] = mean_ms / base->second.time_ms;
    if (base->second.wan > 0.0) state.counters["wan_x_greedy"] = wan / base->second.wan;
  }
  state.counters["lambda_%"] = 100.0 * report.after.imbalance;
  state.counters["wan_msgs"] = wan;
  state.counters["pe_msgs"] = static_cast<double>(report.cut_after.messages);
  state.counters["moved"] = static_cast<double>(report.moved.count);
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& info : {vela::lb::builtin::greedy(), vela::lb::builtin::grid_comm(),
                           vela::lb::builtin::grid_metis(), vela::lb::builtin::grid_hybrid(),
                           vela::lb::builtin::metis()}) {
    benchmark::RegisterBenchmark(info.name.c_str(), [info](benchmark::State& s) { run(s, info); })
        ->ArgName("objects")
        ->Arg(1'024)
        ->Arg(4'096)
        ->Arg(16'384)
        ->Arg(65'536)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
