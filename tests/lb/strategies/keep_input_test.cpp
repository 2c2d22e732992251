// The partitioners keep the input placement when their answer is worse in load (keep_input.hpp):
// on heavy-tailed instances, where a few objects outweigh a PE's share, and with as many PEs as
// objects, the registered metis, scotch, hypergraph, hilbert, rec-bisect-bf and grid-* never
// finish their busiest PE later than the input did (beyond their own allowance), and say when
// they kept it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "strategies/keep_input.hpp"
#include "strategies/strategies.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {
namespace {

// Relative slack for the same loads summed in another order.
constexpr double kEps = 1e-9;

double max_load(const Instance& in, const Assignment& a) {
  const std::vector<double> loads = pe_loads(in, a);
  return *std::max_element(loads.begin(), loads.end());
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no statistic " << name;
  return -1.0;
}

struct Wrapped {
  std::string name;
  double allowance;  // over the ideal time, at the default parameters
};

const std::vector<Wrapped>& wrapped() {
  static const std::vector<Wrapped> all = {
      {"metis", 1.05},        {"scotch", 1.05},    {"hypergraph", 1.05}, {"hilbert", 1.0},
      {"rec-bisect-bf", 1.0}, {"grid-comm", 1.10}, {"grid-metis", 1.10}, {"grid-hybrid", 1.10},
  };
  return all;
}

// Gamma loads of shape 0.1: most objects nearly idle, a few carrying much of the work.
Instance heavy_tailed(std::int64_t objects, PeId pes, std::uint64_t seed) {
  GammaOptions o;
  o.objects = objects;
  o.pes = pes;
  o.seed = seed;
  o.shape = 0.1;
  o.scale = 10.0;
  return generate_gamma(o);
}

double heaviest(const Instance& in) {
  double top = 0.0;
  for (const Object& o : in.objects) top = std::max(top, o.load);
  return top;
}

// Every wrapped strategy on `in`: never above max(input, allowance x ideal), kept_input reported,
// and the input placement itself when it says it kept it.
void expect_never_worse(const Instance& in, const std::string& what) {
  const Assignment input = current_assignment(in);
  const double before = max_load(in, input);
  for (const Wrapped& w : wrapped()) {
    SCOPED_TRACE(what + ", " + w.name);
    const Solution s = make_strategy(w.name)->solve(in);
    const double after = max_load(in, s.assignment);
    EXPECT_LE(after, std::max(before, w.allowance * ideal_time(in)) * (1.0 + kEps));
    const double kept = stat(s, "kept_input");
    EXPECT_TRUE(kept == 0.0 || kept == 1.0) << kept;
    if (kept == 1.0) {
      EXPECT_EQ(s.assignment, input);
    }
  }
}

TEST(KeepInput, HeavyTailedInstancesNeverEndWorseThanTheyStarted) {
  int heavy = 0;
  for (const PeId pes : {16, 33, 64}) {
    for (const std::int64_t objects : {70, 130}) {
      for (const std::uint64_t seed : {1u, 2u}) {
        const Instance in = heavy_tailed(objects, pes, seed);
        // The case of the finding: objects larger than a PE's average load.
        const double average = ideal_time(in);
        heavy += heaviest(in) > average ? 1 : 0;
        expect_never_worse(in, std::to_string(objects) + " objects on " + std::to_string(pes) +
                                   " PEs, seed " + std::to_string(seed));
      }
    }
  }
  EXPECT_GE(heavy, 10) << "the instances should have objects heavier than a PE's share";
}

// A strategy that piles every migratable object onto PE 0, with a statistic of its own.
class PileOnPeZero final : public Strategy {
 public:
  Solution solve(const Instance& in) override {
    Assignment a = current_assignment(in);
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      if (in.objects[i].migratable) a.pe[i] = 0;
    }
    return {a, {{"piled", 1.0}}};
  }
};

StrategyInfo pile_info() {
  return {"pile", "everything on PE 0", {}, [](const ParamValues&) {
            return std::unique_ptr<Strategy>(std::make_unique<PileOnPeZero>());
          }};
}

TEST(KeepInput, AWorseAnswerGivesWayToTheInputAndSaysSo) {
  const Instance in = generate_brams(BramsOptions{});
  const StrategyInfo wrapped_info =
      builtin::keep_input_when_worse(pile_info(), [](const ParamValues&) { return 1.05; });
  const Solution s = wrapped_info.make(ParamValues("pile", {}, {}))->solve(in);
  EXPECT_EQ(s.assignment, current_assignment(in));
  EXPECT_EQ(stat(s, "kept_input"), 1.0);
  EXPECT_EQ(stat(s, "piled"), 1.0) << "the strategy's own statistics stay";
  // With an allowance that covers piling everything on one PE, the answer stands.
  const StrategyInfo lax =
      builtin::keep_input_when_worse(pile_info(), [](const ParamValues&) { return 1e6; });
  const Solution piled = lax.make(ParamValues("pile", {}, {}))->solve(in);
  EXPECT_EQ(stat(piled, "kept_input"), 0.0);
  EXPECT_EQ(std::count(piled.assignment.pe.begin(), piled.assignment.pe.end(), 0),
            static_cast<std::ptrdiff_t>(in.objects.size()));
}

TEST(KeepInput, AsManyPesAsObjectsNeverEndWorseThanTheyStarted) {
  // Block placement with one object per PE is already the best there is; a curve cut at prefix
  // sums or a graph partition can put two objects on one PE.
  double kept = 0.0;
  for (const int side : {4, 8, 16}) {
    JacobiOptions jacobi;
    jacobi.nx = jacobi.ny = side;
    jacobi.pes = side * side;
    expect_never_worse(generate_jacobi(jacobi), "jacobi " + std::to_string(side));
    BramsOptions brams;
    brams.nx = brams.ny = side;
    brams.pes = side * side;
    expect_never_worse(generate_brams(brams), "brams " + std::to_string(side));
    HeteroOptions hetero;
    hetero.nx = hetero.ny = side;
    hetero.pes = side * side;
    const Instance in = generate_hetero(hetero);
    expect_never_worse(in, "hetero " + std::to_string(side));
    for (const Wrapped& w : wrapped()) kept += stat(make_strategy(w.name)->solve(in), "kept_input");
  }
  // The rule is exercised here: on PEs of unequal speed some partitioner's answer is worse.
  EXPECT_GT(kept, 0.0);
}

TEST(KeepInput, AnAnswerBetterThanTheInputIsKept) {
  const Instance storm = generate_brams(BramsOptions{});
  const double before = max_load(storm, current_assignment(storm));
  for (const Wrapped& w : wrapped()) {
    const Solution s = make_strategy(w.name)->solve(storm);
    EXPECT_EQ(stat(s, "kept_input"), 0.0) << w.name;
    EXPECT_LT(max_load(storm, s.assignment), 0.8 * before) << w.name;
  }
}

TEST(KeepInput, TheRuleComparesWithTheInputAndTheAllowance) {
  // Two PEs of speed 1, four objects of load 1: the ideal time is 2.
  Instance in;
  in.pes.resize(2);
  for (int i = 0; i < 4; ++i) {
    Object o;
    o.id = static_cast<std::uint64_t>(i);
    o.load = 1.0;
    o.pe = i < 3 ? 0 : 1;  // input: 3 and 1, max 3
    in.objects.push_back(o);
  }
  const Assignment three_one{{0, 0, 0, 1}};
  const Assignment all_on_one{{0, 0, 0, 0}};
  const Assignment two_two{{0, 0, 1, 1}};
  EXPECT_FALSE(builtin::worse_than_input(in, two_two, 1.0));
  EXPECT_FALSE(builtin::worse_than_input(in, three_one, 1.0)) << "equal is not worse";
  EXPECT_TRUE(builtin::worse_than_input(in, all_on_one, 1.0)) << "4 > max(3, 2)";
  EXPECT_FALSE(builtin::worse_than_input(in, all_on_one, 2.0)) << "4 <= 2 x ideal 2";
  // From a balanced input, an answer within the allowance stands (a partitioner's trade of
  // balance for cut), one beyond it does not.
  Instance balanced = in;
  balanced.objects[2].pe = 1;
  EXPECT_FALSE(builtin::worse_than_input(balanced, three_one, 1.5));
  EXPECT_TRUE(builtin::worse_than_input(balanced, three_one, 1.25));
  // The registry's wrapping keeps the strategy's statistics and adds kept_input.
  const Solution s = make_strategy("metis")->solve(balanced);
  EXPECT_EQ(stat(s, "kept_input"), 0.0);
  EXPECT_GE(stat(s, "edge_cut"), 0.0);
}

}  // namespace
}  // namespace vela::lb
