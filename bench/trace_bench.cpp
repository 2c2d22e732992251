// Load traces at the size of seed 000's experiments: 1,024 objects x 2,400 steps with a moving
// storm and a radiation spike every 100 steps (plus a churn variant that creates and deletes
// objects). Rows: generating, writing and reading both formats, and stepping a cursor through
// every step. The baseline row copies the trace's loads once (memcpy speed on this machine), so
// the other rows read as multiples of touching the data once.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "vela/lb/trace/generate.hpp"
#include "vela/lb/trace/trace.hpp"

namespace {

using vela::lb::Trace;

const Trace& storm(bool churn) {
  static const auto make = [](bool with_churn) {
    vela::lb::TraceOptions o;
    o.radiation.period = 100;
    if (with_churn) {
      o.churn.created_per_step = 0.5;
      o.churn.deleted_per_step = 0.5;
    }
    return vela::lb::generate_trace(o);
  };
  static const Trace plain = make(false);
  static const Trace churned = make(true);
  return churn ? churned : plain;
}

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("vela-trace-bench-" + name)).string();
}

void copy_loads(benchmark::State& state) {
  const Trace& t = storm(false);
  std::vector<double> out;
  for (auto _ : state) {
    out.clear();
    for (const auto& step : t.steps) out.insert(out.end(), step.loads.begin(), step.loads.end());
    benchmark::DoNotOptimize(out.data());
  }
}

void generate(benchmark::State& state) {
  for (auto _ : state) {
    vela::lb::TraceOptions o;
    o.radiation.period = 100;
    Trace t = vela::lb::generate_trace(o);
    benchmark::DoNotOptimize(t.steps.data());
  }
}

void write_and_read(benchmark::State& state, bool binary) {
  const std::string file = scratch(binary ? "storm.trace" : "storm.json");
  if (binary) {
    vela::lb::write_trace_binary(storm(false), file);
  } else {
    vela::lb::write_trace_json(storm(false), file);
  }
  for (auto _ : state) {
    Trace t = vela::lb::read_trace(file);
    benchmark::DoNotOptimize(t.steps.data());
  }
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
  std::remove(file.c_str());
}

void write(benchmark::State& state, bool binary) {
  const std::string file = scratch(binary ? "w.trace" : "w.json");
  for (auto _ : state) {
    if (binary) {
      vela::lb::write_trace_binary(storm(false), file);
    } else {
      vela::lb::write_trace_json(storm(false), file);
    }
  }
  std::remove(file.c_str());
}

void step_cursor(benchmark::State& state) {
  const Trace& t = storm(state.range(0) != 0);
  for (auto _ : state) {
    vela::lb::TraceCursor cursor(t);
    double sum = 0.0;
    while (cursor.next()) sum += cursor.instance().objects.front().load;
    benchmark::DoNotOptimize(sum);
  }
}

}  // namespace

BENCHMARK(copy_loads)->Unit(benchmark::kMillisecond);
BENCHMARK(generate)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write, binary, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write, json, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_and_read, read_binary, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_and_read, read_json, false)->Unit(benchmark::kMillisecond);
BENCHMARK(step_cursor)->ArgName("churn")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
