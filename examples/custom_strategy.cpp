// Registers the "snake" strategy, then runs it and a built-in one by name on a generated
// instance, as vela-lb compare would, and prints one line per strategy.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "snake_strategy.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"

int main() {
  example::register_snake();

  vela::lb::GammaOptions options;
  options.objects = 1000;
  options.pes = 16;
  options.seed = 7;
  const vela::lb::Instance instance = vela::lb::generate_gamma(options);

  std::printf("%-8s %12s %12s %10s %8s\n", "strategy", "lambda_before", "lambda_after",
              "migrations", "rounds");
  for (const std::string name : {"snake", "greedy"}) {
    std::unique_ptr<vela::lb::Strategy> strategy = vela::lb::make_strategy(name);
    const vela::lb::StrategyReport report = vela::lb::run_strategy(*strategy, name, instance);
    double rounds = 0.0;
    for (const auto& [stat, value] : report.stats) {
      if (stat == "rounds") rounds = value;
    }
    std::printf("%-8s %12.4f %12.4f %10llu %8.0f\n", name.c_str(), report.before.imbalance,
                report.after.imbalance, static_cast<unsigned long long>(report.moved.count),
                rounds);
    // The placement is snake's own: the heaviest objects go to PEs 0, 1, ..., P-1, then back
    // from P-1 to 0. Printed for the 2P heaviest.
    if (name == "snake") {
      std::vector<std::size_t> order(instance.objects.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto& x = instance.objects[a];
        const auto& y = instance.objects[b];
        return x.load != y.load ? x.load > y.load : x.id < y.id;
      });
      std::printf("snake PEs of the heaviest objects:");
      for (std::size_t rank = 0; rank < 2 * instance.pes.size(); ++rank) {
        std::printf(" %d", report.assignment.pe[order[rank]]);
      }
      std::printf("\n");
    }
  }
  return 0;
}
