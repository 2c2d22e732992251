// The seed technique of GridHybridLB, on any weighted graph: places vertices on targets
// (PEs, or parts sized by shares) so that each target's load stays level while it grows a region
// of vertices that talk to each other. Used by grid-hybrid within each cluster and by metis_kway
// for graphs too small to hand to METIS.
#pragma once

#include <cstdint>
#include <vector>

#include "partition.hpp"
#include "vela/lb/model/instance.hpp"

namespace vela::lb::builtin {

// Communication between a vertex and work already fixed on a target (a pinned object).
struct Anchor {
  std::uint32_t vertex = 0;
  std::uint32_t target = 0;
  std::uint64_t weight = 0;
};

struct GrowthProblem {
  const PartitionGraph* graph = nullptr;  // vertices and weighted edges among them
  std::vector<double> load;               // per vertex, work at speed 1
  std::vector<char> first;                // per vertex: placed in the first stage (border objects)
  std::vector<Pe> targets;                // speed and background of each target
  std::vector<double> work;               // per target, work already there
  std::vector<Anchor> anchors;
  double tolerance = 0.1;
};

// The time T at which PEs holding `fixed_work` would all finish if `work` more were split freely:
// sum over PEs of speed * max(0, T - background - fixed_work / speed) = work.
double level_time(const std::vector<Pe>& pes, const std::vector<double>& fixed_work, double work);

// Places every vertex; returns its target. In order:
//  1. seeds: as many vertices as targets (or all, if fewer), the heaviest `first` ones, then the
//     heaviest others, each on the target where it finishes first: one per target when the
//     targets start level (the original takes the heaviest of all; starting from the first
//     stage's vertices keeps each target's region in one piece);
//  2. the `first` vertices, then 3. the rest: repeatedly, the target where the heaviest vertex
//     left in the stage would finish first takes the vertex of the stage with the most
//     communication with its vertices and anchors, among those with at least (1 - tolerance) of
//     the heaviest load, or after which the target still has room for the heaviest vertex left
//     below the level time (so it can never be the one that overshoots); when none qualifies, it
//     takes the heaviest vertex left.
// Each target keeps a lazy max-heap of candidates by communication (an entry per placed
// neighbour, stale ones dropped when met), so the whole run is O((n + e) log n) for n vertices
// and e edges, plus O(n log T) for the T targets; not the O(n^3) of the original.
std::vector<std::int32_t> grow_from_seeds(const GrowthProblem& problem);

}  // namespace vela::lb::builtin
