// gpu-proxy-scaling: seed 004's Table II, scaling with problem size. Times numerics.hpp's
// scaling_element over an --n x --m array on the CPU or a CUDA device and prints the fastest
// of --repeats runs and the elements' sum (the same bits on both back ends). The loop's inner
// trip is serial, so the CPU's time halves with --m while a device's stops falling once the
// array no longer fills it: what an over-decomposed GPU code must watch for (docs/results/
// gpu-proxy.md). Costs: n * m * inner steps a run; memory 8 * n * m bytes.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <string>

#include "backend.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gpu-proxy-scaling: seed 004's scaling loop (Table II) on the CPU or a CUDA device"};
  std::string backend = "cpu";
  int n = 1024, m = 512, inner = 20000, repeats = 3;
  app.add_option("--backend", backend, "Where the loop runs: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--n", n, "Rows (the first parallel loop)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--m", m, "Columns (the second parallel loop)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--inner", inner, "Serial steps per element")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Runs; the fastest is printed")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  if (static_cast<long>(n) * m > (1L << 31)) {
    fmt::print(stderr, "gpu-proxy-scaling: --n {} --m {}: more than 2^31 elements\n", n, m);
    return 1;
  }
  try {
    double best = 0.0, sum = 0.0;
    for (int r = 0; r < repeats; ++r) {
      const gpu_proxy::ScalingRun run = backend == "cuda" ? gpu_proxy::scaling_cuda(n, m, inner)
                                                          : gpu_proxy::scaling_cpu(n, m, inner);
      best = r == 0 ? run.seconds : std::min(best, run.seconds);
      sum = run.sum;
    }
    fmt::print("seconds: {:.6f}\nsum: {:a}\n", best, sum);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpu-proxy-scaling: --backend {}: {}\n", backend, e.what());
    return 1;
  }
}
