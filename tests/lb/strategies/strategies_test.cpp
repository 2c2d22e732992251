// Properties of the registered strategies over many seeded random instances: every object gets
// a valid PE, pinned objects stay, and each strategy keeps its promise (balance reached, max
// never raised, fewer migrations, speeds respected, parameters checked).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {
namespace {

constexpr double kEps = 1e-9;  // relative slack for floating-point sums in different orders

// ---- A small model of PE time, kept independent of the code under test ----

std::vector<double> work_of(const Instance& in, const Assignment& a) {
  std::vector<double> work(in.pes.size(), 0.0);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    work[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
  }
  return work;
}

std::vector<double> times_of(const Instance& in, const Assignment& a) {
  std::vector<double> t = work_of(in, a);
  for (std::size_t p = 0; p < t.size(); ++p) t[p] = in.pes[p].background + t[p] / in.pes[p].speed;
  return t;
}

double max_time(const Instance& in, const Assignment& a) {
  const std::vector<double> t = times_of(in, a);
  return *std::max_element(t.begin(), t.end());
}

double mean_time(const Instance& in, const Assignment& a) {
  const std::vector<double> t = times_of(in, a);
  double sum = 0.0;
  for (const double x : t) sum += x;
  return sum / static_cast<double>(t.size());
}

double imbalance(const Instance& in, const Assignment& a) {
  return max_time(in, a) / mean_time(in, a) - 1.0;
}

// Time of each PE with only its non-migratable objects (what no strategy can change).
double max_pinned_time(const Instance& in) {
  Assignment a = current_assignment(in);
  std::vector<double> t(in.pes.size(), 0.0);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (!in.objects[i].migratable) t[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
  }
  double top = 0.0;
  for (std::size_t p = 0; p < t.size(); ++p) {
    top = std::max(top, in.pes[p].background + t[p] / in.pes[p].speed);
  }
  return top;
}

double max_migratable_load(const Instance& in) {
  double top = 0.0;
  for (const Object& o : in.objects) {
    if (o.migratable) top = std::max(top, o.load);
  }
  return top;
}

std::size_t moved(const Instance& in, const Assignment& a) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < in.objects.size(); ++i) count += a.pe[i] != in.objects[i].pe;
  return count;
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat named " << name;
  return -1.0;
}

Solution solve(const std::string& name, const Instance& in, const RawParams& params = {}) {
  return make_strategy(name, params)->solve(in);
}

// ---- Instances ----

struct Shape {
  std::size_t objects = 100;
  std::size_t pes = 8;
  bool heterogeneous = false;  // speeds from {0.5, 1, 2, 3}
  bool background = false;     // some PEs already busy
  double pinned = 0.0;         // fraction of non-migratable objects
  bool heavy_tail = false;     // loads spread over three orders of magnitude, some zero
  bool blocks = true;          // contiguous blocks of objects per PE, else random PEs
  double skew = 0.0;           // block placement: PE p gets up to (1 + skew) times its share
};

Instance make_instance(const Shape& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Instance in;
  in.dims = 2;
  in.pes.resize(shape.pes);
  for (Pe& pe : in.pes) {
    if (shape.heterogeneous) pe.speed = std::vector<double>{0.5, 1.0, 2.0, 3.0}[rng() % 4];
    if (shape.background && rng() % 3 == 0) pe.background = 5.0 * unit(rng);
  }
  // Block placement with PE p's share scaled by a factor in [1, 1 + skew].
  std::vector<double> share(shape.pes);
  double total_share = 0.0;
  for (double& s : share) total_share += (s = 1.0 + shape.skew * unit(rng));
  std::vector<double> boundary(shape.pes);
  double acc = 0.0;
  for (std::size_t p = 0; p < shape.pes; ++p) boundary[p] = (acc += share[p] / total_share);
  in.objects.resize(shape.objects);
  for (std::size_t i = 0; i < shape.objects; ++i) {
    Object& o = in.objects[i];
    o.id = static_cast<ObjectId>(1000 + 7 * i);
    if (shape.heavy_tail) {
      const double r = unit(rng);
      o.load = r < 0.05 ? 0.0 : std::pow(10.0, 3.0 * unit(rng) - 2.0);
    } else {
      o.load = 0.5 + unit(rng);
    }
    if (shape.blocks) {
      const double at = (static_cast<double>(i) + 0.5) / static_cast<double>(shape.objects);
      o.pe = static_cast<PeId>(std::lower_bound(boundary.begin(), boundary.end(), at) -
                               boundary.begin());
      o.pe = std::min(o.pe, static_cast<PeId>(shape.pes - 1));
    } else {
      o.pe = static_cast<PeId>(rng() % shape.pes);
    }
    o.migratable = unit(rng) >= shape.pinned;
    o.coords = {unit(rng) * 10.0, unit(rng) * 3.0, 0.0};
    o.size = 64;
  }
  validate(in);
  return in;
}

// Anything goes: sizes, PE counts, speeds, background, pinned objects, loads, placements.
Instance random_instance(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 11);
  Shape s;
  s.pes = 1 + rng() % 40;
  s.objects = rng() % 6 == 0 ? rng() % 10 : rng() % 1500;
  s.heterogeneous = rng() % 3 == 0;
  s.background = rng() % 3 == 0;
  s.pinned = rng() % 3 == 0 ? 0.2 : 0.0;
  s.heavy_tail = rng() % 3 == 0;
  s.blocks = rng() % 4 != 0;
  s.skew = 0.5 * static_cast<double>(rng() % 3);
  return make_instance(s, seed);
}

// Equal PEs, loads in [0.5, 1.5], block placement up to 20% over an even share.
Instance modest_imbalance(std::uint64_t seed, double pinned = 0.0) {
  std::mt19937_64 rng(seed);
  Shape s;
  s.pes = 4 + rng() % 60;
  s.objects = s.pes * (16 + rng() % 48);
  s.skew = 0.2;
  s.pinned = pinned;
  return make_instance(s, seed);
}

// Every strategy meant for instances of any size (the exact references have their own tests).
std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const StrategyInfo& info : strategies()) {
    if (!info.reference_only) names.push_back(info.name);
  }
  return names;
}

// The balancing strategies this file's properties are about.
const std::vector<std::string> kBalancers = {"greedy", "refine", "refine-swap", "greedy-refine"};

// ---- Every strategy ----

TEST(AllStrategies, PlaceEveryObjectOnAValidPeAndKeepPinnedObjects) {
  for (const std::string& name : strategy_names()) {
    for (std::uint64_t seed = 0; seed < 120; ++seed) {
      const Instance in = random_instance(seed);
      const Solution s = solve(name, in);
      SCOPED_TRACE(name + " seed " + std::to_string(seed));
      ASSERT_EQ(s.assignment.pe.size(), in.objects.size());
      for (std::size_t i = 0; i < in.objects.size(); ++i) {
        ASSERT_GE(s.assignment.pe[i], 0);
        ASSERT_LT(s.assignment.pe[i], static_cast<PeId>(in.pes.size()));
        if (!in.objects[i].migratable) {
          ASSERT_EQ(s.assignment.pe[i], in.objects[i].pe);
        }
      }
    }
  }
}

TEST(AllStrategies, AreReproducibleForTheSameParameters) {
  for (const std::string& name : strategy_names()) {
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      const Instance in = random_instance(seed);
      EXPECT_EQ(solve(name, in).assignment, solve(name, in).assignment) << name << " " << seed;
    }
  }
}

TEST(AllStrategies, HandleNoObjectsOnePeAndAllPinned) {
  Instance empty;
  empty.dims = 2;
  empty.pes.resize(3);
  Instance one_pe = make_instance({.objects = 50, .pes = 1}, 5);
  Instance pinned = make_instance({.objects = 200, .pes = 6, .pinned = 1.0, .skew = 1.0}, 6);
  for (const std::string& name : strategy_names()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(solve(name, empty).assignment.pe.empty());
    EXPECT_EQ(solve(name, one_pe).assignment, current_assignment(one_pe));
    EXPECT_EQ(solve(name, pinned).assignment, current_assignment(pinned));
  }
}

// ---- Testing strategies ----

TEST(Dummy, MovesNothing) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Instance in = random_instance(seed);
    EXPECT_EQ(solve("dummy", in).assignment, current_assignment(in));
  }
}

TEST(Rotate, MovesEveryMigratableObjectToTheNextPe) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Instance in = random_instance(seed);
    const Assignment a = solve("rotate", in).assignment;
    const auto pes = static_cast<PeId>(in.pes.size());
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      const Object& o = in.objects[i];
      ASSERT_EQ(a.pe[i], o.migratable ? (o.pe + 1) % pes : o.pe) << "seed " << seed;
    }
  }
}

TEST(Random, IsReproducibleForASeedAndMovesObjects) {
  const Instance in = make_instance({.objects = 4000, .pes = 16, .pinned = 0.1}, 3);
  const Assignment a = solve("random", in, {{"seed", "42"}}).assignment;
  EXPECT_EQ(a, solve("random", in, {{"seed", "42"}}).assignment);
  EXPECT_NE(a, solve("random", in, {{"seed", "43"}}).assignment);
  // A uniform PE differs from the current one with probability 15/16.
  std::size_t migratable = 0;
  for (const Object& o : in.objects) migratable += o.migratable;
  const double fraction = static_cast<double>(moved(in, a)) / static_cast<double>(migratable);
  EXPECT_NEAR(fraction, 15.0 / 16.0, 0.03);
  // Every PE gets some objects.
  const std::vector<double> work = work_of(in, a);
  for (const double w : work) EXPECT_GT(w, 0.0);
  // The same strategy object keeps drawing: a second call differs from the first.
  const auto strategy = make_strategy("random", {{"seed", "42"}});
  EXPECT_NE(strategy->solve(in).assignment, strategy->solve(in).assignment);
}

// ---- Greedy ----

TEST(Greedy, ReachesTwoPercentWithSixteenObjectsPerPe) {
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    std::mt19937_64 rng(seed);
    Shape s;
    s.pes = 2 + rng() % 200;
    s.objects = s.pes * (16 + rng() % 40);
    s.blocks = rng() % 2 == 0;
    s.skew = 1.0;
    const Instance in = make_instance(s, seed);
    EXPECT_LE(imbalance(in, solve("greedy", in).assignment), 0.02) << "seed " << seed;
  }
}

// Heaviest object first (lower index on equal loads) to the PE where it finishes earliest
// (lower PE on equal times), written the slow and obvious way.
Assignment reference_greedy(const Instance& in) {
  Assignment a = current_assignment(in);
  std::vector<double> work(in.pes.size(), 0.0);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (in.objects[i].migratable) {
      order.push_back(i);
    } else {
      work[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return in.objects[x].load > in.objects[y].load;
  });
  for (const std::size_t i : order) {
    const double load = in.objects[i].load;
    std::size_t best = 0;
    double best_finish = INFINITY;
    for (std::size_t p = 0; p < in.pes.size(); ++p) {
      const Pe& pe = in.pes[p];
      const double finish = (pe.background + work[p] / pe.speed) + load / pe.speed;
      if (finish < best_finish) {
        best = p;
        best_finish = finish;
      }
    }
    work[best] += load;
    a.pe[i] = static_cast<PeId>(best);
  }
  return a;
}

TEST(Greedy, MatchesTheRuleWrittenOut) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    Instance in = random_instance(seed);
    if (seed % 5 == 0) {  // large enough for the radix sort, with many equal loads
      in = make_instance({.objects = 6000, .pes = 24, .heterogeneous = true, .pinned = 0.1}, seed);
      for (Object& o : in.objects) o.load = std::round(o.load * 4.0) / 4.0;
    }
    EXPECT_EQ(solve("greedy", in).assignment, reference_greedy(in)) << "seed " << seed;
  }
}

TEST(Greedy, IsNearTheRuleWithManyDistinctSpeeds) {
  // Beyond 32 distinct speeds PEs are grouped by speed, so the choice may differ slightly.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Instance in = make_instance({.objects = 5000, .pes = 64, .skew = 1.0}, seed);
    std::mt19937_64 rng(seed);
    for (Pe& pe : in.pes) pe.speed = 0.5 + std::uniform_real_distribution<double>(0.0, 2.5)(rng);
    const double reference = max_time(in, reference_greedy(in));
    EXPECT_LE(max_time(in, solve("greedy", in).assignment), reference * 1.01) << "seed " << seed;
  }
}

TEST(Greedy, StaysWithinOneObjectOfTheMeanOnEqualPes) {
  // List scheduling: an object lands on a PE no busier than the mean, so
  // max <= max(pinned-only time, mean + heaviest object).
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    Shape s;
    s.pes = 1 + seed % 30;
    s.objects = seed * 13 % 900;
    s.background = true;
    s.pinned = 0.15;
    s.heavy_tail = seed % 2 == 0;
    const Instance in = make_instance(s, seed);
    const Assignment a = solve("greedy", in).assignment;
    const double bound = std::max(max_pinned_time(in), mean_time(in, a) + max_migratable_load(in));
    EXPECT_LE(max_time(in, a), bound * (1 + kEps)) << "seed " << seed;
  }
}

TEST(Greedy, GivesAPeTwiceAsFastTwiceTheWork) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Instance in = make_instance({.objects = 8000, .pes = 32, .skew = 1.0}, seed);
    for (std::size_t p = 0; p < in.pes.size(); p += 2) in.pes[p].speed = 2.0;
    const std::vector<double> work = work_of(in, solve("greedy", in).assignment);
    double fast = 0.0, slow = 0.0;
    for (std::size_t p = 0; p < work.size(); ++p) (p % 2 == 0 ? fast : slow) += work[p];
    EXPECT_NEAR(fast / slow, 2.0, 0.02) << "seed " << seed;
    for (std::size_t p = 0; p < work.size(); ++p) {
      EXPECT_NEAR(work[p] / in.pes[p].speed / (work[0] / in.pes[0].speed), 1.0, 0.02);
    }
  }
}

TEST(Greedy, AccountsForBackgroundLoad) {
  // PE 0 starts busy for a quarter of the work's time; balanced, every PE ends at 1.25 quarters
  // and PE 0 gets a quarter of a quarter of the work.
  Instance in = make_instance({.objects = 3000, .pes = 4}, 9);
  double total = 0.0;
  for (const Object& o : in.objects) total += o.load;
  in.pes[0].background = total / 4.0;
  const Assignment a = solve("greedy", in).assignment;
  EXPECT_LE(max_time(in, a), 1.25 * total / 4.0 + 1.5);
  EXPECT_NEAR(work_of(in, a)[0], 0.25 * total / 4.0, 1.5);
}

// ---- Refine and refine-swap ----

const std::vector<std::string> kTolerances = {"0", "0.02", "0.05", "0.3"};

TEST(Refine, NeverRaisesTheMaximum) {
  for (const std::string name : {"refine", "refine-swap"}) {
    for (const std::string& tolerance : kTolerances) {
      for (std::uint64_t seed = 0; seed < 120; ++seed) {
        const Instance in = random_instance(seed);
        const Assignment a = solve(name, in, {{"tolerance", tolerance}}).assignment;
        EXPECT_LE(max_time(in, a), max_time(in, current_assignment(in)) * (1 + kEps))
            << name << " tolerance " << tolerance << " seed " << seed;
      }
    }
  }
}

TEST(Refine, ReachesToleranceWithinOneObjectAndMovesFewerThanGreedy) {
  for (const std::string name : {"refine", "refine-swap"}) {
    for (const std::string& tolerance : kTolerances) {
      const double eps = std::stod(tolerance);
      for (std::uint64_t seed = 0; seed < 80; ++seed) {
        const Instance in = modest_imbalance(seed, seed % 3 == 0 ? 0.1 : 0.0);
        const Solution s = solve(name, in, {{"tolerance", tolerance}});
        const double mean = mean_time(in, s.assignment);
        const double bound =
            std::max(max_pinned_time(in), (1 + eps) * mean + max_migratable_load(in));
        SCOPED_TRACE(name + " tolerance " + tolerance + " seed " + std::to_string(seed));
        EXPECT_LE(max_time(in, s.assignment), bound * (1 + kEps));
        EXPECT_LT(moved(in, s.assignment), moved(in, solve("greedy", in).assignment) / 3);
        EXPECT_EQ(stat(s, "moves"), static_cast<double>(moved(in, s.assignment)));
      }
    }
  }
}

TEST(Refine, ReachesToleranceWithinOneObjectWhenObjectsAreCoarse) {
  // Two to six objects per PE, placed at random, some pinned: often no move fits within the
  // tolerance, and refine must keep lowering the maximum while a move still helps.
  for (const std::string name : {"refine", "refine-swap"}) {
    for (const std::string& tolerance : kTolerances) {
      const double eps = std::stod(tolerance);
      for (std::uint64_t seed = 0; seed < 100; ++seed) {
        const std::size_t pes = 2 + seed * 7 % 90;
        const Instance in = make_instance({.objects = pes * (2 + seed % 5),
                                           .pes = pes,
                                           .pinned = seed % 4 == 0 ? 0.2 : 0.0,
                                           .heavy_tail = seed % 2 == 0,
                                           .blocks = false},
                                          seed);
        const Assignment a = solve(name, in, {{"tolerance", tolerance}}).assignment;
        const double bound =
            std::max(max_pinned_time(in), (1 + eps) * mean_time(in, a) + max_migratable_load(in));
        EXPECT_LE(max_time(in, a), bound * (1 + kEps))
            << name << " tolerance " << tolerance << " seed " << seed;
      }
    }
  }
}

TEST(Refine, WithManySmallObjectsStopsAtTheTolerance) {
  // 400 objects per PE: refine should bring the maximum to the level, and not much lower.
  std::size_t checked = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const std::size_t pes = 4 + seed % 20;
    const Instance in = make_instance({.objects = pes * 400, .pes = pes, .skew = 0.5}, seed);
    if (imbalance(in, current_assignment(in)) < 0.06) continue;
    ++checked;
    const Assignment a = solve("refine", in).assignment;
    EXPECT_LE(imbalance(in, a), 0.05 + kEps) << "seed " << seed;
    EXPECT_GT(imbalance(in, a), 0.04) << "seed " << seed;
  }
  EXPECT_GE(checked, 30u);
}

TEST(Refine, LeavesABalancedPlacementAlone) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Instance in = modest_imbalance(seed);
    const Assignment balanced = solve("greedy", in).assignment;
    for (std::size_t i = 0; i < in.objects.size(); ++i) in.objects[i].pe = balanced.pe[i];
    ASSERT_LE(imbalance(in, balanced), 0.02);
    for (const std::string name : {"refine", "refine-swap", "greedy-refine"}) {
      EXPECT_EQ(solve(name, in).assignment, balanced) << name << " seed " << seed;
    }
  }
}

TEST(Refine, RespectsSpeeds) {
  // Equal work everywhere, but half the PEs are twice as fast: work must flow to them.
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    Instance in = make_instance({.objects = 6400, .pes = 32}, seed);
    for (std::size_t p = 0; p < in.pes.size(); p += 2) in.pes[p].speed = 2.0;
    double total = 0.0;
    for (const Object& o : in.objects) total += o.load;
    const double ideal = total / 48.0;  // total speed 16 * 2 + 16 * 1
    for (const std::string name : {"refine", "refine-swap", "greedy-refine", "greedy"}) {
      const Assignment a = solve(name, in).assignment;
      EXPECT_LE(max_time(in, a), 1.05 * ideal + 1.5) << name << " seed " << seed;
    }
  }
}

TEST(Refine, ReportsRounds) {
  const Instance in = modest_imbalance(1);
  EXPECT_GE(stat(solve("refine", in), "rounds"), 1.0);
  EXPECT_GE(stat(solve("refine-swap", in), "rounds"), 1.0);
  EXPECT_EQ(stat(solve("refine-swap", in), "swaps"), 0.0);  // single moves suffice here
}

TEST(RefineSwap, IsNeverWorseThanRefine) {
  for (const std::string& tolerance : kTolerances) {
    for (std::uint64_t seed = 0; seed < 150; ++seed) {
      const Instance in = random_instance(seed);
      const RawParams p = {{"tolerance", tolerance}};
      EXPECT_LE(max_time(in, solve("refine-swap", in, p).assignment),
                max_time(in, solve("refine", in, p).assignment) * (1 + kEps))
          << "tolerance " << tolerance << " seed " << seed;
    }
  }
}

Instance two_pes(std::vector<std::vector<double>> loads) {
  Instance in;
  in.pes.resize(loads.size());
  for (std::size_t p = 0; p < loads.size(); ++p) {
    for (const double load : loads[p]) {
      Object o;
      o.id = static_cast<ObjectId>(in.objects.size());
      o.load = load;
      o.pe = static_cast<PeId>(p);
      in.objects.push_back(o);
    }
  }
  return in;
}

TEST(RefineSwap, SwapsWhenNoSingleMoveHelps) {
  // 20 | 18: moving a 10 gives 10 | 28; swapping a 10 for a 9 gives 19 | 19.
  const Instance in = two_pes({{10.0, 10.0}, {9.0, 9.0}});
  EXPECT_EQ(solve("refine", in).assignment, current_assignment(in));
  const Solution s = solve("refine-swap", in);
  EXPECT_DOUBLE_EQ(max_time(in, s.assignment), 19.0);
  EXPECT_EQ(stat(s, "swaps"), 1.0);
  EXPECT_EQ(moved(in, s.assignment), 2u);
}

TEST(RefineSwap, ImprovesOnRefineWhereObjectsAreCoarse) {
  // Two to four big objects per PE: single moves often cannot help, swaps can.
  std::size_t better = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    const Instance in = make_instance(
        {.objects = 24 + seed % 24, .pes = 8 + seed % 4, .blocks = false, .skew = 0.0}, seed);
    const double refine = max_time(in, solve("refine", in).assignment);
    const double swap = max_time(in, solve("refine-swap", in).assignment);
    EXPECT_LE(swap, refine * (1 + kEps));
    better += swap < refine * (1 - 1e-6);
  }
  EXPECT_GE(better, 40u) << better << " of 100 better";
}

// ---- Greedy-refine ----

TEST(GreedyRefine, HasGreedyQualityWithinToleranceAndFewerMoves) {
  for (const std::string& tolerance : kTolerances) {
    const double eps = std::stod(tolerance);
    for (std::uint64_t seed = 0; seed < 80; ++seed) {
      const Instance in = modest_imbalance(seed, seed % 3 == 0 ? 0.1 : 0.0);
      const Assignment greedy = solve("greedy", in).assignment;
      const Solution s = solve("greedy-refine", in, {{"tolerance", tolerance}});
      SCOPED_TRACE("tolerance " + tolerance + " seed " + std::to_string(seed));
      if (eps > 0.0) {
        EXPECT_LE(imbalance(in, s.assignment), imbalance(in, greedy) + eps + kEps);
      } else {  // keeps objects up to the ideal time only; the rest fill the gaps greedily
        EXPECT_LE(imbalance(in, s.assignment), 0.02);
      }
      EXPECT_LT(moved(in, s.assignment), moved(in, greedy) / 3);
      EXPECT_EQ(stat(s, "moves"), static_cast<double>(moved(in, s.assignment)));
    }
  }
}

// Coarse storms: 16 objects per PE, a few of them four times heavier. The heavy objects that
// must move need room that light objects staying put would otherwise take.
TEST(GreedyRefine, MovesHeavyObjectsBeforeTheLightOnesFillThePes) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    BramsOptions o;
    o.nx = o.ny = 32;
    o.seed = seed;
    o.storms = std::vector<Storm>{{5.0 + static_cast<double>(seed), 12.0, 6.0, 4.0}};
    const Instance in = generate_brams(o);
    const Assignment greedy = solve("greedy", in).assignment;
    const Assignment kept = solve("greedy-refine", in).assignment;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_LE(imbalance(in, kept), imbalance(in, greedy) + 0.05 + kEps);
    EXPECT_LT(moved(in, kept), moved(in, greedy) / 5);
  }
}

TEST(GreedyRefine, KeepsEverythingUnderALargeTolerance) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Instance in = modest_imbalance(seed);
    EXPECT_EQ(solve("greedy-refine", in, {{"tolerance", "10"}}).assignment, current_assignment(in));
    EXPECT_EQ(solve("refine", in, {{"tolerance", "10"}}).assignment, current_assignment(in));
    EXPECT_NE(solve("greedy-refine", in, {{"tolerance", "0"}}).assignment, current_assignment(in));
  }
}

// ---- Parameters and names ----

TEST(StrategyParameters, TheBalancersDeclareTheirParameters) {
  EXPECT_TRUE(find_strategy("greedy").params.empty());
  for (const std::string name : {"refine", "refine-swap", "greedy-refine"}) {
    const StrategyInfo& info = find_strategy(name);
    ASSERT_EQ(info.params.size(), 1u) << name;
    EXPECT_EQ(info.params[0].name, "tolerance");
    EXPECT_DOUBLE_EQ(info.params[0].default_value, 0.05);
    EXPECT_DOUBLE_EQ(info.params[0].min, 0.0);
    EXPECT_DOUBLE_EQ(info.params[0].max, 10.0);
  }
}

void expect_rejected(const std::string& name, const RawParams& params,
                     const std::vector<std::string>& words) {
  try {
    make_strategy(name, params);
    ADD_FAILURE() << name << " accepted bad parameters";
  } catch (const ParamError& e) {
    for (const std::string& word : words) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos)
          << "'" << e.what() << "' does not mention " << word;
    }
  }
}

TEST(StrategyParameters, BadParametersAreRejectedNamingStrategyAndParameter) {
  for (const std::string& name : kBalancers) {
    expect_rejected(name, {{"tolerence", "0.1"}}, {name, "tolerence"});
  }
  for (const std::string name : {"refine", "refine-swap", "greedy-refine"}) {
    expect_rejected(name, {{"tolerance", "11"}}, {name, "tolerance", "range"});
    expect_rejected(name, {{"tolerance", "-0.1"}}, {name, "tolerance", "range"});
    expect_rejected(name, {{"tolerance", "lots"}}, {name, "tolerance"});
  }
  EXPECT_NO_THROW(make_strategy("refine", {{"tolerance", "10"}}));
  EXPECT_NO_THROW(make_strategy("greedy-refine", {{"tolerance", "0"}}));
}

TEST(StrategyParameters, AnUnknownStrategyIsRejectedListingTheKnownOnes) {
  std::vector<std::string> words = {"'balanced-ish'"};
  for (const std::string& name : strategy_names()) words.push_back(name);
  expect_rejected("balanced-ish", {}, words);
  for (const std::string& name : kBalancers) EXPECT_EQ(find_strategy(name).name, name);
}

}  // namespace
}  // namespace vela::lb
