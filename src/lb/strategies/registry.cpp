#include "vela/lb/strategies/registry.hpp"

#include "strategies.hpp"

namespace vela::lb {

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> all = {
      builtin::greedy(),        builtin::refine(),        builtin::refine_swap(),
      builtin::greedy_refine(), builtin::hilbert(),       builtin::hilbert_distributed(),
      builtin::refine_comm(),   builtin::rec_bisect_bf(), builtin::diffusion(),
      builtin::metis(),         builtin::scotch(),        builtin::grid_comm(),
      builtin::grid_metis(),    builtin::grid_hybrid(),   builtin::hierarchical(),
      builtin::hypergraph(),    builtin::optimal(),       builtin::rotate(),
      builtin::random(),        builtin::dummy(),
  };
  return all;
}

const StrategyInfo& find_strategy(const std::string& name) {
  for (const StrategyInfo& info : strategies()) {
    if (info.name == name) return info;
  }
  std::string known;
  for (const StrategyInfo& info : strategies()) known += (known.empty() ? "" : ", ") + info.name;
  throw ParamError("unknown strategy '" + name + "' (known: " + known + ")");
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const RawParams& params) {
  const StrategyInfo& info = find_strategy(name);
  return info.make(ParamValues(info.name, info.params, params));
}

}  // namespace vela::lb
