// The partitioning strategies' promise never to answer with a worse balance than the placement
// they were given (registry.cpp applies it to metis, scotch, hypergraph, hilbert, rec-bisect-bf,
// grid-comm, grid-metis and grid-hybrid).
#pragma once

#include <functional>

#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

// How far above the ideal time (ideal_time in metrics.hpp) a strategy's own promise lets its
// busiest PE finish, as a factor >= 1 read from its parameters: METIS' `imbalance` 1.05, or
// 1 + `tolerance`, or 1 for a strategy with no such allowance.
using Allowance = std::function<double(const ParamValues&)>;

// `info` with every strategy it makes wrapped in the rule: when the answer's busiest PE finishes
// later than both the input placement's busiest PE and allowance x the ideal time, the solution
// is the input placement, unchanged. So an answer never has a higher maximum PE load than the
// input, except within the strategy's own allowance: a partitioner that trades up to 5% of
// balance for a lower cut (METIS' imbalance) may still do so on an input balanced better than
// that, but one whose answer is worse than the input and breaks its promise (objects heavier
// than a PE's share, more PEs than objects) leaves the placement alone.
//
// Every solution gets the statistic "kept_input": 1 when the input placement was kept (the
// strategy's other statistics then describe the answer set aside), else 0.
StrategyInfo keep_input_when_worse(StrategyInfo info, Allowance allowance);

// The check itself: whether `answer` is to be set aside for the current placement of `instance`.
bool worse_than_input(const Instance& instance, const Assignment& answer, double allowance);

}  // namespace vela::lb::builtin
