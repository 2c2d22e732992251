// Pearce's cost model: the diffusion simulator, the three prices on hand-built cases,
// and the policy that follows them.
#include <gtest/gtest.h>

#include <numeric>

#include "lb/policy/policy_support.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/policy/cost_model.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using namespace vela::lb;
using vela::testing::object_at;

// PEs 0 - 1 - 2 - 3 in a chain: PE p holds objects of the given loads (100 bytes each), and the
// last object of PE p talks to the first object of PE p + 1.
Instance chain(const std::vector<std::vector<double>>& loads) {
  Instance in;
  in.pes.assign(loads.size(), Pe{});
  std::vector<std::uint32_t> first;
  std::vector<std::uint32_t> last;
  for (std::size_t p = 0; p < loads.size(); ++p) {
    first.push_back(static_cast<std::uint32_t>(in.objects.size()));
    for (const double load : loads[p]) {
      in.objects.push_back(
          object_at(static_cast<ObjectId>(in.objects.size()), load, static_cast<PeId>(p), 100));
    }
    last.push_back(static_cast<std::uint32_t>(in.objects.size() - 1));
  }
  for (std::size_t p = 0; p + 1 < loads.size(); ++p)
    in.edges.push_back({last[p], first[p + 1], 1, 8});
  validate(in);
  return in;
}

Instance spike() {  // ten objects of load 1 on PE 0, one on each other PE: loads 10, 1, 1, 1
  return chain({std::vector<double>(10, 1.0), {1.0}, {1.0}, {1.0}});
}

TEST(CostModel, PeNeighboursFollowTheEdgesAcrossPes) {
  const Instance in = spike();
  EXPECT_EQ(pe_neighbours(in, current_assignment(in)),
            (std::vector<std::vector<PeId>>{{1}, {0, 2}, {1, 3}, {2}}));
}

// Degrees 1, 2, 2, 1: every pair uses γ = 1 / (2 + 1).
//   step 1: 0→1 moves (10 - 1) / 3 = 3            → 7, 4, 1, 1      (3 elements leave PE 0)
//   step 2: 0→1 moves 1, 1→2 moves 1              → 6, 4, 2, 1      (1 element each)
//   step 3: 0→1 2/3, 1→2 2/3, 2→3 1/3             → 16/3, 4, 7/3, 4/3
TEST(CostModel, DiffusionSimulatorMatchesHandComputedSteps) {
  const Instance in = spike();
  const DiffusionSimulation sim =
      simulate_diffusion(pe_loads(in, current_assignment(in)), {10, 1, 1, 1},
                         pe_neighbours(in, current_assignment(in)), 1.0, 0.0, 3);
  ASSERT_EQ(sim.max_load.size(), 3u);
  EXPECT_NEAR(sim.max_load[0], 7.0, 1e-12);
  EXPECT_NEAR(sim.max_load[1], 6.0, 1e-12);
  EXPECT_NEAR(sim.max_load[2], 16.0 / 3.0, 1e-12);
  EXPECT_NEAR(sim.elements_moved[0], 3.0, 1e-12);
  EXPECT_NEAR(sim.elements_moved[1], 1.0, 1e-12);
  EXPECT_EQ(sim.convergence_steps, 3u);
  // gamma caps the coefficient: 0.1 * 9 leaves PE 0 in the first step.
  const DiffusionSimulation slow = simulate_diffusion(
      {10, 1, 1, 1}, {10, 1, 1, 1}, pe_neighbours(in, current_assignment(in)), 0.1, 0.0, 1);
  EXPECT_NEAR(slow.max_load[0], 9.1, 1e-12);
}

TEST(CostModel, DiffusionKeepsTotalLoadAndNeverRaisesTheMaximum) {
  // A ring of 6 PEs with a chord; uneven loads.
  const std::vector<std::vector<PeId>> graph = {{1, 5, 3}, {0, 2}, {1, 3},
                                                {2, 4, 0}, {3, 5}, {4, 0}};
  std::vector<double> loads = {9, 0, 3, 1, 7, 2};
  const DiffusionSimulation sim =
      simulate_diffusion(loads, std::vector<double>(6, 4.0), graph, 1.0, 0.0, 40);
  double previous = 9.0;
  for (const double m : sim.max_load) {
    EXPECT_LE(m, previous + 1e-12);
    previous = m;
  }
  EXPECT_NEAR(sim.max_load.back(), 22.0 / 6.0, 1e-3);  // converges to the mean
  EXPECT_THROW(simulate_diffusion({1, 2}, {1}, graph, 1.0, 0.0, 1), std::invalid_argument);
}

TEST(CostModel, PicksNoneWhenBalanced) {
  CostModelSettings s;
  s.steps = 10;
  s.global_seconds = 0.5;
  s.diffusion_seconds = 0.01;
  const CostEstimate e = estimate_costs(chain({{1.0}, {1.0}, {1.0}, {1.0}}), s);
  EXPECT_EQ(e.none, 10.0);
  EXPECT_EQ(e.diffusive, 10.0);  // λ = 0: the simulator never runs, nothing is charged
  EXPECT_EQ(e.global, 10.5);
  EXPECT_EQ(e.choice, BalanceMode::none);
  s.global_seconds = 0.0;  // a free global balance only ties: ties go to none
  EXPECT_EQ(estimate_costs(chain({{1.0}, {1.0}, {1.0}, {1.0}}), s).choice, BalanceMode::none);
}

// Loads 10, 1, 1, 1, mean 3.25, 10 steps, α = 0.5 s per element, β = 1 ms per byte (0.1 s per
// element):
//   none      = 10 * 10 = 100
//   global    = 1 + (0.5 + 0.1) * 6.75 + 10 * 3.25 = 37.55, with 10 * (10 - 3.25) / 10 =
//               6.75 elements moved off PE 0
//   diffusive >= 7 + 6 + 16/3 + 7 * 3.25 > 41 (the first three steps above, then at best the mean)
TEST(CostModel, PicksGlobalWhenOnePeHoldsABigSpike) {
  CostModelSettings s;
  s.steps = 10;
  s.global_seconds = 1.0;
  s.diffusion_seconds = 0.2;
  s.startup = 0.5;
  s.per_byte = 0.001;
  const CostEstimate e = estimate_costs(spike(), s);
  EXPECT_EQ(e.none, 100.0);
  EXPECT_NEAR(e.global_elements_moved, 6.75, 1e-12);
  EXPECT_NEAR(e.global, 37.55, 1e-9);
  EXPECT_GT(e.diffusive, 41.0);
  EXPECT_EQ(e.choice, BalanceMode::global);
}

// Loads 1.1, 0.9, 1, 1 (λ = 10%, the surplus next to the deficit), 10 steps, a global balance
// costs 5 s, a diffusive step 0.01 s + α 0.01 s per element:
//   none   = 10 * 1.1 = 11
//   global = 5 + (0.01 + 0.001 * 100) * (1 * 0.1 / 1.1) + 10 * 1 ≈ 15.010
//   step 1 of diffusion: 0→1 moves 0.2/3, 2→1 moves 0.1/3 → 31/30, 1, 29/30, 1; λ falls below
//   1% within a few steps, so diffusive ≈ 10 * 1.01 + a few * 0.02 ≈ 10.2 < none < global.
TEST(CostModel, PicksDiffusiveWhenImbalanceIsSmallAndLocal) {
  CostModelSettings s;
  s.steps = 10;
  s.global_seconds = 5.0;
  s.diffusion_seconds = 0.01;
  s.startup = 0.01;
  s.per_byte = 0.001;
  s.tolerance = 0.01;
  const CostEstimate e = estimate_costs(chain({{1.1}, {0.9}, {1.0}, {1.0}}), s);
  EXPECT_NEAR(e.none, 11.0, 1e-12);
  EXPECT_NEAR(e.global, 5.0 + (0.01 + 0.001 * 100.0) * (0.1 / 1.1) + 10.0, 1e-9);
  EXPECT_NEAR(e.diffusion.max_load[0], 31.0 / 30.0, 1e-12);
  EXPECT_LT(e.diffusive, 10.5);
  EXPECT_GT(e.diffusive, 10.0);
  EXPECT_EQ(e.choice, BalanceMode::diffusive);
  EXPECT_LT(e.diffusion.convergence_steps, 10u);  // it did converge below the tolerance
}

// One object of load 10 on PE 0, one of 2 on PE 1: mean 6. The seed's model believes a global
// balance reaches 6 a step (global = 0.1 + 10 * 6 = 60.1 < none = 100; diffusion, γ = 1/2,
// levels the pair in one step but pays 0.5 s for it: 60.5); no placement can, as
// the object of 10 is indivisible: the granular model's level is 10, global costs
// 0.1 + 10 * 10 > none, diffusion stops at once (λ 67% is within one mean object, 100%), and
// none wins.
TEST(CostModel, GranularModelKnowsObjectsAreIndivisible) {
  CostModelSettings s;
  s.steps = 10;
  s.global_seconds = 0.1;
  s.diffusion_seconds = 0.5;
  const Instance in = chain({{10.0}, {2.0}});
  const CostEstimate mean = estimate_costs(in, s);
  EXPECT_NEAR(mean.global, 60.1, 1e-12);
  EXPECT_EQ(mean.choice, BalanceMode::global);
  s.granular = true;
  const CostEstimate granular = estimate_costs(in, s);
  EXPECT_EQ(granular.level, 10.0);
  EXPECT_NEAR(granular.global, 100.1, 1e-12);
  EXPECT_NEAR(granular.tolerance, 1.0, 1e-12);
  EXPECT_EQ(granular.diffusion.convergence_steps, 0u);
  EXPECT_EQ(granular.diffusive, 100.0);
  EXPECT_EQ(granular.choice, BalanceMode::none);
}

TEST(CostModelPolicy, FollowsTheCheapestModeUntilTheNextEvaluation) {
  const Instance big = spike();
  const Instance balanced = chain({{1.0}, {1.0}, {1.0}, {1.0}});
  const Instance small = chain({{1.1}, {0.9}, {1.0}, {1.0}});
  const RawParams common = {{"horizon", "10"},
                            {"every", "5"},
                            {"global_seconds", "1"},
                            {"diffusion_seconds", "0.01"},
                            {"global", "refine"}};
  const CostParameters costs{0.01, 0.001, 0.0};
  const auto decisions = [&](const RawParams& extra, const Instance& in) {
    RawParams p = common;
    for (const auto& [key, value] : extra) p[key] = value;
    auto policy = make_policy("cost-model", p);
    std::vector<std::string> out;
    for (std::size_t s = 0; s < 7; ++s) out.push_back(policy->decide({s, &in, costs}).strategy);
    return out;
  };
  using V = std::vector<std::string>;
  // Global: once, at the evaluation (steps 0 and 5), with the named global strategy.
  EXPECT_EQ(decisions({}, big), (V{"refine", "", "", "", "", "refine", ""}));
  EXPECT_EQ(decisions({}, balanced), V(7, ""));
  // Diffusive: every step while λ > tolerance (the instance here stays imbalanced).
  EXPECT_EQ(decisions({{"global_seconds", "50"}}, small), V(7, "diffusion"));
  EXPECT_EQ(decisions({{"force", "diffusive"}}, balanced), V(7, ""));  // λ = 0: nothing to do
  EXPECT_EQ(decisions({{"force", "none"}}, big), V(7, ""));
  EXPECT_EQ(decisions({{"force", "diffusive"}}, big), V(7, "diffusion"));
}

// The observer sees every evaluation (steps 0 and 5 of `every` 5), forced ones included, with
// the prices the model saw and the mode the policy follows; decisions are those of the policy
// without an observer.
TEST(CostModelPolicy, ObserverSeesEachEvaluationWithItsPrices) {
  const Instance big = spike();
  const RawParams raw = {{"horizon", "10"},
                         {"every", "5"},
                         {"global_seconds", "1"},
                         {"force", "diffusive"},
                         {"tolerance", "1"}};
  PolicyInfo info;
  for (const PolicyInfo& i : policies())
    if (i.name == "cost-model") info = i;
  std::vector<CostModelEvaluation> seen;
  auto policy = make_cost_model_policy(ParamValues("cost-model", info.params, raw),
                                       [&](const CostModelEvaluation& e) { seen.push_back(e); });
  auto plain = make_policy("cost-model", raw);
  const CostParameters costs{0.01, 0.001, 0.0};
  for (std::size_t s = 0; s < 7; ++s) {
    EXPECT_EQ(policy->decide({s, &big, costs}).strategy, plain->decide({s, &big, costs}).strategy);
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].step, 0u);
  EXPECT_EQ(seen[1].step, 5u);
  EXPECT_EQ(seen[0].mode, BalanceMode::diffusive);  // forced, though the model picks global
  EXPECT_EQ(seen[0].estimate.choice, BalanceMode::global);
  EXPECT_EQ(seen[0].estimate.none, 100.0);
  // Predicted step times: L_max now (10), the mean (3.25), diffusion's L_max after 10 steps.
  const CostEstimate& e = seen[0].estimate;
  EXPECT_EQ(predicted_step_time(e, BalanceMode::none), 10.0);
  EXPECT_EQ(predicted_step_time(e, BalanceMode::global), 3.25);
  EXPECT_EQ(predicted_step_time(e, BalanceMode::diffusive), e.diffusion.max_load.back());
  EXPECT_LT(e.diffusion.max_load.back(), 10.0);
  EXPECT_GE(e.diffusion.max_load.back(), 3.25);
}

// The spike over one step with α = 2 s per object moved: global = 2 * 6.75 + 3.25 = 16.75 and
// diffusion's first step moves 3 objects, 2 * 3 + 7 = 13, both dearer than none = 10. Charged
// once per data movement (the seed's α), global would cost 2 + 3.25 and win.
TEST(CostModel, StartupIsPaidPerObjectMoved) {
  CostModelSettings s;
  s.steps = 1;
  s.startup = 2.0;
  const CostEstimate e = estimate_costs(spike(), s);
  EXPECT_NEAR(e.global, 2.0 * 6.75 + 3.25, 1e-12);
  EXPECT_NEAR(e.diffusive, 2.0 * 3.0 + 7.0, 1e-12);
  EXPECT_EQ(e.choice, BalanceMode::none);
}

// A strategy's trial replaces the formula: its moves, bytes and the L_max it leaves.
TEST(CostModel, GlobalTrialIsPricedAsMeasured) {
  CostModelSettings s;
  s.steps = 10;
  s.global_seconds = 1.0;
  s.startup = 0.5;
  s.per_byte = 0.001;
  s.global_trial = StrategyTrial{12.0, 1200.0, 4.0};
  const CostEstimate e = estimate_costs(spike(), s);
  EXPECT_NEAR(e.global, 1.0 + 0.5 * 12.0 + 0.001 * 1200.0 + 10.0 * 4.0, 1e-12);
  EXPECT_EQ(e.global_elements_moved, 12.0);
  EXPECT_EQ(predicted_step_time(e, BalanceMode::global), 4.0);
}

// Greedy places the spike's 13 objects from scratch: it leaves L_max = 4, not the mean 3.25,
// and moves 10 objects, not the 6.75 the formula assumes. Over 5 steps with 4 s per object moved
// the formula prices global at 4 * 6.75 + 5 * 3.25 = 43.25 < none = 50; the trial prices what
// greedy does, 4 * 10 + 5 * 4 = 60, and the policy stays put (diffusion, moving 3 objects in its
// first step alone, is dearer still).
TEST(CostModel, PolicyTrialRunsTheGlobalStrategy) {
  const Instance in = spike();
  const StrategyReport greedy = run_strategy(*make_strategy("greedy"), "greedy", in);
  ASSERT_EQ(greedy.moved.count, 10u);
  ASSERT_EQ(greedy.after.max, 4.0);
  RawParams p = {{"horizon", "5"}, {"global_seconds", "0"}, {"diffusion_seconds", "0"}};
  const CostParameters costs{4.0, 0.0, 0.0};
  std::vector<CostModelEvaluation> seen;
  const auto observe = [&seen](const CostModelEvaluation& e) { seen.push_back(e); };
  PolicyInfo info;
  for (const PolicyInfo& i : policies())
    if (i.name == "cost-model") info = i;
  const auto pick = [&](const RawParams& raw) {
    const ParamValues values("cost-model", info.params, raw);
    return make_cost_model_policy(values, observe)->decide({0, &in, costs}).strategy;
  };
  EXPECT_EQ(pick(p), "greedy");
  p["trial"] = "on";
  EXPECT_EQ(pick(p), "");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[0].estimate.global, 43.25, 1e-9);
  EXPECT_EQ(seen[1].estimate.global_elements_moved, 10.0);
  EXPECT_NEAR(seen[1].estimate.global, 60.0, 1e-9);
  EXPECT_EQ(predicted_step_time(seen[1].estimate, BalanceMode::global), 4.0);
  EXPECT_GT(seen[1].estimate.diffusive, seen[1].estimate.none);
}

}  // namespace
