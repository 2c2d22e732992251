// The one Scotch call of the scotch strategy: a static mapping of a graph onto a weighted
// complete architecture.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/partition.hpp"

namespace vela::lb::builtin {

// Maps `graph` onto shares.size() terminals (SCOTCH_archCmpltw), terminal p weighted by
// shares[p] (as integers, about 10^6 in all, each >= 1), each part at most `imbalance` (> 1)
// times its target; returns part[v] for every vertex. `quality`: Scotch's quality strategy
// (slower) instead of its default. Each call runs in its own Scotch context with a private
// random generator seeded with `seed` and the deterministic option set, so results repeat;
// calls are still serialised by a mutex as a precaution. Throws std::runtime_error naming the
// Scotch call that failed.
std::vector<std::int32_t> scotch_map(const PartitionGraph& graph, const std::vector<double>& shares,
                                     double imbalance, std::int32_t seed, bool quality);

}  // namespace vela::lb::builtin
