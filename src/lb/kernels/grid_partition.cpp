// Phase 1 of the grid partitioners and the driver around phase 2 (see grid_partition.hpp).
#include "grid_partition.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "adapters/metis_kway.hpp"
#include "pe_times.hpp"
#include "seed_growth.hpp"

namespace vela::lb::builtin {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

ClusterLayout cluster_layout(const Instance& instance) {
  ClusterLayout layout;
  const std::size_t pes = instance.pes.size();
  std::map<std::int32_t, std::uint32_t> dense;
  for (const Pe& pe : instance.pes) dense.emplace(pe.cluster, 0);
  for (auto& [id, index] : dense) {
    index = static_cast<std::uint32_t>(layout.id.size());
    layout.id.push_back(id);
  }
  layout.of_pe.resize(pes);
  layout.local.resize(pes);
  layout.pes.resize(layout.id.size());
  for (std::size_t p = 0; p < pes; ++p) {
    const std::uint32_t c = dense.at(instance.pes[p].cluster);
    layout.of_pe[p] = c;
    layout.local[p] = static_cast<std::uint32_t>(layout.pes[c].size());
    layout.pes[c].push_back(static_cast<PeId>(p));
  }
  return layout;
}

GridPlan plan_clusters(const Instance& instance, double imbalance, std::int32_t seed) {
  GridPlan plan;
  plan.layout = cluster_layout(instance);
  plan.graph = build_partition_graph(instance, EdgeWeight::messages);
  const ClusterLayout& layout = plan.layout;
  const std::size_t clusters = layout.id.size();
  const std::size_t nv = plan.graph.vertices();

  std::vector<std::uint32_t> vertex_cluster(nv, 0);
  if (clusters > 1 && nv > 0) {
    const std::vector<double> shares = pe_shares(instance);
    std::vector<double> target(clusters, 0.0);
    for (std::size_t p = 0; p < shares.size(); ++p) target[layout.of_pe[p]] += shares[p];
    StrategyStats metis_stats;
    const std::vector<std::int32_t> part =
        metis_kway(plan.graph, target, imbalance, seed, metis_stats);
    plan.cluster_cut = metis_stats.empty() ? 0.0 : metis_stats.back().second;
    std::vector<PartMember> members(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      const Object& o = instance.objects[plan.graph.object[v]];
      members[v] = {part[v],
                    static_cast<std::int32_t>(layout.of_pe[static_cast<std::size_t>(o.pe)]),
                    o.size + 1};
    }
    const std::vector<std::int32_t> cluster_of_part = match_parts(members, equal_classes(target));
    for (std::size_t v = 0; v < nv; ++v) {
      vertex_cluster[v] =
          static_cast<std::uint32_t>(cluster_of_part[static_cast<std::size_t>(part[v])]);
    }
  }

  const std::size_t n = instance.objects.size();
  plan.cluster_of_object.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    plan.cluster_of_object[i] = layout.of_pe[static_cast<std::size_t>(instance.objects[i].pe)];
  }
  plan.members.resize(clusters);
  for (std::size_t v = 0; v < nv; ++v) {
    plan.cluster_of_object[plan.graph.object[v]] = vertex_cluster[v];
    plan.members[vertex_cluster[v]].push_back(static_cast<std::uint32_t>(v));
  }
  plan.border.assign(n, 0);
  for (const Edge& e : instance.edges) {
    if (e.from >= n || e.to >= n) continue;
    if (plan.cluster_of_object[e.from] != plan.cluster_of_object[e.to]) {
      plan.border[e.from] = plan.border[e.to] = 1;
    }
  }
  return plan;
}

std::vector<double> level_shares(const std::vector<Pe>& pes, const std::vector<double>& fixed_work,
                                 double work) {
  const std::size_t count = pes.size();
  std::vector<double> share(count, 0.0);
  if (count == 0) return share;
  std::vector<double> fixed(count);
  for (std::size_t p = 0; p < count; ++p) fixed[p] = pe_time(pes[p], fixed_work[p]);
  double sum = 0.0;
  if (work > 0.0) {
    const double level = level_time(pes, fixed_work, work);
    for (std::size_t p = 0; p < count; ++p) {
      sum += share[p] = pes[p].speed * std::max(0.0, level - fixed[p]);
    }
  }
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    sum = 0.0;
    for (std::size_t p = 0; p < count; ++p) sum += share[p] = pes[p].speed;
  }
  const double floor = 1e-6 / static_cast<double>(count);
  double total = 0.0;
  for (double& s : share) total += s = std::max(s / sum, floor);
  for (double& s : share) s /= total;
  return share;
}

std::vector<PeId> parts_to_cluster_pes(const Instance& instance, const GridPlan& plan,
                                       std::uint32_t cluster, const PartitionGraph& sub,
                                       const std::vector<std::int32_t>& part,
                                       const std::vector<std::uint32_t>& pe_class) {
  std::vector<PartMember> members(sub.vertices());
  for (std::size_t v = 0; v < sub.vertices(); ++v) {
    const Object& o = instance.objects[sub.object[v]];
    const auto now = static_cast<std::size_t>(o.pe);
    const bool here = plan.layout.of_pe[now] == cluster;
    members[v] = {part[v], here ? static_cast<std::int32_t>(plan.layout.local[now]) : -1,
                  o.size + 1};
  }
  const std::vector<std::int32_t> pe_of_part = match_parts(members, pe_class);
  const std::vector<PeId>& pes = plan.layout.pes[cluster];
  std::vector<PeId> placed(sub.vertices());
  for (std::size_t v = 0; v < sub.vertices(); ++v) {
    placed[v] = pes[static_cast<std::size_t>(pe_of_part[static_cast<std::size_t>(part[v])])];
  }
  return placed;
}

Solution solve_by_clusters(const Instance& instance, double imbalance, std::int32_t seed,
                           const PlaceCluster& place) {
  const Assignment current = current_assignment(instance);
  Assignment a = current;
  if (instance.pes.empty() || instance.objects.empty()) {
    return {std::move(a),
            {{"moves", 0.0},
             {"border_objects", 0.0},
             {"cluster_cut", 0.0},
             {"phase1_ms", 0.0},
             {"phase2_ms", 0.0}}};
  }
  auto start = std::chrono::steady_clock::now();
  const GridPlan plan = plan_clusters(instance, imbalance, seed);
  const double phase1_ms = ms_since(start);

  start = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> group(plan.graph.vertices());
  for (std::size_t v = 0; v < group.size(); ++v) {
    group[v] = plan.cluster_of_object[plan.graph.object[v]];
  }
  const std::vector<PartitionGraph> subs = split_graph(plan.graph, group, plan.members.size());
  for (std::uint32_t c = 0; c < plan.members.size(); ++c) {
    const std::vector<std::uint32_t>& members = plan.members[c];
    if (members.empty()) continue;
    const PartitionGraph& sub = subs[c];
    const std::vector<PeId> pe = place(plan, c, sub);
    if (pe.size() != members.size()) throw std::logic_error("grid phase 2 returned wrong size");
    for (std::size_t k = 0; k < members.size(); ++k) {
      const auto p = static_cast<std::size_t>(pe[k]);
      if (pe[k] < 0 || p >= instance.pes.size() || plan.layout.of_pe[p] != c) {
        throw std::logic_error("grid phase 2 placed an object outside its cluster");
      }
      a.pe[sub.object[k]] = pe[k];
    }
  }
  const double phase2_ms = ms_since(start);

  double borders = 0.0;
  for (const char b : plan.border) borders += b != 0 ? 1.0 : 0.0;
  StrategyStats stats = {{"moves", count_moves(current, a)},
                         {"border_objects", borders},
                         {"cluster_cut", plan.cluster_cut},
                         {"phase1_ms", phase1_ms},
                         {"phase2_ms", phase2_ms}};
  return {std::move(a), std::move(stats)};
}

}  // namespace vela::lb::builtin
