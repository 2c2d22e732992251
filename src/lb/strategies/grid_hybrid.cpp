// GridHybridLB: phase 1 as grid-metis (objects to clusters by a METIS cut of the message
// graph, clusters sized to their capacity); phase 2 places each cluster's objects with the seed
// technique (seed_growth.hpp): one heavy border object per PE as a seed, then the border objects
// (those talking to another cluster), each PE in turn taking the one it talks to most, then the
// local objects the same way, always feeding the PE that would finish first, and jumping the
// heaviest-first order only by less than `tolerance` in load or while the PE keeps room for the
// heaviest object left. So every PE gets its share of work and of border objects (which helps
// hide WAN latency) and keeps neighbours together. Pinned objects stay, count as fixed work and
// attract the objects they talk to. Finally regions are swapped between interchangeable PEs
// (same speed and background, nothing pinned) so that as few objects as possible move.
// O((n + e) log n) after phase 1.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include "kernels/grid_partition.hpp"
#include "kernels/pe_times.hpp"
#include "kernels/seed_growth.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo grid_hybrid();

namespace {

// For every cluster, the communication of its objects with the pinned objects of its PEs.
std::vector<std::vector<Anchor>> anchors_by_cluster(const Instance& instance,
                                                    const GridPlan& plan) {
  const std::size_t n = instance.objects.size();
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> position(n, kNone);  // object -> vertex of its cluster's subgraph
  for (const std::vector<std::uint32_t>& members : plan.members) {
    for (std::size_t k = 0; k < members.size(); ++k) {
      position[plan.graph.object[members[k]]] = static_cast<std::uint32_t>(k);
    }
  }
  std::vector<std::vector<Anchor>> anchors(plan.members.size());
  const auto add = [&](std::uint32_t pinned, std::uint32_t free, std::uint64_t messages) {
    if (position[free] == kNone) return;
    const auto pe = static_cast<std::size_t>(instance.objects[pinned].pe);
    const std::uint32_t c = plan.layout.of_pe[pe];
    if (plan.cluster_of_object[free] != c) return;
    const double w =
        std::max(1.0, std::round(static_cast<double>(messages) * plan.graph.edge_scale));
    anchors[c].push_back({position[free], plan.layout.local[pe], static_cast<std::uint64_t>(w)});
  };
  for (const Edge& e : instance.edges) {
    if (e.from >= n || e.to >= n || e.from == e.to) continue;
    const bool from_pinned = !instance.objects[e.from].migratable;
    const bool to_pinned = !instance.objects[e.to].migratable;
    if (from_pinned && !to_pinned) add(e.from, e.to, e.messages);
    if (to_pinned && !from_pinned) add(e.to, e.from, e.messages);
  }
  return anchors;
}

class GridHybridStrategy final : public Strategy {
 public:
  explicit GridHybridStrategy(const ParamValues& params)
      : tolerance_(params.get("tolerance")), seed_(static_cast<std::int32_t>(params.get("seed"))) {}

  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    const std::vector<double> fixed = pe_work(instance, current, true);
    std::vector<char> has_pinned(instance.pes.size(), 0);
    for (const Object& o : instance.objects) {
      if (!o.migratable) has_pinned[static_cast<std::size_t>(o.pe)] = 1;
    }
    std::vector<std::vector<Anchor>> anchors;
    bool anchors_ready = false;
    return solve_by_clusters(
        instance, 1.0 + tolerance_, seed_,
        [&](const GridPlan& plan, std::uint32_t cluster, const PartitionGraph& sub) {
          if (!anchors_ready) {
            anchors = anchors_by_cluster(instance, plan);
            anchors_ready = true;
          }
          const std::vector<PeId>& pes = plan.layout.pes[cluster];
          GrowthProblem problem;
          problem.graph = &sub;
          problem.tolerance = tolerance_;
          problem.anchors = std::move(anchors[cluster]);
          for (const std::uint32_t i : sub.object) {
            problem.load.push_back(instance.objects[i].load);
            problem.first.push_back(plan.border[i]);
          }
          // Interchangeable PEs share a class; a PE with pinned objects is a class of its own.
          std::vector<std::tuple<std::size_t, double, double>> kind;
          for (std::size_t t = 0; t < pes.size(); ++t) {
            const auto p = static_cast<std::size_t>(pes[t]);
            problem.targets.push_back(instance.pes[p]);
            problem.work.push_back(fixed[p]);
            kind.emplace_back(has_pinned[p] != 0 ? t + 1 : 0, instance.pes[p].speed,
                              instance.pes[p].background);
          }
          const std::vector<std::int32_t> region = grow_from_seeds(problem);
          return parts_to_cluster_pes(instance, plan, cluster, sub, region, equal_classes(kind));
        });
  }

 private:
  double tolerance_;
  std::int32_t seed_;
};

}  // namespace

StrategyInfo grid_hybrid() {
  return {"grid-hybrid",
          "objects to clusters by METIS message cut (as grid-metis), then per cluster the seed "
          "technique: border objects, then local ones, grown next to what they talk to on the "
          "PE that would finish first",
          {{"tolerance",
            "allowed excess of a cluster's work over its target, and how much lighter than the "
            "heaviest object left a neighbour may be to jump ahead of it",
            0.10, 0.001, 1.0, false},
           {"seed", "METIS random seed (phase 1)", 1.0, 0.0, 2147483647.0, true}},
          [](const ParamValues& p) { return std::make_unique<GridHybridStrategy>(p); }};
}

}  // namespace vela::lb::builtin
