// Scotch: static mapping of the load-weighted communication graph onto a weighted
// complete architecture (SCOTCH_archCmpltw, one terminal per PE weighted by its share, see
// pe_shares), then parts mapped to PEs so that as few objects as possible move
// (solve_by_partition). Each call runs in its own Scotch context with a private random
// generator seeded from parameter `seed` and the deterministic option set, so results repeat;
// calls are still serialised by a mutex as a precaution (the Scotch call: scotch_map.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "adapters/scotch_map.hpp"
#include "kernels/partition.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class ScotchStrategy final : public Strategy {
 public:
  explicit ScotchStrategy(const ParamValues& params)
      : imbalance_(params.get("imbalance")),
        seed_(static_cast<std::int32_t>(params.get("seed"))),
        quality_(params.get("quality") != 0.0) {}

  Solution solve(const Instance& instance) override {
    return solve_by_partition(instance, [this](const PartitionGraph& g,
                                               const std::vector<double>& shares, StrategyStats&) {
      return scotch_map(g, shares, imbalance_, seed_, quality_);
    });
  }

 private:
  double imbalance_;
  std::int32_t seed_;
  bool quality_;
};

}  // namespace

StrategyInfo scotch() {
  return {
      "scotch",
      "Scotch static mapping of the load-weighted communication graph onto PEs weighted by "
      "capacity, mapped to PEs to minimise migrations",
      {{"imbalance", "allowed max part weight over its target", 1.05, 1.001, 2.0, false},
       {"seed", "Scotch random seed", 1.0, 0.0, 2147483647.0, true},
       {"quality", "1: Scotch's quality strategy (slower), 0: its default", 0.0, 0.0, 1.0, true}},
      [](const ParamValues& p) { return std::make_unique<ScotchStrategy>(p); }};
}

}  // namespace vela::lb::builtin
