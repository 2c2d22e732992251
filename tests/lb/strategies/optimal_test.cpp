// The optimal reference strategy: exact minimum of the maximum PE time, by the exact
// number-partitioning search or the MILP, checked against optima worked out by hand, against
// brute-force enumeration and against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/strategy.hpp"

// Defined in src/lb/strategies/; reached directly so these tests do not depend on the registry.
namespace vela::lb::builtin {
StrategyInfo optimal();
StrategyInfo greedy();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

std::unique_ptr<Strategy> make(const RawParams& raw = {}) {
  const StrategyInfo info = builtin::optimal();
  return info.make(ParamValues(info.name, info.params, raw));
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return std::numeric_limits<double>::quiet_NaN();
}

double max_time(const Instance& in, const Assignment& a) {
  const std::vector<double> loads = pe_loads(in, a);
  return *std::max_element(loads.begin(), loads.end());
}

Instance make_instance(const std::vector<double>& loads, std::size_t pes) {
  Instance in;
  in.pes.resize(pes);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    Object o;
    o.id = static_cast<ObjectId>(i);
    o.load = loads[i];
    in.objects.push_back(o);
  }
  return in;
}

// Checks the solution is a valid assignment that leaves non-migratable objects in place.
void expect_valid(const Instance& in, const Solution& s) {
  ASSERT_NO_THROW(validate(in, s.assignment));
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (!in.objects[i].migratable) {
      EXPECT_EQ(s.assignment.pe[i], in.objects[i].pe) << i;
    }
  }
}

// Minimum over every assignment of the migratable objects of the maximum PE time.
double brute_force(const Instance& in) {
  Assignment a = current_assignment(in);
  std::vector<std::size_t> movable;
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (in.objects[i].migratable) movable.push_back(i);
  }
  for (const std::size_t i : movable) a.pe[i] = 0;
  const auto np = static_cast<PeId>(in.pes.size());
  double best = std::numeric_limits<double>::infinity();
  for (;;) {
    best = std::min(best, max_time(in, a));
    std::size_t k = 0;
    while (k < movable.size() && ++a.pe[movable[k]] == np) a.pe[movable[k++]] = 0;
    if (k == movable.size()) break;
  }
  return best;
}

TEST(Optimal, BeatsLptOnAHandWorkedInstance) {
  // Loads {3,3,2,2,2} on 2 PEs, total 12: {3,3} | {2,2,2} gives 6, the lower bound 12 / 2.
  // LPT puts 3 and 3 on different PEs, then 2 and 2 (5 and 5), then the last 2 makes 7.
  const Instance in = make_instance({3, 3, 2, 2, 2}, 2);
  const StrategyInfo g = builtin::greedy();
  const Solution lpt = g.make(ParamValues(g.name, g.params, {}))->solve(in);
  EXPECT_DOUBLE_EQ(max_time(in, lpt.assignment), 7.0);

  const Solution s = make()->solve(in);
  expect_valid(in, s);
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 6.0);
  EXPECT_EQ(s.assignment.pe[0], s.assignment.pe[1]);
  EXPECT_EQ(stat(s, "optimal"), 1.0);
  EXPECT_EQ(stat(s, "gap"), 0.0);
  EXPECT_DOUBLE_EQ(stat(s, "objective"), 6.0);
  EXPECT_GE(stat(s, "time_ms"), 0.0);
}

TEST(Optimal, ThreePesHandWorked) {
  // {5,5,4,3,3} on 3 PEs (total 20): 7 is impossible ({5,?} needs 2 or less), so the optimum is
  // 8: {5,3} | {5,3} | {4}. LPT gives 5 | 5 | 4, then 3 on the 4 (7), then 3 on a 5 (8) too,
  // so here LPT is optimal and the program must agree.
  const Instance in = make_instance({5, 5, 4, 3, 3}, 3);
  const Solution s = make()->solve(in);
  expect_valid(in, s);
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 8.0);
  EXPECT_EQ(stat(s, "optimal"), 1.0);
}

TEST(Optimal, HeterogeneousSpeeds) {
  // Loads {6,3,3}, speeds {3,1}: {6,3} on the fast PE takes 3, {3} on the slow one 3 → 3.
  // Everything on the fast PE takes 4; anything else puts 6 or 3+3 on the slow PE.
  Instance in = make_instance({6, 3, 3}, 2);
  in.pes[0].speed = 3.0;
  const Solution s = make()->solve(in);
  expect_valid(in, s);
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 3.0);
  EXPECT_EQ(s.assignment.pe[0], 0);
  EXPECT_EQ(stat(s, "optimal"), 1.0);
}

TEST(Optimal, NonMigratableObjectsStay) {
  // A pinned object of load 10 on PE 0 plus background 0; the movable {4,3,3} sum to 10, so
  // the only way to reach 10 is all of them on PE 1.
  Instance in = make_instance({10, 4, 3, 3}, 2);
  in.objects[0].migratable = false;
  in.objects[0].pe = 0;
  for (std::size_t i = 1; i < 4; ++i) in.objects[i].pe = 0;
  const Solution s = make()->solve(in);
  expect_valid(in, s);
  EXPECT_EQ(s.assignment.pe, (std::vector<PeId>{0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 10.0);
}

TEST(Optimal, MatchesBruteForceOnRandomInstances) {
  std::mt19937_64 rng(16);
  std::uniform_int_distribution<int> count(1, 10);
  std::uniform_int_distribution<int> pe_count(1, 3);
  std::uniform_int_distribution<int> load(0, 20);
  std::uniform_int_distribution<int> background(0, 4);
  const std::vector<double> speeds = {0.5, 1.0, 2.0};
  std::uniform_int_distribution<std::size_t> speed_of(0, speeds.size() - 1);
  std::bernoulli_distribution pinned(0.15);
  std::bernoulli_distribution uniform_pes(0.5);
  for (int round = 0; round < 60; ++round) {
    const auto pes = static_cast<std::size_t>(pe_count(rng));
    std::vector<double> loads(static_cast<std::size_t>(count(rng)));
    for (double& l : loads) l = load(rng);
    Instance in = make_instance(loads, pes);
    if (!uniform_pes(rng)) {
      for (Pe& pe : in.pes) {
        pe.speed = speeds[speed_of(rng)];
        pe.background = background(rng);
      }
    }
    for (Object& o : in.objects) {
      o.pe = static_cast<PeId>(rng() % pes);
      o.migratable = !pinned(rng);
    }
    const Solution s = make()->solve(in);
    expect_valid(in, s);
    EXPECT_NEAR(max_time(in, s.assignment), brute_force(in), 1e-9) << "round " << round;
    EXPECT_EQ(stat(s, "optimal"), 1.0) << "round " << round;
  }
}

TEST(Optimal, CommWeightKeepsAHeavyPairTogetherWhenLoadsAllow) {
  // Loads {2,1,1,2} on 2 PEs: {0,1} | {2,3} and {0,2} | {1,3} both reach 3. Objects 0 and 1
  // exchange 1000 bytes, so with w > 0 only the first has no cut.
  Instance in = make_instance({2, 1, 1, 2}, 2);
  in.edges.push_back({0, 1, 10, 600});
  in.edges.push_back({1, 0, 10, 400});
  const Solution s = make({{"comm_weight", "0.01"}})->solve(in);
  expect_valid(in, s);
  EXPECT_EQ(s.assignment.pe[0], s.assignment.pe[1]);
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 3.0);
  EXPECT_DOUBLE_EQ(stat(s, "objective"), 3.0);
  EXPECT_EQ(stat(s, "optimal"), 1.0);
}

TEST(Optimal, CommWeightTradesLoadAgainstCut) {
  // Loads {2,2,1,1} on 2 PEs with 1000 bytes between the two heavy objects. Apart: T = 3 plus
  // w * 1000; together: T = 4 and no cut. w = 0.01 → 13 vs 4 (together); w = 1e-4 → 3.1 vs 4
  // (apart).
  Instance in = make_instance({2, 2, 1, 1}, 2);
  in.edges.push_back({0, 1, 1, 1000});
  const Solution together = make({{"comm_weight", "0.01"}})->solve(in);
  expect_valid(in, together);
  EXPECT_EQ(together.assignment.pe[0], together.assignment.pe[1]);
  EXPECT_DOUBLE_EQ(stat(together, "objective"), 4.0);

  const Solution apart = make({{"comm_weight", "0.0001"}})->solve(in);
  expect_valid(in, apart);
  EXPECT_NE(apart.assignment.pe[0], apart.assignment.pe[1]);
  EXPECT_DOUBLE_EQ(max_time(in, apart.assignment), 3.0);
  EXPECT_NEAR(stat(apart, "objective"), 3.1, 1e-12);
}

TEST(Optimal, CommWeightWithPinnedEndpoint) {
  // Object 0 (load 3) is pinned on PE 1 and talks heavily to object 1 (load 1); objects 2 and 3
  // (load 2 each) are free. Best: {1} joins 0 on PE 1 (4), {2,3} on PE 0 (4), no cut.
  Instance in = make_instance({3, 1, 2, 2}, 2);
  in.objects[0].migratable = false;
  in.objects[0].pe = 1;
  in.edges.push_back({1, 0, 1, 5000});
  const Solution s = make({{"comm_weight", "1"}})->solve(in);
  expect_valid(in, s);
  EXPECT_EQ(s.assignment.pe, (std::vector<PeId>{1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(stat(s, "objective"), 4.0);
}

TEST(Optimal, RefusesInstancesBeyondTheSizeLimit) {
  const Instance many = make_instance(std::vector<double>(61, 1.0), 2);
  try {
    make()->solve(many);
    ADD_FAILURE() << "61 objects accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max_objects = 60"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make({{"max_objects", "5"}})->solve(make_instance({1, 1, 1, 1, 1, 1}, 2)),
               std::invalid_argument);
  EXPECT_NO_THROW(make({{"max_objects", "5"}})->solve(make_instance({1, 1, 1, 1, 1}, 2)));

  const Instance wide = make_instance({1, 2, 3}, 9);
  try {
    make()->solve(wide);
    ADD_FAILURE() << "9 PEs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("8 PEs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make({{"time_limit", "0"}}), std::invalid_argument);
  EXPECT_THROW(make({{"time_limit", "3601"}}), std::invalid_argument);
}

TEST(Optimal, DegenerateInstances) {
  const Solution none = make()->solve(make_instance({}, 3));
  EXPECT_TRUE(none.assignment.pe.empty());
  const Instance one = make_instance({1, 2, 3}, 1);
  const Solution s = make()->solve(one);
  EXPECT_EQ(s.assignment.pe, (std::vector<PeId>{0, 0, 0}));
  EXPECT_EQ(stat(s, "optimal"), 1.0);
}

TEST(Optimal, FortyObjectsOnFourPes) {
  // Real-valued loads on identical PEs: the exact search must prove the optimum (the limit is
  // a generous ceiling, not a timing target; the time is in the strategies benchmark).
  std::mt19937_64 rng(40);
  std::uniform_real_distribution<double> load(1.0, 100.0);
  std::vector<double> loads(40);
  for (double& l : loads) l = load(rng);
  const Instance in = make_instance(loads, 4);
  const StrategyInfo g = builtin::greedy();
  const Solution lpt = g.make(ParamValues(g.name, g.params, {}))->solve(in);
  const Solution s = make({{"time_limit", "120"}})->solve(in);
  expect_valid(in, s);
  EXPECT_EQ(stat(s, "exact_search"), 1.0);
  EXPECT_EQ(stat(s, "optimal"), 1.0);
  EXPECT_EQ(stat(s, "gap"), 0.0);
  EXPECT_LE(max_time(in, s.assignment), max_time(in, lpt.assignment));
  EXPECT_GE(max_time(in, s.assignment), ideal_time(in) * (1 - 1e-12));
  EXPECT_DOUBLE_EQ(stat(s, "objective"), max_time(in, s.assignment));
}

TEST(Optimal, ExactSearchMatchesBruteForceOnRealLoads) {
  // PEs of one speed (not always 1), real loads and backgrounds, some objects pinned: the exact
  // search applies and must reach the brute-force minimum.
  std::mt19937_64 rng(61);
  std::uniform_int_distribution<int> count(1, 9);
  std::uniform_int_distribution<int> pe_count(2, 4);
  std::uniform_real_distribution<double> load(0.0, 10.0);
  std::uniform_real_distribution<double> background(0.0, 3.0);
  std::bernoulli_distribution pinned(0.15);
  const std::vector<double> speeds = {0.5, 1.0, 3.0};
  for (int round = 0; round < 60; ++round) {
    const auto pes = static_cast<std::size_t>(pe_count(rng));
    std::vector<double> loads(static_cast<std::size_t>(count(rng)));
    for (double& l : loads) l = round % 4 == 0 ? std::floor(load(rng)) : load(rng);
    Instance in = make_instance(loads, pes);
    const double speed = speeds[static_cast<std::size_t>(round) % speeds.size()];
    for (Pe& pe : in.pes) {
      pe.speed = speed;
      pe.background = round % 2 == 0 ? background(rng) : 0.0;
    }
    for (Object& o : in.objects) {
      o.pe = static_cast<PeId>(rng() % pes);
      o.migratable = !pinned(rng);
    }
    const Solution s = make()->solve(in);
    expect_valid(in, s);
    const double want = brute_force(in);
    EXPECT_NEAR(max_time(in, s.assignment), want, 1e-12 * want) << "round " << round;
    EXPECT_EQ(stat(s, "optimal"), 1.0) << "round " << round;
    const bool any_movable = std::any_of(in.objects.begin(), in.objects.end(),
                                         [](const Object& o) { return o.migratable; });
    if (any_movable) {
      EXPECT_EQ(stat(s, "exact_search"), 1.0) << "round " << round;
    }
  }
}

TEST(Optimal, ExactSearchAgreesWithTheMilp) {
  // The same instances through both methods.
  std::mt19937_64 rng(62);
  std::uniform_int_distribution<int> load(1, 30);
  std::uniform_real_distribution<double> background(0.0, 20.0);
  for (int round = 0; round < 8; ++round) {
    std::vector<double> loads(12);
    for (double& l : loads) l = load(rng);
    Instance in = make_instance(loads, 3);
    for (Pe& pe : in.pes) pe.background = round % 2 == 0 ? std::floor(background(rng)) : 0.0;
    const Solution exact = make()->solve(in);
    const Solution milp = make({{"method", "milp"}, {"time_limit", "60"}})->solve(in);
    ASSERT_EQ(stat(exact, "exact_search"), 1.0);
    ASSERT_EQ(stat(milp, "exact_search"), 0.0);
    ASSERT_EQ(stat(milp, "optimal"), 1.0) << "round " << round;
    EXPECT_EQ(stat(exact, "optimal"), 1.0);
    EXPECT_DOUBLE_EQ(max_time(in, exact.assignment), max_time(in, milp.assignment))
        << "round " << round;
  }
}

TEST(Optimal, ExactSearchKeepsLoadInPlace) {
  // {4,4} | {3,3,2} both reach 8 on 2 identical PEs; with {3,3,2} already on PE 0 and {4,4}
  // on PE 1, the optimum needs no migration, so none is made.
  Instance in = make_instance({3, 3, 2, 4, 4}, 2);
  in.objects[3].pe = in.objects[4].pe = 1;
  const Solution s = make()->solve(in);
  EXPECT_EQ(stat(s, "exact_search"), 1.0);
  EXPECT_EQ(s.assignment.pe, (std::vector<PeId>{0, 0, 0, 1, 1}));
  EXPECT_EQ(stat(s, "moves"), 0.0);
}

TEST(Optimal, MethodSearchSaysWhyItCannotTakeAnInstance) {
  const auto refusal = [](const Instance& in, const RawParams& raw) {
    try {
      make(raw)->solve(in);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  Instance mixed = make_instance({6, 3, 3}, 2);
  mixed.pes[1].speed = 2.0;
  EXPECT_NE(refusal(mixed, {{"method", "search"}}).find("PEs of one speed (PE 1 has speed 2"),
            std::string::npos);
  const Instance many = make_instance(std::vector<double>(45, 1.0), 2);
  EXPECT_NE(refusal(many, {{"method", "search"}}).find("at most 44"), std::string::npos);
  const Instance small = make_instance({2, 1, 1}, 2);
  EXPECT_NE(refusal(small, {{"method", "search"}, {"comm_weight", "1"}}).find("comm_weight > 0"),
            std::string::npos);
  EXPECT_EQ(refusal(small, {{"method", "search"}}), "accepted");
  EXPECT_THROW(make({{"method", "cbc"}}), std::invalid_argument);
  // Forced the other way: the MILP on an instance the search would take.
  EXPECT_EQ(stat(make({{"method", "milp"}})->solve(small), "exact_search"), 0.0);
}

TEST(Optimal, MilpWhereTheExactSearchDoesNotApply) {
  // Mixed speeds, or more loaded objects than the search takes, go to GLPK.
  Instance mixed = make_instance({6, 3, 3}, 2);
  mixed.pes[0].speed = 3.0;
  EXPECT_EQ(stat(make()->solve(mixed), "exact_search"), 0.0);
  const Instance many = make_instance(std::vector<double>(45, 1.0), 2);
  const Solution s = make({{"time_limit", "1"}})->solve(many);
  EXPECT_EQ(stat(s, "exact_search"), 0.0);
  EXPECT_DOUBLE_EQ(max_time(many, s.assignment), 23.0);
}

}  // namespace
}  // namespace vela::lb
