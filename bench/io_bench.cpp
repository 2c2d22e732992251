// Reading and writing instance files (docs/instance-format.md) of 2-D grids with 10^4, 10^5 and
// 10^6 objects. The budget is the 10^6 case: it must read in <= 3 s on the 2-core build machine.
// Baselines, measured in the same run on the same file: copying the file's bytes into memory
// (read) and writing as many bytes from memory (write), the floor any format pays.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/io/io.hpp"

namespace {

using vela::lb::Instance;
using Clock = std::chrono::steady_clock;

// One object per cell of a width x height torus, 4 directed halo edges per object, and 64 PEs
// that each own a block of the grid. Loads vary, so that they take their full 17 digits.
Instance grid(int width, int height) {
  Instance in;
  in.dims = 2;
  in.pes.resize(64);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> load(0.5, 1.5);
  const auto cell = [&](int x, int y) {
    return static_cast<std::uint32_t>(((y + height) % height) * width + (x + width) % width);
  };
  in.objects.reserve(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  in.edges.reserve(4 * in.objects.capacity());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      vela::lb::Object o;
      o.id = cell(x, y);
      o.load = load(rng);
      o.size = 4096;
      o.pe = (y * 8 / height) * 8 + x * 8 / width;
      o.coords = {static_cast<double>(x), static_cast<double>(y), 0.0};
      in.objects.push_back(o);
      constexpr std::array<std::pair<int, int>, 4> halo = {{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
      for (const auto& [dx, dy] : halo) {
        in.edges.push_back({.from = cell(x, y),
                            .to = cell(x + dx, y + dy),
                            .messages = 1,
                            .bytes = 8 * static_cast<std::uint64_t>(dx != 0 ? height : width)});
      }
    }
  }
  return in;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The fastest of a few runs of `f`, in seconds.
template <class F>
double best_of(int runs, F f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    f();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

// A grid instance and its file, made once per size and removed at exit.
struct Fixture {
  Instance instance;
  std::string path;
  std::uintmax_t bytes = 0;
  double raw_read_s = 0;   // copying the file's bytes into memory
  double raw_write_s = 0;  // writing as many bytes from memory to a file

  explicit Fixture(std::size_t objects) {
    auto width = static_cast<int>(std::sqrt(static_cast<double>(objects)));
    while (objects % static_cast<std::size_t>(width) != 0) --width;
    instance = grid(width, static_cast<int>(objects / static_cast<std::size_t>(width)));
    path = (std::filesystem::temp_directory_path() / fmt::format("vela_io_bench_{}.json", objects))
               .string();
    vela::lb::write_instance(instance, path);
    bytes = std::filesystem::file_size(path);
    std::vector<char> buffer(bytes);
    raw_read_s = best_of(3, [&] {
      std::FILE* f = std::fopen(path.c_str(), "rb");
      benchmark::DoNotOptimize(std::fread(buffer.data(), 1, buffer.size(), f));
      std::fclose(f);
    });
    raw_write_s = best_of(3, [&] {
      std::FILE* f = std::fopen((path + ".raw").c_str(), "wb");
      benchmark::DoNotOptimize(std::fwrite(buffer.data(), 1, buffer.size(), f));
      std::fclose(f);
    });
    std::filesystem::remove(path + ".raw");
  }
  ~Fixture() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::filesystem::remove(path + ".out", ignored);
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
};

Fixture& fixture(std::size_t objects) {
  static std::map<std::size_t, Fixture> fixtures;
  return fixtures.try_emplace(objects, objects).first->second;
}

// Seconds per operation, kept for the summary table.
struct Row {
  double read_s = 0;
  double write_s = 0;
};
std::map<std::size_t, Row> rows;

void report(benchmark::State& state, const Fixture& f, double seconds, double baseline) {
  const auto objects = static_cast<double>(f.instance.objects.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(objects));
  state.counters["bytes_per_object"] = static_cast<double>(f.bytes) / objects;
  state.counters["x_raw_bytes"] = seconds / baseline;
}

void BM_ReadInstance(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<std::size_t>(state.range(0)));
  const auto start = Clock::now();
  for (auto _ : state) {
    Instance in = vela::lb::read_instance(f.path);
    benchmark::DoNotOptimize(in.objects.data());
  }
  const double seconds = seconds_since(start) / static_cast<double>(state.iterations());
  if (state.iterations() > 0) rows[f.instance.objects.size()].read_s = seconds;
  report(state, f, seconds, f.raw_read_s);
}

void BM_WriteInstance(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<std::size_t>(state.range(0)));
  const auto start = Clock::now();
  for (auto _ : state) vela::lb::write_instance(f.instance, f.path + ".out");
  const double seconds = seconds_since(start) / static_cast<double>(state.iterations());
  if (state.iterations() > 0) rows[f.instance.objects.size()].write_s = seconds;
  report(state, f, seconds, f.raw_write_s);
}

BENCHMARK(BM_ReadInstance)
    ->ArgName("objects")
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK(BM_WriteInstance)
    ->ArgName("objects")
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

void print_summary() {
  if (rows.empty()) return;
  fmt::print("\n{:>10} {:>9} {:>10} {:>9} {:>11} {:>9} {:>12}\n", "objects", "file MB", "bytes/obj",
             "read s", "read/bytes", "write s", "write/bytes");
  for (const auto& [objects, row] : rows) {
    const Fixture& f = fixture(objects);
    fmt::print("{:>10} {:>9.1f} {:>10.1f} {:>9.3f} {:>11.1f} {:>9.3f} {:>12.1f}\n", objects,
               static_cast<double>(f.bytes) / 1e6,
               static_cast<double>(f.bytes) / static_cast<double>(objects), row.read_s,
               row.read_s / f.raw_read_s, row.write_s, row.write_s / f.raw_write_s);
  }
  const auto budget = rows.find(1'000'000);
  if (budget != rows.end() && budget->second.read_s > 0) {
    fmt::print("10^6 objects read in {:.2f} s: {} the 3 s budget\n", budget->second.read_s,
               budget->second.read_s <= 3.0 ? "within" : "OVER");
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
