// Shared by the graph-partitioner strategies (metis.cpp and scotch.cpp,
// grid_metis.cpp and grid_hybrid.cpp): the object graph in CSR form, the target share of each
// PE and the part-to-target matching that keeps objects where they are.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

// What an edge of the partition graph weighs: the bytes or the messages of both directions.
enum class EdgeWeight { bytes, messages };

// The migratable objects as an undirected graph in CSR form, 0-based. Vertex weights are loads
// scaled to integers (at most 10^6 each and about 10^9 in all, at least 1, so zero loads weigh
// 1 and an all-zero instance balances object counts); edge weights are the bytes (or messages)
// of both directions merged, scaled by `edge_scale` so that their total stays below about 10^9,
// at least 1. Self loops and edges touching a non-migratable object are dropped.
struct PartitionGraph {
  std::vector<std::uint32_t> object;  // vertex -> position in Instance::objects
  std::vector<std::int32_t> xadj;     // size vertices + 1
  std::vector<std::int32_t> adjncy;
  std::vector<std::int32_t> vwgt;
  std::vector<std::int32_t> adjwgt;
  double edge_scale = 1.0;  // adjwgt = clamp(round(raw * edge_scale), 1, ...)

  std::size_t vertices() const { return object.size(); }
};

PartitionGraph build_partition_graph(const Instance& instance,
                                     EdgeWeight weight = EdgeWeight::bytes);

// The subgraphs induced by the groups of vertices (group[v] < groups for every vertex v), each
// with its vertices in ascending order; edges between groups are dropped, weights kept. O(n + e).
std::vector<PartitionGraph> split_graph(const PartitionGraph& graph,
                                        const std::vector<std::uint32_t>& group,
                                        std::size_t groups);

// Target fraction of the migratable work for each PE, summing to 1: proportional to
// speed * max(0, T* - fixed) with T* = ideal_time(instance) and fixed the PE's background plus
// pinned work, so filling each PE to its share levels every PE at T*. Falls back to shares
// proportional to speed when there is no migratable work. Every share is > 0 (a PE with no
// room gets a negligible one, since the partitioners reject zero targets).
std::vector<double> pe_shares(const Instance& instance);

// Dense class ids: equal values get equal ids (numbered in order of first appearance).
template <typename T>
std::vector<std::uint32_t> equal_classes(const std::vector<T>& values);

// One vertex as the part matching sees it: the part it was put in, the target (PE or cluster) it
// is on now (-1: none of the targets) and what moving it costs.
struct PartMember {
  std::int32_t part = 0;
  std::int32_t current = -1;
  std::uint64_t weight = 1;
};

// Gives each of the K parts a distinct target in [0, K) so that the weight of members already on
// their part's target is large: pairs (part, target) are taken greedily by largest overlap, each
// part and target used once. Part p was sized for target p, so it may only go to a target of
// the same class (target_class[p]); leftover parts go to leftover targets of their class in id
// order. Returns the target of each part. O(n log n) in the number of members.
std::vector<std::int32_t> match_parts(const std::vector<PartMember>& members,
                                      const std::vector<std::uint32_t>& target_class);

// Partitioner interface: given the graph and the target share of each part (one part per PE),
// returns part[v] in [0, P) for every vertex; `stats` may receive figures of the library.
using Partitioner = std::function<std::vector<std::int32_t>(
    const PartitionGraph& graph, const std::vector<double>& shares, StrategyStats& stats)>;

// Runs a partitioner and turns its parts into an assignment:
//  * P = 0 or no migratable object: the current placement; P = 1: everything on PE 0.
//  * Non-migratable objects are never given to the partitioner: they stay on their PE and
//    count, through pe_shares, as work their PE already has.
//  * Parts are mapped to PEs by match_parts: overlap(part, pe) = bytes (size + 1 per object, so
//    zero-sized objects count) of the part's objects now on that PE; PEs are of one class when
//    their shares are equal (with equal speeds, no background and nothing pinned: all PEs).
Solution solve_by_partition(const Instance& instance, const Partitioner& partitioner);

template <typename T>
std::vector<std::uint32_t> equal_classes(const std::vector<T>& values) {
  std::map<T, std::uint32_t> ids;
  std::vector<std::uint32_t> cls(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    cls[i] = ids.try_emplace(values[i], static_cast<std::uint32_t>(ids.size())).first->second;
  }
  return cls;
}

}  // namespace vela::lb::builtin
