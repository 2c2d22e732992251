// Properties of the communication-aware strategies refine-comm and rec-bisect-bf
// over many seeded 2-D grid instances with 4-neighbour halo exchange: valid assignments, pinned
// objects kept, determinism, balance promises, and a communication cut that beats the
// communication-blind alternatives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb::builtin {
StrategyInfo refine_comm();
StrategyInfo rec_bisect_bf();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

constexpr double kEps = 1e-9;

std::unique_ptr<Strategy> make(const StrategyInfo& info, const RawParams& raw = {}) {
  return info.make(ParamValues(info.name, info.params, raw));
}

struct GridOptions {
  int min_side = 6;
  int max_side = 40;
  int min_pes = 2;
  int max_pes = 32;
  double pinned_fraction = 0.0;
  double perturb_fraction = 0.05;  // objects moved to a random PE after the block placement
};

// An nx x ny grid of objects, each exchanging halo bytes with its 4 neighbours (one edge per
// direction). Loads are random with a heavy hot spot; objects start in blocks of a px x py PE
// grid, then a few move to random PEs.
Instance grid_instance(std::uint64_t seed, const GridOptions& opt = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> side(opt.min_side, opt.max_side);
  const int nx = side(rng);
  const int ny = side(rng);
  const int pes = std::uniform_int_distribution<int>(opt.min_pes, opt.max_pes)(rng);
  int px = 1;
  while ((px + 1) * (px + 1) <= pes) ++px;
  const int py = (pes + px - 1) / px;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double hx = unit(rng) * nx;
  const double hy = unit(rng) * ny;
  const double radius = 2.0 + unit(rng) * nx / 3.0;
  Instance in;
  in.dims = 2;
  in.pes.resize(static_cast<std::size_t>(pes));
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      Object o;
      o.id = y * nx + x;
      const double dx = x - hx;
      const double dy = y - hy;
      const double hot = dx * dx + dy * dy < radius * radius ? 3.0 : 1.0;
      o.load = hot * (0.5 + unit(rng));
      o.size = 1000;
      o.coords = {static_cast<double>(x), static_cast<double>(y), 0.0};
      const int bx = std::min(px - 1, x * px / nx);
      const int by = std::min(py - 1, y * py / ny);
      o.pe = static_cast<PeId>(std::min(pes - 1, by * px + bx));
      if (unit(rng) < opt.perturb_fraction) {
        o.pe = static_cast<PeId>(std::uniform_int_distribution<int>(0, pes - 1)(rng));
      }
      o.migratable = !(unit(rng) < opt.pinned_fraction);
      in.objects.push_back(o);
    }
  }
  const auto at = [nx](int x, int y) { return static_cast<std::uint32_t>(y * nx + x); };
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      const std::uint64_t bytes = 800 + static_cast<std::uint64_t>(unit(rng) * 400);
      if (x + 1 < nx) {
        in.edges.push_back({at(x, y), at(x + 1, y), 1, bytes});
        in.edges.push_back({at(x + 1, y), at(x, y), 1, bytes});
      }
      if (y + 1 < ny) {
        in.edges.push_back({at(x, y), at(x, y + 1), 1, bytes});
        in.edges.push_back({at(x, y + 1), at(x, y), 1, bytes});
      }
    }
  }
  validate(in);
  return in;
}

double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double max_object_load(const Instance& in) {
  double top = 0.0;
  for (const Object& o : in.objects) top = std::max(top, o.load);
  return top;
}

double max_fixed(const Instance& in) {
  return max_of(fixed_pe_loads(in));
}

void expect_valid(const Instance& in, const Assignment& a, const std::string& what) {
  ASSERT_EQ(a.pe.size(), in.objects.size()) << what;
  EXPECT_NO_THROW(validate(in, a)) << what;
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (!in.objects[i].migratable) {
      EXPECT_EQ(a.pe[i], in.objects[i].pe) << what << " object " << i;
    }
  }
}

constexpr int kInstances = 60;

// ---- refine-comm ----

TEST(RefineComm, ValidKeepsPinnedAndIsDeterministic) {
  GridOptions opt;
  opt.pinned_fraction = 0.1;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(1000 + static_cast<std::uint64_t>(s), opt);
    const Solution first = make(builtin::refine_comm())->solve(in);
    expect_valid(in, first.assignment, "seed " + std::to_string(s));
    EXPECT_EQ(first.assignment, make(builtin::refine_comm())->solve(in).assignment);
  }
}

TEST(RefineComm, NeverRaisesMaxAndReachesBalance) {
  for (const double pinned : {0.0, 0.1}) {
    GridOptions opt;
    opt.pinned_fraction = pinned;
    for (int s = 0; s < kInstances; ++s) {
      const Instance in = grid_instance(2000 + static_cast<std::uint64_t>(s), opt);
      for (const double tolerance : {0.0, 0.05, 0.2}) {
        const Assignment a =
            make(builtin::refine_comm(), {{"tolerance", std::to_string(tolerance)}})
                ->solve(in)
                .assignment;
        const std::vector<double> before = pe_loads(in, current_assignment(in));
        const std::vector<double> after = pe_loads(in, a);
        const double top = max_of(after);
        EXPECT_LE(top, max_of(before) * (1 + kEps)) << "seed " << s;
        // Equal speeds: within one object of the level, unless pinned work alone is higher.
        const double bound =
            std::max((1 + tolerance) * ideal_time(in) + max_object_load(in), max_fixed(in));
        EXPECT_LE(top, bound * (1 + kEps)) << "seed " << s << " tolerance " << tolerance;
        if (pinned == 0.0) {
          EXPECT_LE(top, (1 + tolerance) * mean_of(after) + max_object_load(in) + kEps);
        }
      }
    }
  }
}

TEST(RefineComm, CutsLessCommunicationThanRefine) {
  std::uint64_t comm_total = 0;
  std::uint64_t refine_total = 0;
  int not_worse = 0;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(3000 + static_cast<std::uint64_t>(s));
    const Assignment mine = make(builtin::refine_comm())->solve(in).assignment;
    const Assignment theirs = make_strategy("refine")->solve(in).assignment;
    const std::uint64_t c = comm_cut(in, mine).bytes;
    const std::uint64_t r = comm_cut(in, theirs).bytes;
    comm_total += c;
    refine_total += r;
    not_worse += c <= r ? 1 : 0;
  }
  EXPECT_LT(comm_total, refine_total);
  EXPECT_GE(not_worse, kInstances * 3 / 4);
}

TEST(RefineComm, BalancedInstanceIsLeftAlone) {
  Instance in = grid_instance(42, {.min_side = 8,
                                   .max_side = 8,
                                   .min_pes = 4,
                                   .max_pes = 4,
                                   .pinned_fraction = 0.0,
                                   .perturb_fraction = 0.0});
  for (Object& o : in.objects) o.load = 1.0;
  in.objects.resize(64);
  const Assignment a = make(builtin::refine_comm())->solve(in).assignment;
  EXPECT_EQ(a, current_assignment(in));
}

TEST(RefineComm, Parameters) {
  const StrategyInfo info = builtin::refine_comm();
  EXPECT_EQ(info.name, "refine-comm");
  ASSERT_EQ(info.params.size(), 1u);
  EXPECT_EQ(info.params[0].name, "tolerance");
  EXPECT_DOUBLE_EQ(info.params[0].default_value, 0.05);
  EXPECT_NO_THROW(make(info, {{"tolerance", "0"}}));
  EXPECT_NO_THROW(make(info, {{"tolerance", "10"}}));
  EXPECT_THROW(make(info, {{"tolerance", "-0.1"}}), ParamError);
  EXPECT_THROW(make(info, {{"tolerance", "10.5"}}), ParamError);
  EXPECT_THROW(make(info, {{"tolerance", "abc"}}), ParamError);
  EXPECT_THROW(make(info, {{"bogus", "1"}}), ParamError);
}

TEST(RefineComm, EdgeCases) {
  Instance in;
  in.pes.resize(3);
  EXPECT_TRUE(make(builtin::refine_comm())->solve(in).assignment.pe.empty());
  // All work on one PE, no edges: spread out like refine.
  for (int i = 0; i < 30; ++i) in.objects.push_back({i, 1.0, 0, {}, 0, true});
  const Assignment a = make(builtin::refine_comm())->solve(in).assignment;
  EXPECT_LE(max_of(pe_loads(in, a)), 10.0 * 1.05 + 1.0);
}

// ---- rec-bisect-bf ----

TEST(RecBisectBf, ValidKeepsPinnedAndIsDeterministic) {
  GridOptions opt;
  opt.pinned_fraction = 0.1;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(4000 + static_cast<std::uint64_t>(s), opt);
    const Solution first = make(builtin::rec_bisect_bf())->solve(in);
    expect_valid(in, first.assignment, "seed " + std::to_string(s));
    EXPECT_EQ(first.assignment, make(builtin::rec_bisect_bf())->solve(in).assignment);
  }
}

TEST(RecBisectBf, BalancesWithinAboutOneObject) {
  double worst_excess = 0.0;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(5000 + static_cast<std::uint64_t>(s));
    const Assignment a = make(builtin::rec_bisect_bf())->solve(in).assignment;
    const LoadStats st = load_stats(pe_loads(in, a));
    const double allowed = max_object_load(in) / st.mean;
    worst_excess = std::max(worst_excess, st.imbalance - allowed);
    EXPECT_LE(st.imbalance, allowed + 0.05) << "seed " << s;
  }
  RecordProperty("worst_excess", std::to_string(worst_excess));
}

TEST(RecBisectBf, PinnedWorkCountsAgainstItsPe) {
  GridOptions opt;
  opt.pinned_fraction = 0.1;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(5500 + static_cast<std::uint64_t>(s), opt);
    const Assignment a = make(builtin::rec_bisect_bf())->solve(in).assignment;
    const double top = max_of(pe_loads(in, a));
    EXPECT_LE(top, std::max(ideal_time(in), max_fixed(in)) + 2.0 * max_object_load(in))
        << "seed " << s;
  }
}

TEST(RecBisectBf, CutFarBelowRandomPlacement) {
  std::uint64_t mine_total = 0;
  std::uint64_t random_total = 0;
  for (int s = 0; s < kInstances; ++s) {
    const Instance in = grid_instance(6000 + static_cast<std::uint64_t>(s),
                                      {.min_side = 16, .max_side = 48, .min_pes = 4});
    const Assignment a = make(builtin::rec_bisect_bf())->solve(in).assignment;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s));
    Assignment r;
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      r.pe.push_back(static_cast<PeId>(rng() % in.pes.size()));
    }
    mine_total += comm_cut(in, a).bytes;
    random_total += comm_cut(in, r).bytes;
  }
  EXPECT_LT(static_cast<double>(mine_total), 0.3 * static_cast<double>(random_total));
}

TEST(RecBisectBf, FasterPeGetsProportionallyMoreWork) {
  for (int s = 0; s < 20; ++s) {
    Instance in = grid_instance(7000 + static_cast<std::uint64_t>(s),
                                {.min_side = 20, .max_side = 30, .min_pes = 2, .max_pes = 2});
    in.pes[1].speed = 2.0;
    const Assignment a = make(builtin::rec_bisect_bf())->solve(in).assignment;
    std::vector<double> work(2, 0.0);
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      work[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
    }
    const double total = work[0] + work[1];
    EXPECT_NEAR(work[1] / total, 2.0 / 3.0, max_object_load(in) / total + kEps) << "seed " << s;
  }
  // Three PEs, speeds 1, 1, 2: times even out.
  Instance in = grid_instance(7100, {.min_side = 30, .max_side = 30, .min_pes = 3, .max_pes = 3});
  in.pes[2].speed = 2.0;
  const LoadStats st =
      load_stats(pe_loads(in, make(builtin::rec_bisect_bf())->solve(in).assignment));
  EXPECT_LE(st.imbalance, 2.0 * max_object_load(in) / st.mean + kEps);
}

TEST(RecBisectBf, DisconnectedAndZeroLoads) {
  Instance in;
  in.pes.resize(4);
  for (int i = 0; i < 40; ++i) in.objects.push_back({i, 0.0, 0, {}, 0, true});
  // Two chains of 20, not connected to each other.
  for (std::uint32_t i = 0; i + 1 < 40; ++i) {
    if (i != 19) in.edges.push_back({i, i + 1, 1, 100});
  }
  const Assignment a = make(builtin::rec_bisect_bf())->solve(in).assignment;
  std::vector<int> count(4, 0);
  for (const PeId p : a.pe) ++count[static_cast<std::size_t>(p)];
  for (const int c : count) EXPECT_EQ(c, 10);  // zero loads: split by count
  EXPECT_EQ(comm_cut(in, a).bytes, 200u);      // one cut inside each chain
}

TEST(RecBisectBf, Parameters) {
  const StrategyInfo info = builtin::rec_bisect_bf();
  EXPECT_EQ(info.name, "rec-bisect-bf");
  EXPECT_TRUE(info.params.empty());
  EXPECT_NO_THROW(make(info));
  EXPECT_THROW(make(info, {{"tolerance", "0.1"}}), ParamError);
}

}  // namespace
}  // namespace vela::lb
