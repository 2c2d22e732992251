// Runs a strategy on an instance and measures the result: what `vela-lb run/compare`, the
// benchmarks and the runtime's balancer report.
#pragma once

#include <cstdint>
#include <string>

#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb {

struct StrategyReport {
  std::string strategy;
  Assignment assignment;
  StrategyStats stats;
  LoadStats before;
  LoadStats after;
  MigrationStats moved;
  CommCut cut_before;
  CommCut cut_after;
  std::uint64_t hypergraph_cut_before = 0;  // over Instance::hyperedges (0 without any)
  std::uint64_t hypergraph_cut_after = 0;
  double time_ms = 0.0;  // wall time of Strategy::solve alone
};

// Throws std::logic_error naming strategy `name` when `assignment` breaks the Strategy
// contract on `instance` (an object unassigned or on an invalid PE, a non-migratable object
// moved).
void check_strategy_contract(const std::string& name, const Instance& instance,
                             const Assignment& assignment);

// Times `strategy.solve(instance)` and measures its answer. Throws std::logic_error when the
// strategy breaks its contract (an object unassigned or on an invalid PE, a non-migratable
// object moved): that is a bug in the strategy, not bad input.
StrategyReport run_strategy(Strategy& strategy, const std::string& name, const Instance& instance);

// The instance with every object placed as `assignment` says.
Instance apply(Instance instance, const Assignment& assignment);

}  // namespace vela::lb
