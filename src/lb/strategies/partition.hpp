// Shared by the graph-partitioner strategies (ST-7, metis.cpp and scotch.cpp): the object
// graph in CSR form, the target share of each PE and the part-to-PE mapping that keeps
// objects where they are.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vela/lb/strategy.hpp"

namespace vela::lb::builtin {

// The migratable objects as an undirected graph in CSR form, 0-based. Vertex weights are loads
// scaled to integers (at most 10^6 each and about 10^9 in all, at least 1, so zero loads weigh
// 1 and an all-zero instance balances object counts); edge weights are the bytes of both
// directions merged, scaled so that their total stays below about 10^9, at least 1. Self loops
// and edges touching a non-migratable object are dropped.
struct PartitionGraph {
  std::vector<std::uint32_t> object;  // vertex -> position in Instance::objects
  std::vector<std::int32_t> xadj;     // size vertices + 1
  std::vector<std::int32_t> adjncy;
  std::vector<std::int32_t> vwgt;
  std::vector<std::int32_t> adjwgt;

  std::size_t vertices() const { return object.size(); }
};

PartitionGraph build_partition_graph(const Instance& instance);

// Target fraction of the migratable work for each PE, summing to 1: proportional to
// speed * max(0, T* - fixed) with T* = ideal_time(instance) and fixed the PE's background plus
// pinned work, so filling each PE to its share levels every PE at T*. Falls back to shares
// proportional to speed when there is no migratable work. Every share is > 0 (a PE with no
// room gets a negligible one, since the partitioners reject zero targets).
std::vector<double> pe_shares(const Instance& instance);

// Partitioner interface: given the graph and the target share of each part (one part per PE),
// returns part[v] in [0, P) for every vertex; `stats` may receive figures of the library.
using Partitioner = std::function<std::vector<std::int32_t>(
    const PartitionGraph& graph, const std::vector<double>& shares, StrategyStats& stats)>;

// Runs a partitioner and turns its parts into an assignment:
//  * P = 0 or no migratable object: the current placement; P = 1: everything on PE 0.
//  * Non-migratable objects are never given to the partitioner: they stay on their PE and
//    count, through pe_shares, as work their PE already has.
//  * Parts are mapped to PEs to minimise migration: overlap(part, pe) = bytes (size + 1 per
//    object, so zero-sized objects count) of the part's objects now on that PE; pairs are
//    taken greedily by largest overlap, each part and PE used once. Part p was sized for PE
//    p's share, so a part may only go to a PE with exactly the same share (with equal speeds,
//    no background and nothing pinned: any PE); leftover parts go to leftover PEs of their
//    share class in id order. O(n log n) in the number of objects.
Solution solve_by_partition(const Instance& instance, const Partitioner& partitioner);

}  // namespace vela::lb::builtin
