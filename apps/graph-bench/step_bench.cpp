// One step of a small graph on the runtime (2 PEs, 256 units of 2 µs of work, 4-neighbour
// mesh: 960 messages a step), timed from the first message to the step's end, against the same
// work done by do_work alone in the same run: the runtime's cost per step and per message.
#include <benchmark/benchmark.h>

#include <chrono>

#include "graph.hpp"
#include "unit.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr double ns_per_unit = 2000.0;

const graph_bench::Calibration& calibration() {
  static const graph_bench::Calibration c = graph_bench::calibrate(ns_per_unit);
  return c;
}

void BM_DoWorkOfAStep(benchmark::State& state) {
  graph_bench::GraphOptions g;
  g.units = state.range(0);
  const graph_bench::Graph graph = graph_bench::make_graph(g);
  std::uint64_t sink = 1;
  for (auto _ : state) {
    for (const double w : graph.weight) {
      sink = graph_bench::do_work(
          static_cast<std::uint64_t>(std::llround(w * calibration().iterations_per_unit)),
          sink | 1);
    }
  }
  benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_DoWorkOfAStep)->Arg(256)->Unit(benchmark::kMicrosecond);

void BM_GraphStep(benchmark::State& state) {
  graph_bench::GraphOptions g;
  g.units = state.range(0);
  const graph_bench::Graph graph = graph_bench::make_graph(g);
  graph_bench::the_graph = &graph;
  graph_bench::Problem p;
  p.steps = 20;
  p.sync_every = 0;
  p.unit_bytes = 0;
  p.iterations_per_unit = calibration().iterations_per_unit;
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  for (auto _ : state) {
    vela::rt::Runtime runtime(options);
    Clock::time_point begin, end;
    runtime.run([&](vela::rt::Context& ctx) {
      p.step_done = ctx.callback([&](const std::vector<double>&) { end = Clock::now(); });
      p.done = ctx.callback([](const std::vector<double>&) {});
      auto units = ctx.create<graph_bench::Unit>(
          "units", vela::rt::Shape::line(static_cast<std::int32_t>(g.units)),
          vela::rt::InitialMap::ranges, p);
      begin = Clock::now();
      units.broadcast<&graph_bench::Unit::start>();
    });
    state.SetIterationTime(std::chrono::duration<double>(end - begin).count() / p.steps);
  }
  graph_bench::the_graph = nullptr;
  state.counters["edges"] = static_cast<double>(graph.edges);
}
BENCHMARK(BM_GraphStep)->Arg(256)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
