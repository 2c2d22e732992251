// Metis: k-way partition of the load-weighted communication graph with METIS, one part
// per PE sized to the PE's share (speed and background, see pe_shares), then parts mapped to
// PEs so that as few objects as possible move (solve_by_partition). Deterministic: METIS runs
// with a fixed seed (parameter `seed`).
#include <cstdint>
#include <memory>
#include <vector>

#include "adapters/metis_kway.hpp"
#include "kernels/partition.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class MetisStrategy final : public Strategy {
 public:
  explicit MetisStrategy(const ParamValues& params)
      : imbalance_(params.get("imbalance")), seed_(static_cast<std::int32_t>(params.get("seed"))) {}

  Solution solve(const Instance& instance) override {
    return solve_by_partition(
        instance,
        [this](const PartitionGraph& g, const std::vector<double>& shares, StrategyStats& stats) {
          return metis_kway(g, shares, imbalance_, seed_, stats);
        });
  }

 private:
  double imbalance_;
  std::int32_t seed_;
};

}  // namespace

StrategyInfo metis() {
  return {"metis",
          "METIS k-way partition of the load-weighted communication graph, parts sized to PE "
          "capacity and mapped to PEs to minimise migrations",
          {{"imbalance", "allowed max part weight over its target (METIS ubvec)", 1.05, 1.001, 2.0,
            false},
           {"seed", "METIS random seed", 1.0, 0.0, 2147483647.0, true}},
          [](const ParamValues& p) { return std::make_unique<MetisStrategy>(p); }};
}

}  // namespace vela::lb::builtin
