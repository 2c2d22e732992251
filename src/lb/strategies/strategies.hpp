// One function per strategy, each defined in its own file; registry.cpp lists them.
#pragma once

#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

StrategyInfo dummy();
StrategyInfo rotate();
StrategyInfo random();
StrategyInfo greedy();
StrategyInfo refine();
StrategyInfo refine_swap();
StrategyInfo greedy_refine();
StrategyInfo hilbert();
StrategyInfo hilbert_distributed();
StrategyInfo refine_comm();
StrategyInfo rec_bisect_bf();
StrategyInfo diffusion();
StrategyInfo metis();
StrategyInfo scotch();
StrategyInfo grid_comm();
StrategyInfo grid_metis();
StrategyInfo grid_hybrid();
StrategyInfo hierarchical();
StrategyInfo hypergraph();
StrategyInfo optimal();

}  // namespace vela::lb::builtin
