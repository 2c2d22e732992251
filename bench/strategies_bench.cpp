// Strategy time and memory from 10^3 to 10^6 objects on 64, 1024 and 4096 PEs.
//
// Each row reports the strategy's time, the imbalance before and after, the migrations, and
// the bytes per object held by the instance plus the strategy's peak extra heap. The baseline
// row "sort" times std::sort of the n object loads on the same machine in the same run, so
// times can be read as multiples of one sort.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "sizes.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/registry.hpp"

// ---- Heap accounting: live and peak bytes of everything allocated through operator new ----

namespace {
std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void* counted_alloc(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  const std::size_t now = live_bytes += malloc_usable_size(p);
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
  return p;
}

void counted_free(void* p) {
  if (p == nullptr) return;
  live_bytes -= malloc_usable_size(p);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t size) {
  return counted_alloc(size);
}
void* operator new[](std::size_t size) {
  return counted_alloc(size);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}

namespace {

using vela::lb::Instance;

// Loads uniform in [0.5, 1.5) on a block placement, with the first eighth of the PEs
// overloaded so that max/avg starts near 1.10 (a 10% imbalance: refine's starting point).
const Instance& instance_for(std::int64_t objects, vela::lb::PeId pes) {
  static std::map<std::pair<std::int64_t, vela::lb::PeId>, Instance> cache;
  auto it = cache.find({objects, pes});
  if (it == cache.end()) {
    vela::lb::ClusteredOptions o;
    o.objects = objects;
    o.pes = pes;
    o.overloaded = std::max<vela::lb::PeId>(1, pes / 8);
    o.factor = 1.116;  // f / (1 + (f - 1) / 8) = 1.10
    it = cache.emplace(std::make_pair(objects, pes), vela::lb::generate_clustered(o)).first;
  }
  return it->second;
}

std::size_t instance_bytes(const Instance& in) {
  return in.objects.capacity() * sizeof(vela::lb::Object) +
         in.edges.capacity() * sizeof(vela::lb::Edge) + in.pes.capacity() * sizeof(vela::lb::Pe);
}

void run_strategy(benchmark::State& state, const std::string& name) {
  const Instance& in = instance_for(state.range(0), static_cast<vela::lb::PeId>(state.range(1)));
  vela::lb::StrategyReport report;
  std::size_t extra_peak = 0;
  for (auto _ : state) {
    // A new strategy each time, so Hilbert's time includes the curve order.
    auto strategy = vela::lb::make_strategy(name);
    const std::size_t before = live_bytes.load();
    peak_bytes = before;
    report = vela::lb::run_strategy(*strategy, name, in);
    extra_peak = std::max(extra_peak, peak_bytes.load() - before);
    state.SetIterationTime(report.time_ms / 1000.0);
  }
  const auto n = static_cast<double>(in.objects.size());
  state.counters["lambda0_%"] = 100.0 * report.before.imbalance;
  state.counters["lambda_%"] = 100.0 * report.after.imbalance;
  state.counters["moved"] = static_cast<double>(report.moved.count);
  state.counters["B/obj"] =
      (static_cast<double>(instance_bytes(in)) + static_cast<double>(extra_peak)) / n;
  for (const auto& [key, value] : report.stats) {
    if (key.size() > 3 && key.compare(key.size() - 3, 3, "_ms") == 0) state.counters[key] = value;
  }
}

void sort_baseline(benchmark::State& state) {
  const Instance& in = instance_for(state.range(0), static_cast<vela::lb::PeId>(state.range(1)));
  std::vector<double> loads;
  for (auto _ : state) {
    state.PauseTiming();
    loads.clear();
    for (const auto& o : in.objects) loads.push_back(o.load);
    state.ResumeTiming();
    std::sort(loads.begin(), loads.end());
    benchmark::DoNotOptimize(loads.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("sort", sort_baseline)->Apply(vela::bench::objects_and_pes);
  for (const auto& info : vela::lb::strategies()) {
    // Migration tests balance nothing; the exact reference takes small instances only.
    if (info.name == "rotate" || info.name == "random" || info.reference_only) continue;
    // The graph partitioners take seconds at 10^6 objects: up to 10^5 here.
    const bool partitioner = info.name == "metis" || info.name == "scotch" ||
                             info.name == "grid-metis" || info.name == "grid-hybrid" ||
                             info.name == "hypergraph";
    benchmark::RegisterBenchmark(info.name.c_str(),
                                 [name = info.name](benchmark::State& s) { run_strategy(s, name); })
        ->Apply(partitioner ? vela::bench::objects_and_pes_up_to_1e5 : vela::bench::objects_and_pes)
        ->UseManualTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
