#include "vela/lb/strategies/registry.hpp"

#include <utility>

#include "keep_input.hpp"
#include "model/registry.hpp"
#include "strategies.hpp"

namespace vela::lb {

namespace {

// The partitioners answer with a new placement computed from scratch (curve order, graph or
// hypergraph parts, cluster splits), which can be worse in balance than the one they were given
// (objects heavier than a PE's share, more PEs than objects): they keep the input then
// (keep_input.hpp), within their own allowance over the ideal time. The others need no such
// rule or must not have it: refine and its kin never raise the maximum by construction, greedy
// and optimal balance best, hierarchical's levels are registered strategies that bring their
// own, diffusion is one local step of many, and rotate, random and dummy exist to move objects
// (or not) whatever the balance. hilbert-distributed is the model of what the PEs compute in
// the runtime, each knowing only its own objects, and must give their answer bit for bit.
StrategyInfo no_allowance(StrategyInfo info) {
  return builtin::keep_input_when_worse(std::move(info), [](const ParamValues&) { return 1.0; });
}

StrategyInfo imbalance_allowance(StrategyInfo info) {
  return builtin::keep_input_when_worse(std::move(info),
                                        [](const ParamValues& p) { return p.get("imbalance"); });
}

StrategyInfo tolerance_allowance(StrategyInfo info) {
  return builtin::keep_input_when_worse(
      std::move(info), [](const ParamValues& p) { return 1.0 + p.get("tolerance"); });
}

registry_detail::Registry<StrategyInfo>& registry() {
  // The built-in strategies, in the order listings show them; user entries follow.
  static registry_detail::Registry<StrategyInfo> all("strategy", [] {
    return std::vector<StrategyInfo>{
        builtin::greedy(),
        builtin::refine(),
        builtin::refine_swap(),
        builtin::greedy_refine(),
        no_allowance(builtin::hilbert()),
        builtin::hilbert_distributed(),
        builtin::refine_comm(),
        no_allowance(builtin::rec_bisect_bf()),
        builtin::diffusion(),
        imbalance_allowance(builtin::metis()),
        imbalance_allowance(builtin::scotch()),
        tolerance_allowance(builtin::grid_comm()),
        tolerance_allowance(builtin::grid_metis()),
        tolerance_allowance(builtin::grid_hybrid()),
        builtin::hierarchical(),
        imbalance_allowance(builtin::hypergraph()),
        builtin::optimal(),
        builtin::rotate(),
        builtin::random(),
        builtin::dummy(),
    };
  }());
  return all;
}

}  // namespace

std::vector<StrategyInfo> strategies() {
  return registry().all();
}

const StrategyInfo& find_strategy(const std::string& name) {
  return registry().find(name);
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const RawParams& params) {
  const StrategyInfo& info = find_strategy(name);
  return info.make(ParamValues(info.name, info.params, params));
}

void register_strategy(StrategyInfo info) {
  registry().add(std::move(info));
}

}  // namespace vela::lb
