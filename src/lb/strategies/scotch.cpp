// Scotch: static mapping of the load-weighted communication graph onto a weighted
// complete architecture (SCOTCH_archCmpltw, one terminal per PE weighted by its share, see
// pe_shares), then parts mapped to PEs so that as few objects as possible move
// (solve_by_partition). Each call runs in its own Scotch context with a private random
// generator seeded from parameter `seed` and the deterministic option set, so results repeat;
// calls are still serialised by a mutex as a precaution.
#include <cstdint>
#include <cstdio>
// scotch.h needs the two above.
#include <scotch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "partition.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

static_assert(sizeof(SCOTCH_Num) == sizeof(std::int32_t), "Scotch built with 64-bit SCOTCH_Num");

std::mutex scotch_mutex;

void check(int rc, const char* call) {
  if (rc != 0) {
    throw std::runtime_error(std::string("scotch: ") + call + " failed with code " +
                             std::to_string(rc));
  }
}

// Owns the Scotch structures of one call, released in reverse order.
struct ScotchCall {
  SCOTCH_Context context;
  SCOTCH_Graph graph;
  SCOTCH_Graph bound;  // `graph` bound to `context`
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  bool context_ok = false;
  bool graph_ok = false;
  bool bound_ok = false;
  bool arch_ok = false;
  bool strat_ok = false;

  ~ScotchCall() {
    if (strat_ok) SCOTCH_stratExit(&strat);
    if (arch_ok) SCOTCH_archExit(&arch);
    if (bound_ok) SCOTCH_graphExit(&bound);
    if (graph_ok) SCOTCH_graphExit(&graph);
    if (context_ok) SCOTCH_contextExit(&context);
  }
};

class ScotchStrategy final : public Strategy {
 public:
  explicit ScotchStrategy(const ParamValues& params)
      : imbalance_(params.get("imbalance")),
        seed_(static_cast<SCOTCH_Num>(params.get("seed"))),
        quality_(params.get("quality") != 0.0) {}

  Solution solve(const Instance& instance) override {
    return solve_by_partition(instance, [this](const PartitionGraph& g,
                                               const std::vector<double>& shares, StrategyStats&) {
      const auto parts = static_cast<SCOTCH_Num>(shares.size());
      // Terminal weights: shares as integers, about 10^6 in all, each >= 1.
      std::vector<SCOTCH_Num> weights(shares.size());
      for (std::size_t p = 0; p < shares.size(); ++p) {
        weights[p] = static_cast<SCOTCH_Num>(std::max(1.0, std::round(shares[p] * 1e6)));
      }
      std::vector<SCOTCH_Num> part(g.vertices(), 0);
      const std::lock_guard<std::mutex> lock(scotch_mutex);
      ScotchCall c;
      check(SCOTCH_graphInit(&c.graph), "SCOTCH_graphInit");
      c.graph_ok = true;
      check(SCOTCH_graphBuild(&c.graph, 0, static_cast<SCOTCH_Num>(g.vertices()), g.xadj.data(),
                              nullptr, g.vwgt.data(), nullptr,
                              static_cast<SCOTCH_Num>(g.adjncy.size()), g.adjncy.data(),
                              g.adjwgt.data()),
            "SCOTCH_graphBuild");
      check(SCOTCH_archInit(&c.arch), "SCOTCH_archInit");
      c.arch_ok = true;
      check(SCOTCH_archCmpltw(&c.arch, parts, weights.data()), "SCOTCH_archCmpltw");
      check(SCOTCH_stratInit(&c.strat), "SCOTCH_stratInit");
      c.strat_ok = true;
      const SCOTCH_Num flags = quality_ ? SCOTCH_STRATQUALITY : SCOTCH_STRATDEFAULT;
      check(SCOTCH_stratGraphMapBuild(&c.strat, flags, parts, imbalance_ - 1.0),
            "SCOTCH_stratGraphMapBuild");
      check(SCOTCH_contextInit(&c.context), "SCOTCH_contextInit");
      c.context_ok = true;
      check(SCOTCH_contextRandomClone(&c.context), "SCOTCH_contextRandomClone");
      check(SCOTCH_contextOptionSetNum(&c.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1),
            "SCOTCH_contextOptionSetNum");
      SCOTCH_contextRandomSeed(&c.context, seed_);
      SCOTCH_contextRandomReset(&c.context);
      check(SCOTCH_graphInit(&c.bound), "SCOTCH_graphInit");
      c.bound_ok = true;
      check(SCOTCH_contextBindGraph(&c.context, &c.graph, &c.bound), "SCOTCH_contextBindGraph");
      check(SCOTCH_graphMap(&c.bound, &c.arch, &c.strat, part.data()), "SCOTCH_graphMap");
      return std::vector<std::int32_t>(part.begin(), part.end());
    });
  }

 private:
  double imbalance_;
  SCOTCH_Num seed_;
  bool quality_;
};

}  // namespace

StrategyInfo scotch() {
  return {
      "scotch",
      "Scotch static mapping of the load-weighted communication graph onto PEs weighted by "
      "capacity, mapped to PEs to minimise migrations",
      {{"imbalance", "allowed max part weight over its target", 1.05, 1.001, 2.0, false},
       {"seed", "Scotch random seed", 1.0, 0.0, 2147483647.0, true},
       {"quality", "1: Scotch's quality strategy (slower), 0: its default", 0.0, 0.0, 1.0, true}},
      [](const ParamValues& p) { return std::make_unique<ScotchStrategy>(p); }};
}

}  // namespace vela::lb::builtin
