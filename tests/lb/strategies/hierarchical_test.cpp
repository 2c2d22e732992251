// Properties of hierarchical over seeded random instances: valid assignments, pinned
// objects kept, balance across badly imbalanced groups close to a flat strategy's, no object
// leaving its group on calls without the outer level, no sub-solve seeing every object, the
// surplus offered by objects that talk to other groups first, and its parameters checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb::builtin {
StrategyInfo hierarchical();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

std::unique_ptr<Strategy> make(const RawParams& raw = {}) {
  const StrategyInfo info = builtin::hierarchical();
  return info.make(ParamValues(info.name, info.params, raw));
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat named " << name;
  return -1.0;
}

// ---- A small model of PE time, independent of the code under test ----

std::vector<double> times_of(const Instance& in, const Assignment& a) {
  std::vector<double> t(in.pes.size(), 0.0);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    t[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
  }
  for (std::size_t p = 0; p < t.size(); ++p) t[p] = in.pes[p].background + t[p] / in.pes[p].speed;
  return t;
}

double max_time(const Instance& in, const Assignment& a) {
  const std::vector<double> t = times_of(in, a);
  return *std::max_element(t.begin(), t.end());
}

double max_over_avg(const Instance& in, const Assignment& a) {
  const std::vector<double> t = times_of(in, a);
  double sum = 0.0;
  for (const double x : t) sum += x;
  return max_time(in, a) / (sum / static_cast<double>(t.size()));
}

Instance placed(Instance in, const Assignment& a) {
  for (std::size_t i = 0; i < in.objects.size(); ++i) in.objects[i].pe = a.pe[i];
  return in;
}

// ---- Instances ----

struct Shape {
  std::size_t objects = 1000;
  std::size_t pes = 16;
  std::size_t clusters = 1;  // runs of consecutive PEs
  bool heterogeneous = false;
  bool background = false;
  double pinned = 0.0;  // fraction of non-migratable objects
  double hot = 0.0;     // share of objects placed on the first quarter of the PEs
};

// Objects on a near-square grid (coordinates = grid position, halo edges to the right and below)
// with loads in [0.2, 1.8], placed at random PEs, `hot` of them among the first quarter.
Instance make_instance(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Instance in;
  in.dims = 2;
  in.pes.resize(s.pes);
  for (std::size_t p = 0; p < s.pes; ++p) {
    Pe& pe = in.pes[p];
    if (s.heterogeneous) pe.speed = std::vector<double>{0.5, 1.0, 2.0, 3.0}[rng() % 4];
    if (s.background && rng() % 3 == 0) pe.background = 3.0 * unit(rng);
    pe.cluster = static_cast<std::int32_t>(p * s.clusters / s.pes);
  }
  const auto width = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(s.objects))));
  const std::size_t hot_pes = std::max<std::size_t>(1, s.pes / 4);
  in.objects.resize(s.objects);
  for (std::size_t i = 0; i < s.objects; ++i) {
    Object& o = in.objects[i];
    o.id = static_cast<ObjectId>(10 + 3 * i);
    o.load = 0.2 + 1.6 * unit(rng);
    o.size = 100;
    o.coords = {static_cast<double>(i % width), static_cast<double>(i / width), 0.0};
    o.pe = static_cast<PeId>(unit(rng) < s.hot ? rng() % hot_pes : rng() % s.pes);
    o.migratable = unit(rng) >= s.pinned;
  }
  for (std::size_t i = 0; i < s.objects; ++i) {
    for (const std::size_t j : {i + 1, i + width}) {
      if (j >= s.objects || (j == i + 1 && j % width == 0)) continue;
      const std::uint64_t messages = 1 + rng() % 4;
      in.edges.push_back(
          {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), messages, 100 * messages});
    }
  }
  validate(in);
  return in;
}

void expect_valid(const Instance& in, const Solution& s) {
  ASSERT_EQ(s.assignment.pe.size(), in.objects.size());
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    ASSERT_GE(s.assignment.pe[i], 0);
    ASSERT_LT(s.assignment.pe[i], static_cast<PeId>(in.pes.size()));
    if (!in.objects[i].migratable) {
      ASSERT_EQ(s.assignment.pe[i], in.objects[i].pe) << i;
    }
  }
  EXPECT_LE(stat(s, "max_objects_seen"), static_cast<double>(in.objects.size()));
}

// Group of PE p with `group_size` consecutive PEs per group.
std::size_t group(PeId p, std::size_t group_size) {
  return static_cast<std::size_t>(p) / group_size;
}

// ---- Tests ----

TEST(Hierarchical, ValidAssignmentsOnRandomInstancesOverRepeatedCalls) {
  const std::vector<std::string> inner = {
      "refine",    "greedy",        "refine-swap", "greedy-refine", "refine-comm", "hilbert",
      "diffusion", "rec-bisect-bf", "metis",       "grid-comm",     "dummy"};
  const std::vector<std::string> outer = {"greedy",      "refine", "greedy-refine",
                                          "refine-swap", "metis",  "hilbert"};
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed * 31 + 7);
    Shape s;
    s.pes = 1 + rng() % 80;
    s.objects = rng() % 5 == 0 ? rng() % 10 : rng() % 3000;
    s.clusters = std::min<std::size_t>(s.pes, 1 + rng() % 3);
    s.heterogeneous = rng() % 2 == 0;
    s.background = rng() % 3 == 0;
    s.pinned = rng() % 3 == 0 ? 0.2 : 0.0;
    s.hot = std::vector<double>{0.0, 0.5, 0.9}[rng() % 3];
    const std::vector<std::size_t> sizes = {0, 1, 3, 7, s.pes, s.pes + 5};
    const RawParams raw = {{"group_size", std::to_string(sizes[rng() % sizes.size()])},
                           {"inner", inner[rng() % inner.size()]},
                           {"outer", outer[rng() % outer.size()]},
                           {"outer_every", std::to_string(1 + rng() % 3)}};
    SCOPED_TRACE("seed " + std::to_string(seed) + " inner " + raw.at("inner") + " outer " +
                 raw.at("outer") + " group_size " + raw.at("group_size"));
    const auto strategy = make(raw);
    Instance in = make_instance(s, seed);
    for (int call = 0; call < 3; ++call) {
      const Solution solution = strategy->solve(in);
      expect_valid(in, solution);
      if (HasFatalFailure()) return;
      in = placed(in, solution.assignment);
    }
  }
}

TEST(Hierarchical, PinnedObjectsStayWhileTheRestMoves) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Shape s;
    s.pes = 48;
    s.objects = 3000;
    s.pinned = 0.5;
    s.hot = 0.9;
    s.heterogeneous = seed % 2 == 0;
    const Instance in = make_instance(s, seed);
    const Solution solution = make({{"group_size", "6"}})->solve(in);
    expect_valid(in, solution);
    EXPECT_GT(stat(solution, "cross_group_moves"), 0.0);
    // Half the hot PEs' objects cannot move: no strategy can do much better than greedy.
    const double greedy = max_time(in, make_strategy("greedy")->solve(in).assignment);
    EXPECT_LT(max_time(in, solution.assignment), 1.1 * greedy);
    EXPECT_LT(greedy, 0.7 * max_time(in, current_assignment(in)));
  }
}

TEST(Hierarchical, AcrossBadlyImbalancedGroupsItBalancesAlmostAsWellAsFlatStrategies) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Shape s;
    s.pes = 64;
    s.objects = 64 * 60;
    s.hot = 0.8;
    s.heterogeneous = seed % 2 == 1;
    s.background = seed % 3 == 2;
    const Instance in = make_instance(s, seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_GT(max_over_avg(in, current_assignment(in)), 2.5);
    const double greedy = max_time(in, make_strategy("greedy")->solve(in).assignment);
    const double refine = max_time(in, make_strategy("refine")->solve(in).assignment);
    const auto strategy = make({{"group_size", "8"}, {"outer_every", "2"}});
    const Solution first = strategy->solve(in);
    EXPECT_EQ(stat(first, "outer_ran"), 1.0);
    EXPECT_LE(max_time(in, first.assignment), 1.03 * refine);
    EXPECT_LE(max_time(in, first.assignment), 1.08 * greedy);
    // The second call has no outer level: inside the groups alone, the imbalance stays.
    const Solution inner_only = strategy->solve(in);
    EXPECT_EQ(stat(inner_only, "outer_ran"), 0.0);
    EXPECT_GT(max_over_avg(in, inner_only.assignment), 1.5);
  }
}

TEST(Hierarchical, WithoutTheOuterLevelNoObjectLeavesItsGroup) {
  const std::size_t group_size = 4;
  const auto strategy = make({{"group_size", "4"}, {"outer_every", "3"}});
  Shape s;
  s.pes = 32;
  s.objects = 2000;
  s.hot = 0.7;
  for (int call = 1; call <= 4; ++call) {
    const Instance in = make_instance(s, 100 + static_cast<std::uint64_t>(call));
    const Solution solution = strategy->solve(in);
    expect_valid(in, solution);
    SCOPED_TRACE("call " + std::to_string(call));
    std::size_t left_group = 0;
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      left_group +=
          group(solution.assignment.pe[i], group_size) != group(in.objects[i].pe, group_size);
    }
    EXPECT_GT(stat(solution, "moves"), 0.0);
    if (call == 1 || call == 4) {
      EXPECT_EQ(stat(solution, "outer_ran"), 1.0);
      EXPECT_GT(left_group, 0u);
      EXPECT_EQ(stat(solution, "cross_group_moves"), static_cast<double>(left_group));
    } else {
      EXPECT_EQ(stat(solution, "outer_ran"), 0.0);
      EXPECT_EQ(stat(solution, "candidates"), 0.0);
      EXPECT_EQ(left_group, 0u);
    }
  }
}

TEST(Hierarchical, ByDefaultGroupsAreClustersAndNoObjectLeavesItsClusterWithoutTheOuterLevel) {
  Shape s;
  s.pes = 30;
  s.objects = 1500;
  s.clusters = 3;
  s.hot = 0.8;
  const Instance in = make_instance(s, 7);
  const auto strategy = make({{"outer_every", "2"}});
  const Solution first = strategy->solve(in);
  EXPECT_EQ(stat(first, "groups"), 3.0);
  EXPECT_GT(stat(first, "cross_group_moves"), 0.0);
  const Solution second = strategy->solve(in);
  EXPECT_EQ(stat(second, "outer_ran"), 0.0);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    const auto from = static_cast<std::size_t>(in.objects[i].pe);
    const auto to = static_cast<std::size_t>(second.assignment.pe[i]);
    ASSERT_EQ(in.pes[from].cluster, in.pes[to].cluster) << "object " << i;
  }
}

TEST(Hierarchical, GroupCounts) {
  const auto groups_of = [](std::size_t pes, const std::string& size) {
    Shape s;
    s.pes = pes;
    s.objects = 200;
    return stat(make({{"group_size", size}})->solve(make_instance(s, 1)), "groups");
  };
  EXPECT_EQ(groups_of(64, "0"), 8.0);   // about sqrt(64) PEs per group
  EXPECT_EQ(groups_of(10, "0"), 4.0);   // 3 PEs per group: 3 + 3 + 3 + 1
  EXPECT_EQ(groups_of(64, "5"), 13.0);  // the last group holds 4
  EXPECT_EQ(groups_of(16, "16"), 1.0);
  EXPECT_EQ(groups_of(16, "100"), 1.0);
  Shape one;
  one.pes = 16;
  const Solution single = make({{"group_size", "16"}})->solve(make_instance(one, 2));
  EXPECT_EQ(stat(single, "outer_ran"), 0.0);  // nothing to balance across
}

TEST(Hierarchical, NoSubSolveSeesEveryObject) {
  Shape s;
  s.pes = 256;
  s.objects = 32768;
  s.hot = 0.1;  // the first 64 PEs hold 32.5% of the objects
  const Instance in = make_instance(s, 11);
  ASSERT_GT(max_over_avg(in, current_assignment(in)), 1.3);
  const Solution solution = make()->solve(in);
  expect_valid(in, solution);
  const double seen = stat(solution, "max_objects_seen");
  EXPECT_EQ(stat(solution, "groups"), 16.0);
  EXPECT_EQ(stat(solution, "outer_ran"), 1.0);
  EXPECT_GT(stat(solution, "cross_group_moves"), 0.0);
  EXPECT_LT(seen, static_cast<double>(s.objects) / 8);
  EXPECT_GE(seen, static_cast<double>(s.objects) / 16);  // some group holds the average
  EXPECT_LT(max_over_avg(in, solution.assignment), 1.15);
}

TEST(Hierarchical, TheSurplusIsOfferedByObjectsThatTalkToOtherGroupsFirst) {
  // Two groups of 4 PEs; group 0 holds 400 objects and group 1 100. 200 objects of group 0
  // talk to group 1: more than group 0's surplus (about 150 objects), so only they may leave.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Instance in;
  in.pes.resize(8);
  for (std::size_t i = 0; i < 500; ++i) {
    Object o;
    o.id = static_cast<ObjectId>(i);
    o.load = 0.5 + unit(rng);
    o.pe = static_cast<PeId>(i < 400 ? i % 4 : 4 + i % 4);
    in.objects.push_back(o);
  }
  std::vector<bool> talks_out(500, false);
  for (std::uint32_t i = 0; i < 400; i += 2) {
    const auto peer = static_cast<std::uint32_t>(400 + rng() % 100);
    in.edges.push_back({i, peer, 1, 64});
    talks_out[i] = true;
  }
  for (std::uint32_t i = 1; i < 399; i += 2) in.edges.push_back({i, i + 2, 1, 64});  // inside
  validate(in);
  const Solution solution = make({{"group_size", "4"}})->solve(in);
  std::size_t left = 0;
  for (std::size_t i = 0; i < 400; ++i) {
    if (solution.assignment.pe[i] >= 4) {
      ++left;
      EXPECT_TRUE(talks_out[i]) << "object " << i << " left without talking to group 1";
    }
  }
  EXPECT_GT(left, 100u);
  EXPECT_LT(max_over_avg(in, solution.assignment), 1.1);
}

std::string rejection(const RawParams& raw) {
  try {
    make(raw);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

TEST(Hierarchical, ParametersAreChecked) {
  const StrategyInfo info = builtin::hierarchical();
  const ParamValues defaults(info.name, info.params, {});
  EXPECT_EQ(defaults.text("inner"), "refine");
  EXPECT_EQ(defaults.text("outer"), "greedy");
  EXPECT_EQ(defaults.get("outer_every"), 1.0);
  EXPECT_EQ(defaults.get("group_size"), 0.0);

  const std::string unknown = rejection({{"inner", "nope"}});
  EXPECT_NE(unknown.find("hierarchical: parameter 'inner' = 'nope' is not one of: "),
            std::string::npos)
      << unknown;
  for (const StrategyInfo& known : strategies()) {
    if (known.name == "hierarchical") continue;
    EXPECT_NE(unknown.find(known.name), std::string::npos) << unknown << " lacks " << known.name;
  }
  for (const std::string key : {"inner", "outer"}) {
    const std::string nested = rejection({{key, "hierarchical"}});
    const auto listed = nested.find("one of: ");
    ASSERT_NE(listed, std::string::npos) << nested;
    EXPECT_EQ(nested.find("hierarchical", listed), std::string::npos) << nested;
  }
  EXPECT_NE(rejection({{"outer", "gready"}}).find("'outer' = 'gready'"), std::string::npos);
  EXPECT_NE(rejection({{"outer_every", "0"}}).find("out of range"), std::string::npos);
  EXPECT_NE(rejection({{"group_size", "-1"}}).find("out of range"), std::string::npos);
  EXPECT_NE(rejection({{"group_size", "2.5"}}).find("integer"), std::string::npos);
  EXPECT_NE(rejection({{"inner_every", "2"}}).find("unknown parameter"), std::string::npos);
  EXPECT_EQ(rejection({{"inner", "greedy"}, {"outer", "refine"}}), "");
}

}  // namespace
}  // namespace vela::lb
