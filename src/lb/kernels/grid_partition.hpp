// Shared by grid-metis and grid-hybrid: phase 1 puts every migratable object in a
// cluster by a METIS partition of the message graph; phase 2, which differs, places the objects
// of each cluster on the cluster's PEs.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "partition.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

// The clusters of an instance, numbered densely in ascending order of Pe::cluster.
struct ClusterLayout {
  std::vector<std::int32_t> id;        // Pe::cluster of each dense cluster
  std::vector<std::uint32_t> of_pe;    // dense cluster of each PE
  std::vector<std::uint32_t> local;    // position of each PE in its cluster's list
  std::vector<std::vector<PeId>> pes;  // PEs of each cluster, ascending
};

ClusterLayout cluster_layout(const Instance& instance);

// What phase 1 decided.
struct GridPlan {
  ClusterLayout layout;
  PartitionGraph graph;  // migratable objects; vertex weight = load, edge weight = messages
  std::vector<std::uint32_t> cluster_of_object;  // pinned objects: their PE's cluster
  std::vector<std::vector<std::uint32_t>>
      members;               // vertices of `graph` in each cluster, ascending
  std::vector<char> border;  // per object: talks to another cluster
  double cluster_cut = 0.0;  // METIS' edge cut of phase 1, in messages
};

// Phase 1. The target of cluster c is the sum of pe_shares over its PEs (so speeds, background
// and pinned work all count); METIS splits the migratable objects into one part per cluster
// within `imbalance` of those targets, cutting as few messages as it can, and match_parts gives
// each part the cluster already holding most of its objects among clusters of equal target.
GridPlan plan_clusters(const Instance& instance, double imbalance, std::int32_t seed);

// Shares of the PEs of one cluster for `work` more load: proportional to speed * max(0, T -
// fixed) with T the level time (sum of speed * max(0, T - fixed) = work) and fixed the PE's
// background plus fixed_work / speed; proportional to speed when work is 0. Each share > 0.
std::vector<double> level_shares(const std::vector<Pe>& pes, const std::vector<double>& fixed_work,
                                 double work);

// Phase 2 for one cluster: the PE (a PE of the cluster) of every vertex of `sub`, the subgraph
// of plan.graph induced by plan.members[cluster].
using PlaceCluster = std::function<std::vector<PeId>(const GridPlan& plan, std::uint32_t cluster,
                                                     const PartitionGraph& sub)>;

// The end of phase 2 for one cluster, once its vertices are split into one part per PE of the
// cluster (part[v], numbered like plan.layout.pes[cluster]): match_parts gives each part the PE
// of the cluster already holding most of its objects (size + 1 per object) among PEs of the same
// class (pe_class, as equal_classes numbers them), so that as few objects as possible move.
// Returns the PE of every vertex of `sub`.
std::vector<PeId> parts_to_cluster_pes(const Instance& instance, const GridPlan& plan,
                                       std::uint32_t cluster, const PartitionGraph& sub,
                                       const std::vector<std::int32_t>& part,
                                       const std::vector<std::uint32_t>& pe_class);

// Phase 1, then `place` for every cluster that received objects. Non-migratable objects stay.
// Stats: moves, border_objects (objects talking to another cluster after phase 1), cluster_cut,
// phase1_ms, phase2_ms.
Solution solve_by_clusters(const Instance& instance, double imbalance, std::int32_t seed,
                           const PlaceCluster& place);

}  // namespace vela::lb::builtin
