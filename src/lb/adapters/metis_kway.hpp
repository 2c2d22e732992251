// The one METIS k-way call of the strategies that partition with METIS (metis, grid-metis,
// grid-hybrid).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/partition.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

// Partitions `graph` into shares.size() parts, part p of about shares[p] of the total vertex
// weight (shares > 0, summing to 1), each at most `imbalance` (> 1) times its target; returns
// part[v] for every vertex. METIS runs with seed `seed`, so results repeat. Appends "edge_cut"
// (METIS' objective) to `stats`. One part, or no vertex: no METIS call. METIS fails (and prints
// to stdout) when its recursive bisection leaves a group of parts empty, so parts whose target is
// below one average vertex get nothing, parts are reordered (and the smallest dropped) until no
// group of parts is small enough to be emptied, and a graph with fewer than four vertices per
// part that has room for one (dropped or not), one where dropping left a single part of several,
// or one with a vertex heavier than a part's target is placed by the seed technique
// (grow_from_seeds) instead. Whatever METIS still prints goes to stderr (StdoutToStderr).
std::vector<std::int32_t> metis_kway(const PartitionGraph& graph, const std::vector<double>& shares,
                                     double imbalance, std::int32_t seed, StrategyStats& stats);

}  // namespace vela::lb::builtin
