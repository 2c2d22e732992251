// Metis (ST-7): k-way partition of the load-weighted communication graph with METIS, one part
// per PE sized to the PE's share (speed and background, see pe_shares), then parts mapped to
// PEs so that as few objects as possible move (solve_by_partition). Deterministic: METIS runs
// with a fixed seed (parameter `seed`).
#include <metis.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "partition.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

static_assert(sizeof(idx_t) == sizeof(std::int32_t), "METIS built with 64-bit idx_t");

class MetisStrategy final : public Strategy {
 public:
  explicit MetisStrategy(const ParamValues& params)
      : imbalance_(params.get("imbalance")), seed_(static_cast<idx_t>(params.get("seed"))) {}

  Solution solve(const Instance& instance) override {
    return solve_by_partition(
        instance,
        [this](const PartitionGraph& g, const std::vector<double>& shares, StrategyStats& stats) {
          idx_t nvtxs = static_cast<idx_t>(g.vertices());
          idx_t ncon = 1;
          idx_t nparts = static_cast<idx_t>(shares.size());
          // METIS wants arrays even for an edgeless graph.
          std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end());
          std::vector<idx_t> adjncy(g.adjncy.begin(), g.adjncy.end());
          std::vector<idx_t> adjwgt(g.adjwgt.begin(), g.adjwgt.end());
          if (adjncy.empty()) {
            adjncy.push_back(0);
            adjwgt.push_back(1);
          }
          std::vector<idx_t> vwgt(g.vwgt.begin(), g.vwgt.end());
          std::vector<real_t> tpwgts(shares.begin(), shares.end());
          real_t ubvec = static_cast<real_t>(imbalance_);
          idx_t options[METIS_NOPTIONS];
          METIS_SetDefaultOptions(options);
          options[METIS_OPTION_SEED] = seed_;
          options[METIS_OPTION_NUMBERING] = 0;
          idx_t objval = 0;
          std::vector<idx_t> part(g.vertices(), 0);
          const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(),
                                             nullptr, adjwgt.data(), &nparts, tpwgts.data(), &ubvec,
                                             options, &objval, part.data());
          if (rc != METIS_OK) {
            throw std::runtime_error("metis: METIS_PartGraphKway failed with code " +
                                     std::to_string(rc));
          }
          stats.emplace_back("edge_cut", static_cast<double>(objval));
          return std::vector<std::int32_t>(part.begin(), part.end());
        });
  }

 private:
  double imbalance_;
  idx_t seed_;
};

}  // namespace

StrategyInfo metis() {
  return {"metis",
          "METIS k-way partition of the load-weighted communication graph, parts sized to PE "
          "capacity and mapped to PEs to minimise migrations",
          {{"imbalance", "allowed max part weight over its target (METIS ubvec)", 1.05, 1.001, 2.0,
            false},
           {"seed", "METIS random seed", 1.0, 0.0, 2147483647.0, true}},
          [](const ParamValues& p) { return std::make_unique<MetisStrategy>(p); }};
}

}  // namespace vela::lb::builtin
