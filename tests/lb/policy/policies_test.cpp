// Policies (threshold, automatic threshold, adaptive period, sequence): when they balance and
// with which strategy. The cost model has its own file, cost_model_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "lb/policy/policy_support.hpp"
#include "vela/lb/policy/auto_threshold.hpp"
#include "vela/lb/policy/replay.hpp"

namespace {

using namespace vela::lb;
using vela::testing::object_at;

// Two PEs with one object each; λ = max / mean - 1 = (1 + x) / 1 - 1 = x for loads 1 + x, 1 - x.
Instance two_pes(double imbalance) {
  Instance in;
  in.pes = {Pe{}, Pe{}};
  in.objects = {object_at(1, 1.0 + imbalance, 0), object_at(2, 1.0 - imbalance, 1)};
  return in;
}

// The steps in [0, steps) at whose end `policy` decides to balance, all with `instance`.
std::vector<std::size_t> balancing_steps(Policy& policy, const Instance& instance,
                                         std::size_t steps, std::string* strategy = nullptr) {
  std::vector<std::size_t> at;
  for (std::size_t s = 0; s < steps; ++s) {
    const Decision d = policy.decide({s, &instance, {}});
    if (!d.balance()) continue;
    at.push_back(s);
    if (strategy != nullptr) *strategy = d.strategy;
  }
  return at;
}

TEST(Policies, RegisteredInFixedOrder) {
  std::vector<std::string> names;
  for (const PolicyInfo& info : policies()) names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"never", "periodic", "threshold", "auto-threshold",
                                             "cost-model", "adaptive", "sequence"}));
}

TEST(Policies, BadNamesAndParametersAreRejected) {
  try {
    make_policy("sometimes");
    FAIL() << "an unknown policy was accepted";
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("known: never, periodic"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_policy("periodic", {{"every", "0"}}), ParamError);
  EXPECT_THROW(make_policy("periodic", {{"every", "2.5"}}), ParamError);
  EXPECT_THROW(make_policy("threshold", {{"threshold", "-1"}}), ParamError);
  EXPECT_THROW(make_policy("threshold", {{"strategy", "no-such-strategy"}}), ParamError);
  EXPECT_THROW(make_policy("never", {{"every", "1"}}), ParamError);
  EXPECT_THROW(make_policy("adaptive", {{"min_period", "10"}, {"max_period", "5"}}), ParamError);
  EXPECT_THROW(make_policy("cost-model", {{"force", "sometimes"}}), ParamError);
  EXPECT_THROW(make_policy("cost-model", {{"gamma", "1.5"}}), ParamError);
}

TEST(Policies, NeverNeverBalances) {
  auto p = make_policy("never");
  EXPECT_TRUE(balancing_steps(*p, two_pes(0.9), 500).empty());
}

TEST(Policies, PeriodicFiresExactlyEveryK) {
  auto p = make_policy("periodic", {{"every", "7"}, {"strategy", "refine"}});
  std::string strategy;
  const auto at = balancing_steps(*p, two_pes(0.0), 50, &strategy);  // even when balanced
  EXPECT_EQ(at, (std::vector<std::size_t>{6, 13, 20, 27, 34, 41, 48}));
  EXPECT_EQ(strategy, "refine");
  auto every_step = make_policy("periodic", {{"every", "1"}});
  EXPECT_EQ(balancing_steps(*every_step, two_pes(0.0), 5).size(), 5u);
}

TEST(Policies, ThresholdBalancesOnlyAboveTheta) {
  // λ = 0.25 exactly (1.25 / 1 - 1), so strictly-above is testable at 25%.
  for (const auto& [theta, expect] :
       std::vector<std::pair<std::string, bool>>{{"24.9", true}, {"25", false}, {"40", false}}) {
    auto p = make_policy("threshold", {{"threshold", theta}});
    EXPECT_EQ(balancing_steps(*p, two_pes(0.25), 3).size(), expect ? 3u : 0u) << theta;
  }
  // Interval x threshold (Rodrigues Table 4.7): checks every 4 steps only.
  auto p = make_policy("threshold", {{"threshold", "10"}, {"every", "4"}});
  EXPECT_EQ(balancing_steps(*p, two_pes(0.25), 13), (std::vector<std::size_t>{3, 7, 11}));
  EXPECT_TRUE(balancing_steps(*p, two_pes(0.05), 13).empty());
}

// A hot spot that moves along 16 objects on 4 PEs (object k on PE k / 4), over 24 steps.
Trace moving_hot_spot(std::size_t steps) {
  std::vector<Object> objects;
  for (int k = 0; k < 16; ++k) objects.push_back(object_at(k, 1.0, k / 4, 1000));
  std::vector<std::vector<double>> loads;
  for (std::size_t s = 0; s < steps; ++s) {
    std::vector<double> row(16, 1.0);
    for (int k = 0; k < 16; ++k) {
      const int distance = std::abs(k - static_cast<int>(s * 2 / 3) % 16);
      if (distance <= 2) row[static_cast<std::size_t>(k)] = 4.0 - distance;
    }
    loads.push_back(row);
  }
  return vela::testing::static_objects_trace(4, objects, {}, loads);
}

// The window replay of choose_threshold must say, for every candidate, what replaying the same
// steps with the threshold policy says (compute + strategy + migration, no communication).
TEST(AutoThreshold, ChoosesTheThresholdABruteForceReplayFindsCheapest) {
  const Trace trace = moving_hot_spot(24);
  CostParameters costs;
  costs.startup = 0.05;
  costs.per_byte = 1e-4;  // 0.1 s per object of 1000 bytes
  costs.strategy_seconds = 0.3;
  ReplayOptions options;
  options.migration = {costs.startup, costs.per_byte};
  options.strategy_seconds = costs.strategy_seconds;
  options.keep_series = false;

  LoadWindow window(trace.steps.size());
  TraceCursor cursor(trace);
  for (std::size_t s = 0; cursor.next(); ++s) window.record(s, cursor.instance());
  const ThresholdChoice choice =
      choose_threshold(window, cursor.instance(), default_thresholds(), 1, "greedy", {}, costs);
  ASSERT_EQ(choice.totals.size(), default_thresholds().size());
  double best = std::numeric_limits<double>::infinity();
  double best_threshold = -1.0;
  for (std::size_t k = 0; k < default_thresholds().size(); ++k) {
    const double theta = default_thresholds()[k];
    auto policy = make_policy("threshold", {{"threshold", std::to_string(100.0 * theta)}});
    const ReplayResult r = replay(trace, *policy, options);
    EXPECT_NEAR(choice.totals[k], r.totals.total, 1e-9 * r.totals.total) << "θ = " << theta;
    EXPECT_EQ(choice.balances[k], r.balances) << "θ = " << theta;
    if (r.totals.total < best) {  // ties go to the first, smallest threshold
      best = r.totals.total;
      best_threshold = theta;
    }
  }
  EXPECT_EQ(choice.threshold, best_threshold);
  // The case must discriminate: not every threshold costs the same.
  EXPECT_GT(*std::max_element(choice.totals.begin(), choice.totals.end()),
            *std::min_element(choice.totals.begin(), choice.totals.end()) * 1.01);
}

TEST(AutoThreshold, UsesTheInitialThresholdUntilTheWindowIsFullThenTheChosenOne) {
  // PE 0 holds 1.0 + 0.35, PE 1 holds 0.65: λ = 35% every step; greedy balances it exactly
  // (1.0 | 0.65 + 0.35) by moving one object.
  Instance in;
  in.pes = {Pe{}, Pe{}};
  in.objects = {object_at(1, 1.0, 0), object_at(2, 0.35, 0), object_at(3, 0.65, 1)};
  // Moving is ruinous (1000 s an object): the window replay finds balancing never pays, so the
  // tie between 40% and 50% goes to 40%, above 35%: the policy stops balancing once its window
  // of 5 steps is full (end of step 4).
  auto p = make_policy("auto-threshold", {{"window", "5"}, {"initial", "20"}, {"every", "100"}});
  CostParameters ruinous;
  ruinous.startup = 1000.0;
  std::vector<std::size_t> at;
  for (std::size_t s = 0; s < 10; ++s) {
    if (p->decide({s, &in, ruinous}).balance()) at.push_back(s);
  }
  EXPECT_EQ(at, (std::vector<std::size_t>{0, 1, 2, 3}));
  // Free moves: θ = 1..30% balance at the window's first step and then cost 1.0 a step
  // (1.35 + 4 * 1.0); 40% and 50% cost 5 * 1.35. The tie goes to 1%, which balances at 35%.
  auto q = make_policy("auto-threshold", {{"window", "5"}, {"initial", "50"}, {"every", "100"}});
  at.clear();
  for (std::size_t s = 0; s < 10; ++s) {
    if (q->decide({s, &in, {}}).balance()) at.push_back(s);
  }
  EXPECT_EQ(at, (std::vector<std::size_t>{4, 5, 6, 7, 8, 9}));
  LoadWindow window(5);
  for (std::size_t s = 0; s < 5; ++s) window.record(s, in);
  const ThresholdChoice c = choose_threshold(window, in, default_thresholds(), 1, "greedy", {}, {});
  EXPECT_EQ(c.threshold, 0.01);
  const std::vector<double> expected = {5.35, 5.35, 5.35, 5.35, 6.75, 6.75};
  ASSERT_EQ(c.totals.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(c.totals[k], expected[k], 1e-12);
}

// The window is replayed over the objects alive now: id 2 (load 3, deleted at step 1) is left
// out, and id 3 (created at step 1) counts as load 0 before it existed. With a threshold nothing
// reaches, the total is the sum of the step maxima: step 0 max(2, 0) + step 1 max(2, 1) = 4
// (5 if the deleted object counted).
TEST(AutoThreshold, WindowFollowsObjectsThatComeAndGo) {
  Instance step0;
  step0.pes = {Pe{}, Pe{}};
  step0.objects = {object_at(1, 2.0, 0), object_at(2, 3.0, 1)};
  Instance step1 = step0;
  step1.objects = {object_at(1, 2.0, 0), object_at(3, 1.0, 1)};
  LoadWindow window(2);
  window.record(0, step0);
  window.record(1, step1);
  EXPECT_NE(window.steps()[0].ids, window.steps()[1].ids);  // the object sets differ
  const ThresholdChoice c = choose_threshold(window, step1, {10.0}, 1, "greedy", {}, {});
  EXPECT_EQ(c.totals, std::vector<double>{4.0});
  EXPECT_EQ(c.balances, std::vector<std::size_t>{0});
  window.record(2, step1);  // same objects again: the id list is shared, not copied
  EXPECT_EQ(window.steps()[0].ids, window.steps()[1].ids);
  EXPECT_EQ(window.size(), 2u);  // the oldest step was forgotten
}

TEST(AutoThreshold, RejectsAnEmptyWindow) {
  const LoadWindow empty(3);
  EXPECT_THROW(choose_threshold(empty, two_pes(0.1), default_thresholds(), 1, "greedy", {}, {}),
               std::invalid_argument);
  EXPECT_THROW(LoadWindow(0), std::invalid_argument);
}

// Static loads: nothing changes between invocations (greedy's own migrations included, since
// the change is measured on the current placement), so the period doubles: 2, 4, 8, 16.
TEST(Adaptive, PeriodLengthensOnAStaticTrace) {
  std::vector<Object> objects;
  for (int k = 0; k < 8; ++k) objects.push_back(object_at(k, 1.0 + k, 0));  // all on PE 0
  const std::vector<std::vector<double>> loads(40, {1, 2, 3, 4, 5, 6, 7, 8});
  const Trace trace = vela::testing::static_objects_trace(2, objects, {}, loads);
  auto policy = make_policy("adaptive", {{"initial", "2"}, {"epsilon", "1"}});
  const ReplayResult r = replay(trace, *policy, {});
  std::vector<std::size_t> at;
  for (std::size_t s = 0; s < r.series.size(); ++s) {
    if (r.series[s].started) at.push_back(s);
  }
  EXPECT_EQ(at, (std::vector<std::size_t>{1, 3, 7, 15, 31}));
  EXPECT_GT(r.migrations, 0u);  // greedy did move objects at the first invocation
}

// PE 0's load grows by 1 every step: every comparison sees a large change, so the period halves
// from 8 down to 1: invocations at 7, 15 (→ 4), 19 (→ 2), 21 (→ 1), 22, 23, ...
TEST(Adaptive, PeriodShortensOnAChangingTrace) {
  auto policy = make_policy("adaptive", {{"initial", "8"}, {"epsilon", "5"}});
  std::vector<std::size_t> at;
  for (std::size_t s = 0; s < 26; ++s) {
    Instance in;
    in.pes = {Pe{}, Pe{}};
    in.objects = {object_at(1, 1.0 + static_cast<double>(s), 0), object_at(2, 1.0, 1)};
    if (policy->decide({s, &in, {}}).balance()) at.push_back(s);
  }
  EXPECT_EQ(at, (std::vector<std::size_t>{7, 15, 19, 21, 22, 23, 24, 25}));
}

TEST(Sequence, UsesGreedyFirstThenRefineSwap) {
  std::vector<Object> objects;
  for (int k = 0; k < 8; ++k) objects.push_back(object_at(k, 1.0, 0));
  // Loads that keep changing so that each check sees imbalance.
  std::vector<std::vector<double>> loads;
  for (int s = 0; s < 12; ++s) {
    std::vector<double> row(8, 1.0);
    row[static_cast<std::size_t>(s % 8)] = 5.0;
    loads.push_back(row);
  }
  const Trace trace = vela::testing::static_objects_trace(4, objects, {}, loads);
  auto policy = make_policy("sequence", {{"every", "3"}});
  const ReplayResult r = replay(trace, *policy, {});
  std::vector<std::string> used;
  for (const ReplayStep& step : r.series) {
    if (step.started) used.push_back(step.strategy);
  }
  EXPECT_EQ(used,
            (std::vector<std::string>{"greedy", "refine-swap", "refine-swap", "refine-swap"}));
  auto twice = make_policy("sequence", {{"every", "3"}, {"first_calls", "2"}, {"then", "refine"}});
  used.clear();
  for (const ReplayStep& step : replay(trace, *twice, {}).series) {
    if (step.started) used.push_back(step.strategy);
  }
  EXPECT_EQ(used, (std::vector<std::string>{"greedy", "greedy", "refine", "refine"}));
}

}  // namespace
