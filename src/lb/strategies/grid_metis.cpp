// GridMetisLB: graph partitioning that knows the grid's two levels of communication.
// Phase 1 (grid_partition.cpp) splits the migratable objects into one part per cluster by
// message count, each cluster's part sized to its capacity. Phase 2 partitions each cluster's
// subgraph (edges to other clusters dropped: phase 1 already fixed that cut) into one part per
// PE of the cluster with METIS, vertex weight = load, part targets = the PEs' level shares of the
// cluster's work (speed, background and pinned work: the seed's "speed / slowest speed"
// multipliers, generalised), then gives each part the PE of the cluster that already holds most
// of its objects among PEs of equal share. Each phase may exceed its targets by a factor
// sqrt(1 + tolerance), so a PE's work stays within (1 + tolerance) of its ideal share.
// Non-migratable objects stay and count as fixed work.
// Deterministic: METIS runs with parameter `seed`.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "adapters/metis_kway.hpp"
#include "kernels/grid_partition.hpp"
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo grid_metis();

namespace {

class GridMetisStrategy final : public Strategy {
 public:
  explicit GridMetisStrategy(const ParamValues& params)
      : imbalance_(std::sqrt(1.0 + params.get("tolerance"))),
        seed_(static_cast<std::int32_t>(params.get("seed"))) {}

  Solution solve(const Instance& instance) override {
    const std::vector<double> fixed = pe_work(instance, current_assignment(instance), true);
    return solve_by_clusters(
        instance, imbalance_, seed_,
        [&](const GridPlan& plan, std::uint32_t cluster, const PartitionGraph& sub) {
          const std::vector<PeId>& pes = plan.layout.pes[cluster];
          if (pes.size() == 1) return std::vector<PeId>(sub.vertices(), pes[0]);
          std::vector<Pe> cluster_pes;
          std::vector<double> cluster_fixed;
          for (const PeId p : pes) {
            cluster_pes.push_back(instance.pes[static_cast<std::size_t>(p)]);
            cluster_fixed.push_back(fixed[static_cast<std::size_t>(p)]);
          }
          double work = 0.0;
          for (const std::uint32_t i : sub.object) work += instance.objects[i].load;
          const std::vector<double> shares = level_shares(cluster_pes, cluster_fixed, work);
          StrategyStats unused;
          const std::vector<std::int32_t> part = metis_kway(sub, shares, imbalance_, seed_, unused);
          return parts_to_cluster_pes(instance, plan, cluster, sub, part, equal_classes(shares));
        });
  }

 private:
  double imbalance_;
  std::int32_t seed_;
};

}  // namespace

StrategyInfo grid_metis() {
  return {"grid-metis",
          "two-level METIS: objects to clusters by message cut with clusters sized to their "
          "capacity, then each cluster's objects to its PEs by load-weighted partition",
          {{"tolerance", "allowed excess of a PE's work over its ideal share (half in each phase)",
            0.10, 0.001, 1.0, false},
           {"seed", "METIS random seed", 1.0, 0.0, 2147483647.0, true}},
          [](const ParamValues& p) { return std::make_unique<GridMetisStrategy>(p); }};
}

}  // namespace vela::lb::builtin
