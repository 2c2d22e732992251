// The Hilbert strategy's parts on a 2-D grid of 10^3 to 10^6 objects with random loads:
// the curve order alone (integer grid, non-integer coordinates, a 3-D cube), the cut alone on
// 64, 1024 and 4096 PEs, and the whole strategy on its first call (order + cut) and on a later
// call (cut only). The baseline row "sort" times std::sort of n random 64-bit keys on the same
// machine in the same run, so times can be read as multiples of one sort.
// Targets: first call <= 300 ms and cut <= 20 ms at 10^6 objects.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "sizes.hpp"
#include "vela/lb/strategies/hilbert.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using vela::lb::Instance;

enum class Layout : std::int64_t { grid = 0, real = 1, cube = 2 };

// n objects on a near-square 2-D grid (or a cube), listed row by row, loads uniform in
// [0.5, 1.5); `real` places them at cell centres of a 0.01 spacing, so the coordinates are not
// integers and take the binning path.
const Instance& instance_for(std::int64_t objects, vela::lb::PeId pes, Layout layout) {
  static std::map<std::tuple<std::int64_t, vela::lb::PeId, Layout>, Instance> cache;
  const auto key = std::make_tuple(objects, pes, layout);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Instance in;
  in.pes.resize(static_cast<std::size_t>(pes));
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> load(0.5, 1.5);
  const auto add = [&](double x, double y, double z) {
    vela::lb::Object o;
    o.id = static_cast<vela::lb::ObjectId>(in.objects.size());
    o.load = load(rng);
    o.coords = {x, y, z};
    o.pe = static_cast<vela::lb::PeId>(in.objects.size() % in.pes.size());
    in.objects.push_back(o);
  };
  if (layout == Layout::cube) {
    in.dims = 3;
    const auto side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(objects))));
    for (int z = 0; z < side; ++z) {
      for (int y = 0; y < side; ++y) {
        for (int x = 0; x < side; ++x) add(x, y, z);
      }
    }
  } else {
    in.dims = 2;
    auto width = static_cast<std::int64_t>(std::sqrt(static_cast<double>(objects)));
    while (objects % width != 0) --width;  // 10^3 -> 40 x 25, 10^6 -> 1000 x 1000
    const double spacing = layout == Layout::real ? 0.01 : 1.0;
    const double shift = layout == Layout::real ? 0.5 : 0.0;
    for (std::int64_t y = 0; y < objects / width; ++y) {
      for (std::int64_t x = 0; x < width; ++x) {
        add((static_cast<double>(x) + shift) * spacing, (static_cast<double>(y) + shift) * spacing,
            0.0);
      }
    }
  }
  return cache.emplace(key, std::move(in)).first->second;
}

vela::lb::PeId pes_of(const benchmark::State& state) {
  return static_cast<vela::lb::PeId>(state.range(1));
}

void sort_baseline(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    for (std::uint64_t& k : keys) k = rng();
    state.ResumeTiming();
    std::sort(keys.begin(), keys.end());
    benchmark::DoNotOptimize(keys.data());
  }
}

void curve_order(benchmark::State& state, Layout layout) {
  const Instance& in = instance_for(state.range(0), 1, layout);
  for (auto _ : state) benchmark::DoNotOptimize(vela::lb::hilbert_order(in).data());
}

void cut(benchmark::State& state) {
  const Instance& in = instance_for(state.range(0), pes_of(state), Layout::grid);
  const std::vector<std::uint32_t> order = vela::lb::hilbert_order(in);
  for (auto _ : state) benchmark::DoNotOptimize(vela::lb::hilbert_cut(in, order).pe.data());
}

// A new strategy each iteration: the curve order is computed, then cut.
void first_call(benchmark::State& state) {
  const Instance& in = instance_for(state.range(0), pes_of(state), Layout::grid);
  double curve_ms = 0.0;
  for (auto _ : state) {
    auto strategy = vela::lb::make_strategy("hilbert");
    const vela::lb::Solution s = strategy->solve(in);
    curve_ms = s.stats.at(0).second;
    benchmark::DoNotOptimize(s.assignment.pe.data());
  }
  state.counters["curve_ms"] = curve_ms;
}

// The same strategy again on the same coordinates: fingerprint + cut.
void cached_call(benchmark::State& state) {
  const Instance& in = instance_for(state.range(0), pes_of(state), Layout::grid);
  auto strategy = vela::lb::make_strategy("hilbert");
  strategy->solve(in);
  for (auto _ : state) benchmark::DoNotOptimize(strategy->solve(in).assignment.pe.data());
}

void objects_only(benchmark::internal::Benchmark* b) {
  for (const std::int64_t objects : {1'000, 10'000, 100'000, 1'000'000}) b->Args({objects, 1});
  b->ArgNames({"objects", "pes"})->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("sort", sort_baseline)->Apply(objects_only);
  benchmark::RegisterBenchmark("curve_order/grid", curve_order, Layout::grid)->Apply(objects_only);
  benchmark::RegisterBenchmark("curve_order/real", curve_order, Layout::real)->Apply(objects_only);
  benchmark::RegisterBenchmark("curve_order/cube", curve_order, Layout::cube)->Apply(objects_only);
  benchmark::RegisterBenchmark("cut", cut)->Apply(vela::bench::objects_and_pes);
  benchmark::RegisterBenchmark("hilbert/first_call", first_call)
      ->Apply(vela::bench::objects_and_pes);
  benchmark::RegisterBenchmark("hilbert/cached_call", cached_call)
      ->Apply(vela::bench::objects_and_pes);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
