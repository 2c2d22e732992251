// The replay simulator: totals, inline and asynchronous balancing, predicted loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "lb/policy/policy_support.hpp"
#include "vela/lb/policy/replay.hpp"
#include "vela/lb/trace/generate.hpp"

namespace {

using namespace vela::lb;
using vela::testing::object_at;
using vela::testing::ScriptedPolicy;

// Objects a (id 1, 10 bytes) and b (id 2, 20 bytes) on PE 0, c (id 3, 30 bytes) on PE 1; a sends
// c one message of 100 bytes per step.
Trace tiny(const std::vector<std::vector<double>>& loads) {
  return vela::testing::static_objects_trace(
      2, {object_at(1, 1.0, 0, 10), object_at(2, 1.0, 0, 20), object_at(3, 1.0, 1, 30)},
      {{0, 2, 1, 100}}, loads);
}

// Communication 0.5 s per message + 0.01 s per byte (a→c across PEs: 1.5 s, charged to a's PE);
// migration 2 s per object + 0.1 s per byte; rotate (every object to the next PE) after step 0,
// charged 0.25 s.
//   step 0: PE 0 = a 2 + b 1 + 1.5 = 4.5, PE 1 = c 1          → compute 3, comm 1.5
//           rotate moves all 3 objects, 60 bytes               → migration 3 * 2 + 60 * 0.1 = 12
//   step 1: PE 1 = a 2 + b 1 + 1.5 = 4.5, PE 0 = c 1          → compute 3, comm 1.5
//   step 2: PE 1 = a 1 + b 1 + 1.5 = 3.5, PE 0 = c 3          → compute 3, comm 0.5
//   total = 9 + 3.5 + 0.25 + 12 = 24.75
TEST(Replay, TotalsEqualTheHandComputedSum) {
  const Trace trace = tiny({{2, 1, 1}, {2, 1, 1}, {1, 1, 3}});
  ScriptedPolicy policy("rotate", {0});
  ReplayOptions o;
  o.communication = {0.5, 0.01};
  o.migration = {2.0, 0.1};
  o.strategy_seconds = 0.25;
  const ReplayResult r = replay(trace, policy, o);
  EXPECT_DOUBLE_EQ(r.totals.compute, 9.0);
  EXPECT_DOUBLE_EQ(r.totals.communication, 3.5);
  EXPECT_DOUBLE_EQ(r.totals.strategy, 0.25);
  EXPECT_DOUBLE_EQ(r.totals.migration, 12.0);
  EXPECT_DOUBLE_EQ(r.totals.total, 24.75);
  EXPECT_EQ(r.steps, 3u);
  EXPECT_EQ(r.balances, 1u);
  EXPECT_EQ(r.migrations, 3u);
  EXPECT_EQ(r.bytes_moved, 60u);
  ASSERT_EQ(r.series.size(), 3u);
  EXPECT_DOUBLE_EQ(r.series[0].time, 4.5);
  EXPECT_DOUBLE_EQ(r.series[2].time, 3.5);
  EXPECT_TRUE(r.series[0].started && r.series[0].applied);
  EXPECT_FALSE(r.series[1].started || r.series[1].applied);
  EXPECT_EQ(r.series[0].migrations, 3u);
  EXPECT_DOUBLE_EQ(r.series[0].imbalance, 3.0 / 2.0 - 1.0);
  // The policy learnt what happened, and saw the costs it may weigh.
  ASSERT_EQ(policy.outcomes.size(), 1u);
  EXPECT_EQ(policy.outcomes[0].strategy, "rotate");
  EXPECT_EQ(policy.outcomes[0].migrations, 3u);
  EXPECT_DOUBLE_EQ(policy.outcomes[0].migration_seconds, 12.0);
  EXPECT_EQ(policy.costs[0].startup, 2.0);
  EXPECT_EQ(policy.costs[0].per_byte, 0.1);
  EXPECT_EQ(policy.costs[0].strategy_seconds, 0.25);
  EXPECT_EQ(policy.pe_of(1, 1), 1);  // inline: step 1 already runs with the new placement
}

// Rotate moves a, b (2 objects, 30 bytes) from PE 0 to PE 1 and c (1 object, 30 bytes) back. At
// 2 s per object and 0.1 s per byte, in parallel the busiest PE's side costs 2 * 2 + 30 * 0.1 = 7
// (PE 0 sending, PE 1 receiving); in total, 3 * 2 + 60 * 0.1 = 12.
TEST(Replay, ParallelMigrationCostsTheBusiestPe) {
  const Trace trace = tiny({{2, 1, 1}, {2, 1, 1}});
  ReplayOptions o;
  o.migration = {2.0, 0.1};
  o.strategy_seconds = 0.0;
  o.migration_cost = MigrationCost::busiest_pe;
  ScriptedPolicy policy("rotate", {0});
  EXPECT_DOUBLE_EQ(replay(trace, policy, o).totals.migration, 7.0);
  o.migration_cost = MigrationCost::total;
  ScriptedPolicy again("rotate", {0});
  EXPECT_DOUBLE_EQ(replay(trace, again, o).totals.migration, 12.0);
}

TEST(Replay, StrategyTimesByNameOverrideTheCommonOne) {
  const Trace trace = tiny({{2, 1, 1}, {2, 1, 1}, {1, 1, 3}});
  ReplayOptions o;
  o.strategy_seconds = 0.25;
  o.strategy_seconds_by_name = {{"rotate", 7.0}, {"greedy", 100.0}};
  ScriptedPolicy policy("rotate", {0, 1});
  const ReplayResult r = replay(trace, policy, o);
  EXPECT_EQ(r.totals.strategy, 14.0);
  EXPECT_EQ(policy.costs[1].strategy_seconds, 7.0);  // the policy sees the last call's time
}

TEST(Replay, NeverTotalIsTheSumOfMaxPeLoadPlusCommunication) {
  TraceOptions g;
  g.nx = 8;
  g.ny = 6;
  g.pes = 6;
  g.steps = 30;
  g.radiation.period = 7;
  g.drift.fraction = 0.5;
  const Trace trace = generate_trace(g);
  const CommModel comm{1e-3, 2e-6};
  auto never = make_policy("never");
  ReplayOptions o;
  o.communication = comm;
  const ReplayResult r = replay(trace, *never, o);
  // By hand: each PE's time is its work plus what it sends to other PEs; the step takes the
  // largest; the total is their sum.
  double expected = 0.0;
  TraceCursor cursor(trace);
  while (cursor.next()) {
    const Instance& in = cursor.instance();
    std::vector<double> time(in.pes.size(), 0.0);
    for (const Object& o2 : in.objects) time[static_cast<std::size_t>(o2.pe)] += o2.load;
    for (const Edge& e : in.edges) {
      const PeId from = in.objects[e.from].pe;
      if (from == in.objects[e.to].pe) continue;
      time[static_cast<std::size_t>(from)] += comm.startup * static_cast<double>(e.messages) +
                                              comm.per_byte * static_cast<double>(e.bytes);
    }
    expected += *std::max_element(time.begin(), time.end());
  }
  EXPECT_NEAR(r.totals.total, expected, 1e-9 * expected);
  EXPECT_GT(r.totals.communication, 0.0);
  EXPECT_EQ(r.totals.strategy + r.totals.migration, 0.0);
  EXPECT_EQ(r.balances, 0u);
}

TEST(Replay, ReportsEachStepOnceInOrder) {
  TraceOptions g;
  g.nx = 6;
  g.ny = 6;
  g.pes = 4;
  g.steps = 17;
  const Trace trace = generate_trace(g);
  auto policy = make_policy("periodic", {{"every", "5"}, {"strategy", "greedy"}});
  std::vector<std::size_t> reported;
  ReplayOptions o;
  o.after_step = [&](std::size_t done) { reported.push_back(done); };
  const ReplayResult r = replay(trace, *policy, o);
  ASSERT_EQ(reported.size(), 17u);
  for (std::size_t i = 0; i < reported.size(); ++i) EXPECT_EQ(reported[i], i + 1);
  EXPECT_EQ(r.steps, 17u);
}

TEST(Replay, IsDeterministicWithAFixedStrategyTime) {
  TraceOptions g;
  g.steps = 60;
  g.nx = 16;
  g.ny = 16;
  g.pes = 8;
  g.drift.fraction = 0.5;
  const Trace trace = generate_trace(g);
  ReplayOptions o;
  o.strategy_seconds = 0.5;
  o.migration = {1e-3, 1e-8};
  const auto run = [&] {
    auto p = make_policy("threshold", {{"threshold", "5"}, {"every", "4"}, {"strategy", "refine"}});
    return replay(trace, *p, o);
  };
  const ReplayResult a = run();
  const ReplayResult b = run();
  EXPECT_GT(a.balances, 0u);
  EXPECT_EQ(a.totals.total, b.totals.total);
  EXPECT_EQ(a.migrations, b.migrations);
  for (std::size_t s = 0; s < a.series.size(); ++s) EXPECT_EQ(a.series[s].time, b.series[s].time);
}

// All loads 1: step time 2 (PE 0 holds a and b). A strategy time of 5 s is ceil(5 / 2) = 3
// steps: the answer computed after step 0 is applied after step 3, so step 4 runs with it.
TEST(Replay, AsynchronousAnswerArrivesStepsLater) {
  const Trace trace = tiny(std::vector<std::vector<double>>(6, {1, 1, 1}));
  ReplayOptions o;
  o.asynchronous = true;
  o.migration = {1.0, 0.0};
  for (const auto& [seconds, applied_after] :
       std::vector<std::pair<double, std::size_t>>{{5.0, 3}, {4.0, 2}, {0.0, 1}}) {
    o.strategy_seconds = seconds;
    ScriptedPolicy policy("rotate", {0});
    const ReplayResult r = replay(trace, policy, o);
    for (std::size_t s = 0; s <= applied_after; ++s) {
      EXPECT_EQ(policy.pe_of(s, 1), 0) << seconds << " s, step " << s;
    }
    EXPECT_EQ(policy.pe_of(applied_after + 1, 1), 1) << seconds << " s";
    EXPECT_TRUE(r.series[0].started);
    EXPECT_FALSE(r.series[0].applied);
    EXPECT_TRUE(r.series[applied_after].applied);
    EXPECT_EQ(r.totals.strategy, 0.0);  // overlapped with the application
    EXPECT_EQ(r.totals.overlapped, seconds);
    EXPECT_EQ(r.totals.migration, 3.0);
    ASSERT_EQ(policy.outcomes.size(), 1u);
    EXPECT_EQ(policy.outcomes[0].step, applied_after);
  }
  // Inline, the same decision costs the strategy's time and applies at once.
  o.asynchronous = false;
  o.strategy_seconds = 5.0;
  ScriptedPolicy inline_policy("rotate", {0});
  const ReplayResult r = replay(trace, inline_policy, o);
  EXPECT_EQ(inline_policy.pe_of(1, 1), 1);
  EXPECT_EQ(r.totals.strategy, 5.0);
}

TEST(Replay, AsynchronousAnswerIsMappedOntoObjectsCreatedAndDeletedMeanwhile) {
  Trace t = tiny({{1, 1, 1}});
  TraceStep s1;  // b (id 2) deleted, d (id 4) created on PE 0
  s1.deleted = {2};
  s1.created = {object_at(4, 0.0, 0, 40)};
  s1.loads = {1, 1, 1};  // a, c, d
  TraceStep s2;
  s2.loads = {1, 1, 1};
  TraceStep s3;  // e (id 5) created on PE 1
  s3.created = {object_at(5, 0.0, 1, 50)};
  s3.loads = {1, 1, 1, 1};
  t.steps.push_back(s1);
  t.steps.push_back(s2);
  TraceStep s4;
  s4.loads = {1, 1, 1, 1};  // a, c, d, e
  t.steps.push_back(s3);
  t.steps.push_back(s4);
  validate(t);
  ReplayOptions o;
  o.asynchronous = true;
  o.strategy_seconds = 5.0;  // step 0 takes 2 s: applied after step 3
  ScriptedPolicy policy("rotate", {0});
  const ReplayResult r = replay(t, policy, o);
  // The answer of step 0 says a→1, b→1, c→0. After step 3: a and c move, b is gone, d and e
  // (unknown to the answer) stay where they were created.
  EXPECT_EQ(policy.pe_of(3, 1), 0);
  EXPECT_EQ(policy.pe_of(4, 1), 1);
  EXPECT_EQ(policy.pe_of(4, 3), 0);
  EXPECT_EQ(policy.pe_of(4, 2), -1);
  EXPECT_EQ(policy.pe_of(4, 4), 0);
  EXPECT_EQ(policy.pe_of(4, 5), 1);
  EXPECT_EQ(r.migrations, 2u);
  EXPECT_EQ(r.bytes_moved, 40u);  // a 10 + c 30
}

TEST(Replay, DecisionsWhileAnAnswerIsInFlightAreDropped) {
  const Trace trace = tiny(std::vector<std::vector<double>>(8, {1, 1, 1}));
  ReplayOptions o;
  o.asynchronous = true;
  o.strategy_seconds = 5.0;  // 3 steps
  ScriptedPolicy policy("rotate", {0, 1, 2, 4});
  const ReplayResult r = replay(trace, policy, o);
  EXPECT_EQ(r.started, 2u);  // after steps 0 and 4
  EXPECT_EQ(r.dropped, 2u);  // after steps 1 and 2
  EXPECT_EQ(r.balances, 2u);
  EXPECT_TRUE(r.series[4].started);
}

// a's load dips at the decision step (4 → 0.1). On the measured loads greedy puts a with other
// objects; on the median's prediction (4) a is the heaviest object and gets a PE to itself.
TEST(Replay, StrategiesSeePredictedLoadsWhenAPredictorIsGiven) {
  std::vector<std::vector<double>> loads(4, {4, 1, 1, 2});
  loads.push_back({0.1, 1, 1, 2});
  loads.push_back({4, 1, 1, 2});
  const Trace trace = vela::testing::static_objects_trace(
      2, {object_at(1, 4, 0), object_at(2, 1, 0), object_at(3, 1, 0), object_at(4, 2, 0)}, {},
      loads);
  const auto alone = [](const ScriptedPolicy& p, std::size_t step) {
    const PeId pe = p.pe_of(step, 1);
    int with = 0;
    for (const auto& [id, at] : p.placements.at(step)) with += at == pe ? 1 : 0;
    return with == 1;
  };
  ReplayOptions o;
  o.strategy_seconds = 0.0;
  ScriptedPolicy measured("greedy", {4});
  replay(trace, measured, o);
  EXPECT_FALSE(alone(measured, 5));
  auto median = make_predictor("median");
  o.predictor = median.get();
  ScriptedPolicy predicted("greedy", {4});
  replay(trace, predicted, o);
  EXPECT_TRUE(alone(predicted, 5));
}

TEST(Replay, RejectsADecisionNamingAnUnknownStrategy) {
  const Trace trace = tiny({{1, 1, 1}});
  ScriptedPolicy policy("no-such-strategy", {0});
  EXPECT_THROW(replay(trace, policy, {}), ParamError);
}

TEST(Replay, WritesTheSeriesAsCsv) {
  const Trace trace = tiny({{2, 1, 1}, {2, 1, 1}, {1, 1, 3}});
  ScriptedPolicy policy("rotate", {1});
  ReplayOptions o;
  o.strategy_seconds = 0.0;
  const ReplayResult r = replay(trace, policy, o);
  const auto path = std::filesystem::temp_directory_path() / "vela_replay_series_test.csv";
  write_series_csv(r, path.string());
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::filesystem::remove(path);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("step,time,compute,communication,imbalance,started,applied,", 0), 0u);
  EXPECT_EQ(lines[2].rfind("1,3,3,0,", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find(",1,1,rotate,3,"), std::string::npos) << lines[2];
  EXPECT_THROW(write_series_csv(r, "/nonexistent-dir/series.csv"), std::runtime_error);
}

}  // namespace
