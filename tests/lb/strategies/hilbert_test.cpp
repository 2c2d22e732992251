// The Hilbert strategy: the curve order is a space-filling curve, the cut gives each PE
// one contiguous segment holding its share of the work to within one object.
#include "vela/lb/strategies/hilbert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/lb/model/strategy.hpp"
#include "vela/lb/strategies/registry.hpp"

// Defined in src/lb/strategies/hilbert.cpp; reached directly so these tests do not depend on
// every other registered strategy being built.
namespace vela::lb::builtin {
StrategyInfo hilbert();
}

namespace vela::lb {
namespace {

using Cell = std::array<int, 3>;

// One object per lattice point of a box with the given extents (2 or 3 of them), listed in a
// shuffled order so the curve cannot come from the listing order.
Instance grid(const std::vector<int>& extent, std::uint64_t seed = 1) {
  Instance instance;
  instance.dims = static_cast<int>(extent.size());
  instance.pes.resize(1);
  const int depth = extent.size() == 3 ? extent[2] : 1;
  for (int z = 0; z < depth; ++z) {
    for (int y = 0; y < extent[1]; ++y) {
      for (int x = 0; x < extent[0]; ++x) {
        Object o;
        o.load = 1.0;
        o.coords = {double(x), double(y), double(z)};
        instance.objects.push_back(o);
      }
    }
  }
  std::mt19937_64 rng(seed);
  std::shuffle(instance.objects.begin(), instance.objects.end(), rng);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    instance.objects[i].id = static_cast<ObjectId>(i);
  }
  return instance;
}

std::vector<Cell> cells_in_order(const Instance& instance,
                                 const std::vector<std::uint32_t>& order) {
  std::vector<Cell> cells;
  for (const std::uint32_t position : order) {
    const auto& c = instance.objects.at(position).coords;
    cells.push_back({int(c[0]), int(c[1]), int(c[2])});
  }
  return cells;
}

int distance(const Cell& a, const Cell& b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

struct Steps {
  int jumps = 0;    // consecutive cells that are not grid neighbours
  int longest = 0;  // longest Manhattan step
};

Steps steps(const std::vector<Cell>& cells) {
  Steps s;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    const int d = distance(cells[i - 1], cells[i]);
    s.jumps += d != 1 ? 1 : 0;
    s.longest = std::max(s.longest, d);
  }
  return s;
}

// Every lattice point of the box appears exactly once.
void expect_each_cell_once(const std::vector<Cell>& cells, const std::vector<int>& extent) {
  const int depth = extent.size() == 3 ? extent[2] : 1;
  const auto width = static_cast<std::size_t>(extent[0]);
  const auto height = static_cast<std::size_t>(extent[1]);
  std::vector<int> seen(width * height * static_cast<std::size_t>(depth));
  ASSERT_EQ(cells.size(), seen.size());
  for (const Cell& c : cells) {
    ASSERT_TRUE(c[0] >= 0 && c[0] < extent[0] && c[1] >= 0 && c[1] < extent[1] && c[2] >= 0 &&
                c[2] < depth);
    ++seen[(std::size_t(c[2]) * height + std::size_t(c[1])) * width + std::size_t(c[0])];
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

int next_power_of_two(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// A true Hilbert curve of a 2^k cube (or square): it visits every cell once in unit steps,
// and every aligned sub-cube of side 2^j is one contiguous run of the curve (what tells it from
// a snake scan, which also moves in unit steps).
void expect_hilbert_curve(int dims, int levels) {
  const int side = 1 << levels;
  const std::vector<int> extent(static_cast<std::size_t>(dims), side);
  const Instance instance = grid(extent, std::uint64_t(levels) + 7);
  const std::vector<Cell> cells = cells_in_order(instance, hilbert_order(instance));
  expect_each_cell_once(cells, extent);
  EXPECT_EQ(steps(cells).jumps, 0) << dims << "-D side " << side;
  EXPECT_EQ(cells.front(), (Cell{0, 0, 0}));
  EXPECT_EQ(cells.back(), (Cell{side - 1, 0, 0}));  // one orientation for every size
  for (int j = 1; j < levels; ++j) {
    const std::size_t run = std::size_t{1} << (dims * j);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const Cell& here = cells[i];
      const Cell& start = cells[i - i % run];
      for (std::size_t a = 0; a < 3; ++a) {
        ASSERT_EQ(here[a] >> j, start[a] >> j)
            << dims << "-D side " << side << ": sub-cube of side " << (1 << j) << " is split";
      }
    }
  }
}

TEST(HilbertOrder, PowerOfTwoSquareIsAHilbertCurve) {
  for (int levels = 0; levels <= 7; ++levels) expect_hilbert_curve(2, levels);
}

TEST(HilbertOrder, PowerOfTwoCubeIsAHilbertCurve) {
  for (int levels = 0; levels <= 4; ++levels) expect_hilbert_curve(3, levels);
}

// Boxes whose padded size is already exact (power-of-two cross-sections, a multiple of the
// block side along the long axis) are covered without a single jump.
TEST(HilbertOrder, ChainedBlocksJoinAtNeighbouringCells) {
  const std::vector<std::vector<int>> shapes = {{64, 16},     {16, 64},    {96, 32},    {50, 1},
                                                {1, 50},      {64, 32, 8}, {8, 32, 64}, {16, 16, 2},
                                                {96, 32, 32}, {40, 4, 4}};
  for (const auto& extent : shapes) {
    const Instance instance = grid(extent);
    const std::vector<Cell> cells = cells_in_order(instance, hilbert_order(instance));
    expect_each_cell_once(cells, extent);
    EXPECT_EQ(steps(cells).jumps, 0) << "shape " << extent[0] << "x" << extent[1];
  }
}

// Any box: every cell once, and few, short jumps. The order is one continuous curve over the
// box padded to blocks of side m = 2^ceil(log2 M) along the longest side L (M the middle
// extent, S the shortest, t = 2^ceil(log2 S)) with the padding skipped, so a jump is an
// excursion into the padding: it leaves and re-enters through two distinct cell faces on the
// domain's cut planes, each face crossed at most once (every cell is visited once). Hence
// jumps <= (cut faces) / 2, and a jump never leaves one padded block, so it is shorter than
// the block's diameter.
TEST(HilbertOrder, AnyBoxIsCoveredWithFewShortJumps) {
  const std::vector<std::vector<int>> shapes = {
      {12, 7},     {7, 12},      {100, 3},     {3, 100},    {33, 65},  {65, 33},   {100, 100},
      {127, 127},  {1000, 7},    {200, 70},    {5, 5},      {5, 5, 3}, {12, 7, 5}, {100, 3, 3},
      {33, 17, 9}, {64, 64, 17}, {30, 30, 30}, {3, 45, 11}, {1, 1, 1}, {2, 3}};
  for (const auto& extent : shapes) {
    const Instance instance = grid(extent);
    const std::vector<Cell> cells = cells_in_order(instance, hilbert_order(instance));
    expect_each_cell_once(cells, extent);
    std::vector<long> sorted(extent.begin(), extent.end());
    if (sorted.size() == 2) sorted.push_back(1);
    std::sort(sorted.rbegin(), sorted.rend());
    const long l = sorted[0], m = sorted[1], s = sorted[2];
    const long block = next_power_of_two(int(m)), cube = next_power_of_two(int(s));
    const long cut_faces =
        (s < cube ? l * m : 0) + (m < block ? l * s : 0) + (l % block != 0 ? m * s : 0);
    const Steps found = steps(cells);
    std::string name = std::to_string(extent[0]) + "x" + std::to_string(extent[1]);
    if (extent.size() == 3) name += "x" + std::to_string(extent[2]);
    EXPECT_LE(found.jumps, cut_faces / 2) << name;
    EXPECT_LT(found.longest, 2 * block + cube) << name;
  }
}

// On a long strip the curve advances along the strip: cut into P equal runs, each run spans
// about its share of the length, not the whole strip.
TEST(HilbertOrder, ElongatedDomainsGiveCompactSegments) {
  const std::vector<std::vector<int>> shapes = {{1000, 6}, {6, 1000},   {512, 40},   {300, 70},
                                                {65, 33},  {200, 6, 5}, {6, 5, 200}, {300, 64, 8}};
  for (const auto& extent : shapes) {
    const Instance instance = grid(extent);
    const std::vector<Cell> cells = cells_in_order(instance, hilbert_order(instance));
    const auto long_axis =
        std::size_t(std::max_element(extent.begin(), extent.end()) - extent.begin());
    const int length = extent[long_axis];
    const int across = int(cells.size()) / length;  // cells per unit of length
    int middle = 1;
    for (std::size_t a = 0; a < extent.size(); ++a) {
      if (a != long_axis) middle = std::max(middle, extent[a]);
    }
    for (const int parts : {4, 16}) {
      const std::size_t run = cells.size() / std::size_t(parts);
      for (std::size_t begin = 0; begin + run <= cells.size(); begin += run) {
        int low = length, high = 0;
        for (std::size_t i = begin; i < begin + run; ++i) {
          low = std::min(low, cells[i][long_axis]);
          high = std::max(high, cells[i][long_axis]);
        }
        EXPECT_LE(high - low + 1, int(run) / across + 2 * next_power_of_two(middle))
            << extent[0] << "x" << extent[1] << " in " << parts << " parts";
      }
    }
  }
}

TEST(HilbertOrder, DependsOnlyOnRelativeIntegerPositions) {
  Instance instance = grid({37, 21}, 3);
  const std::vector<std::uint32_t> order = hilbert_order(instance);
  for (Object& o : instance.objects) {
    o.coords[0] += 1000.0;
    o.coords[1] -= 77.0;
    o.coords[2] = 5.0;  // beyond dims: ignored
  }
  EXPECT_EQ(hilbert_order(instance), order);
}

TEST(HilbertOrder, NonIntegerCoordinatesKeepLocality) {
  Instance instance = grid({64, 64}, 5);
  for (Object& o : instance.objects) {
    o.coords[0] = 10.0 + (o.coords[0] + 0.5) * 0.37;
    o.coords[1] = -3.0 + (o.coords[1] + 0.5) * 0.37;
  }
  const std::vector<std::uint32_t> order = hilbert_order(instance);
  std::vector<std::uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> expected(order.size());
  std::iota(expected.begin(), expected.end(), 0U);
  ASSERT_EQ(sorted, expected);
  // Consecutive objects stay close: one step of the 64x64 grid is 0.37 long.
  double total_step = 0.0;
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto& a = instance.objects[order[i - 1]].coords;
    const auto& b = instance.objects[order[i]].coords;
    total_step += std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]);
  }
  EXPECT_LT(total_step / double(order.size() - 1), 2.0 * 0.37);
}

TEST(HilbertOrder, OneAndZeroDimensions) {
  Instance instance;
  instance.pes.resize(1);
  for (const double x : {3.0, -1.5, 7.0, 3.0, 0.0}) {
    Object o;
    o.id = ObjectId(instance.objects.size());
    o.coords = {x, 9.0 - x, 0.0};
    instance.objects.push_back(o);
  }
  instance.dims = 1;
  EXPECT_EQ(hilbert_order(instance), (std::vector<std::uint32_t>{1, 4, 0, 3, 2}));
  instance.dims = 0;
  EXPECT_EQ(hilbert_order(instance), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
}

TEST(HilbertOrder, RejectsBadInput) {
  Instance instance = grid({4, 4});
  EXPECT_THROW(hilbert_order(instance, 0), std::invalid_argument);
  EXPECT_THROW(hilbert_order(instance, kHilbertMaxBits + 1), std::invalid_argument);
  instance.objects[3].coords[1] = std::nan("");
  EXPECT_THROW(hilbert_order(instance), InstanceError);
}

// ---------------------------------------------------------------------------------------------
// The cut.

// Random instances: coordinates integer or not, loads with zeros and heavy outliers, optional
// PE speeds, backgrounds and non-migratable objects.
Instance random_instance(std::mt19937_64& rng, bool heterogeneous) {
  Instance instance;
  instance.dims = int(rng() % 4);
  const std::size_t n = rng() % 3000;
  const std::size_t pes = 1 + rng() % 70;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const bool integer = rng() % 2 == 0;
  for (std::size_t p = 0; p < pes; ++p) {
    Pe pe;
    if (heterogeneous) {
      pe.speed = 0.25 + 3.0 * unit(rng);
      pe.background = rng() % 3 == 0 ? 50.0 * unit(rng) : 0.0;
    }
    instance.pes.push_back(pe);
  }
  for (std::size_t i = 0; i < n; ++i) {
    Object o;
    o.id = ObjectId(i);
    const double draw = unit(rng);
    o.load = draw < 0.1 ? 0.0 : draw < 0.12 ? 20.0 * unit(rng) : unit(rng);
    for (double& c : o.coords) c = integer ? double(rng() % 50) : 100.0 * unit(rng) - 30.0;
    o.pe = PeId(rng() % pes);
    o.migratable = !heterogeneous || unit(rng) > 0.1;
    instance.objects.push_back(o);
  }
  return instance;
}

// Independent oracle for the targets: bisection on the common finish time T.
std::vector<double> expected_targets(const Instance& instance) {
  std::vector<double> fixed;
  for (const Pe& pe : instance.pes) fixed.push_back(pe.background);
  double work = 0.0;
  for (const Object& o : instance.objects) {
    if (o.migratable) {
      work += o.load;
    } else {
      fixed[std::size_t(o.pe)] += o.load / instance.pes[std::size_t(o.pe)].speed;
    }
  }
  const auto placed = [&](double t) {
    double sum = 0.0;
    for (std::size_t p = 0; p < fixed.size(); ++p) {
      sum += std::max(0.0, t - fixed[p]) * instance.pes[p].speed;
    }
    return sum;
  };
  double low = 0.0, high = 1.0;
  while (placed(high) < work) high *= 2.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (low + high);
    (placed(mid) < work ? low : high) = mid;
  }
  std::vector<double> targets;
  for (std::size_t p = 0; p < fixed.size(); ++p) {
    targets.push_back(std::max(0.0, high - fixed[p]) * instance.pes[p].speed);
  }
  return targets;
}

// Checks every promise of hilbert_cut for `instance` cut along `order`.
void expect_valid_cut(const Instance& instance, const std::vector<std::uint32_t>& order,
                      const Assignment& a) {
  validate(instance, a);
  double work = 0.0, heaviest = 0.0;
  for (const Object& o : instance.objects) {
    if (!o.migratable) continue;
    work += o.load;
    heaviest = std::max(heaviest, o.load);
  }
  // Non-migratable objects stay; migratable ones run through the PEs in order.
  PeId previous = 0;
  for (const std::uint32_t position : order) {
    const Object& o = instance.objects[position];
    if (!o.migratable) {
      ASSERT_EQ(a.pe[position], o.pe);
      continue;
    }
    ASSERT_GE(a.pe[position], previous) << "PE segments are not contiguous along the curve";
    previous = a.pe[position];
  }
  if (!(work > 0.0)) return;
  const std::vector<double> targets = expected_targets(instance);
  const std::vector<double> computed = pe_work_targets(instance);
  std::vector<double> got(instance.pes.size(), 0.0);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (instance.objects[i].migratable) got[std::size_t(a.pe[i])] += instance.objects[i].load;
  }
  // Each cut sits at the prefix boundary nearest to C_k (prefixes grow, so checking the
  // neighbouring boundaries is enough).
  std::vector<double> prefix = {0.0};
  std::vector<PeId> pe_along;
  for (const std::uint32_t position : order) {
    if (!instance.objects[position].migratable) continue;
    prefix.push_back(prefix.back() + instance.objects[position].load);
    pe_along.push_back(a.pe[position]);
  }
  double target_prefix = 0.0;
  for (PeId k = 1; k < PeId(targets.size()); ++k) {
    target_prefix += targets[std::size_t(k - 1)];
    const auto cut =
        std::size_t(std::lower_bound(pe_along.begin(), pe_along.end(), k) - pe_along.begin());
    const double miss = std::abs(prefix[cut] - target_prefix);
    if (cut > 0) {
      ASSERT_LE(miss, std::abs(prefix[cut - 1] - target_prefix) + 1e-9 * work) << "cut " << k;
    }
    if (cut + 1 < prefix.size()) {
      ASSERT_LE(miss, std::abs(prefix[cut + 1] - target_prefix) + 1e-9 * work) << "cut " << k;
    }
  }
  for (std::size_t p = 0; p < targets.size(); ++p) {
    ASSERT_NEAR(computed[p], targets[p], 1e-9 * work + 1e-12) << "target of PE " << p;
    ASSERT_LE(std::abs(got[p] - targets[p]), heaviest + 1e-9 * work)
        << "PE " << p << " of " << targets.size() << " got " << got[p] << ", target " << targets[p];
  }
}

TEST(HilbertCut, RandomHomogeneousInstances) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    const Instance instance = random_instance(rng, false);
    const std::vector<std::uint32_t> order = hilbert_order(instance);
    expect_valid_cut(instance, order, hilbert_cut(instance, order));
  }
}

TEST(HilbertCut, RandomHeterogeneousInstances) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 300; ++round) {
    const Instance instance = random_instance(rng, true);
    const std::vector<std::uint32_t> order = hilbert_order(instance);
    expect_valid_cut(instance, order, hilbert_cut(instance, order));
  }
}

std::vector<double> pe_loads(const Instance& instance, const Assignment& a) {
  std::vector<double> load(instance.pes.size(), 0.0);
  for (std::size_t i = 0; i < a.pe.size(); ++i) {
    load[std::size_t(a.pe[i])] += instance.objects[i].load;
  }
  return load;
}

TEST(HilbertCut, FasterPeGetsProportionallyMoreWork) {
  Instance instance = grid({40, 25});
  instance.pes = {Pe{1.0}, Pe{2.0}, Pe{1.0}, Pe{1.0}};
  const std::vector<double> load =
      pe_loads(instance, hilbert_cut(instance, hilbert_order(instance)));
  EXPECT_NEAR(load[1], 400.0, 1.0);
  for (const std::size_t p : {0, 2, 3}) EXPECT_NEAR(load[p], 200.0, 1.0);
}

TEST(HilbertCut, BackgroundAndFixedObjectsCountOnTheirPe) {
  Instance instance = grid({10, 10});  // 100 units of migratable work
  instance.pes = {Pe{1.0, 10.0}, Pe{1.0, 0.0}};
  std::vector<double> load = pe_loads(instance, hilbert_cut(instance, hilbert_order(instance)));
  EXPECT_NEAR(load[0], 45.0, 1.0);  // T = 55: 10 background + 45 work, and 55 work
  EXPECT_NEAR(load[1], 55.0, 1.0);

  instance.pes = {Pe{1.0}, Pe{2.0}};
  Object fixed;
  fixed.id = 1000;
  fixed.load = 40.0;
  fixed.pe = 1;  // 20 s on the speed-2 PE
  fixed.migratable = false;
  instance.objects.push_back(fixed);
  const Assignment a = hilbert_cut(instance, hilbert_order(instance));
  EXPECT_EQ(a.pe.back(), 1);
  load = pe_loads(instance, a);
  // T solves (T - 0) * 1 + (T - 20) * 2 = 100: T = 140/3.
  EXPECT_NEAR(load[0], 140.0 / 3.0, 1.0);
  EXPECT_NEAR(load[1] - 40.0, 100.0 - 140.0 / 3.0, 1.0);
}

TEST(HilbertCut, SlowestPeWithLargeBackgroundGetsNothing) {
  Instance instance = grid({10, 10});
  instance.pes = {Pe{1.0, 0.0}, Pe{1.0, 500.0}, Pe{1.0, 0.0}};
  const std::vector<double> load =
      pe_loads(instance, hilbert_cut(instance, hilbert_order(instance)));
  EXPECT_EQ(load[1], 0.0);
  EXPECT_NEAR(load[0], 50.0, 1.0);
  EXPECT_NEAR(load[2], 50.0, 1.0);
}

TEST(HilbertCut, FewerObjectsThanPes) {
  Instance instance = grid({3, 1});
  instance.pes.resize(10);
  const std::vector<std::uint32_t> order = hilbert_order(instance);
  const Assignment a = hilbert_cut(instance, order);
  expect_valid_cut(instance, order, a);
  // Each PE's share is 0.3, so within one object no PE may hold two.
  for (const double load : pe_loads(instance, a)) EXPECT_LE(load, 1.0);

  instance.objects.clear();
  EXPECT_TRUE(hilbert_cut(instance, {}).pe.empty());
}

TEST(HilbertCut, ZeroLoadsAreSharedByCount) {
  Instance instance = grid({10, 10});
  for (Object& o : instance.objects) o.load = 0.0;
  instance.pes = {Pe{1.0}, Pe{3.0}};
  const Assignment a = hilbert_cut(instance, hilbert_order(instance));
  EXPECT_EQ(std::count(a.pe.begin(), a.pe.end(), 0), 25);
  EXPECT_EQ(std::count(a.pe.begin(), a.pe.end(), 1), 75);
}

TEST(HilbertCut, RejectsBadInput) {
  Instance instance = grid({4, 4});
  std::vector<std::uint32_t> order = hilbert_order(instance);
  EXPECT_THROW(hilbert_cut(instance, std::vector<std::uint32_t>(order.begin(), order.end() - 1)),
               std::invalid_argument);
  order[3] = order[4];
  EXPECT_THROW(hilbert_cut(instance, order), std::invalid_argument);
  order[3] = 16;
  EXPECT_THROW(hilbert_cut(instance, order), std::invalid_argument);
  instance.pes.clear();
  EXPECT_THROW(hilbert_cut(instance, hilbert_order(instance)), InstanceError);
}

// The 64x64 grid cut into 16 segments of 256 cells: exactly the 16 aligned 16x16 squares, so
// the communication cut is the optimal 3*64 + 3*64 = 384 neighbour pairs; a random placement
// cuts about 15/16 of the 8064 pairs.
TEST(HilbertCut, KeepsNeighboursTogether) {
  Instance instance = grid({64, 64});
  instance.pes.resize(16);
  const Assignment hilbert = hilbert_cut(instance, hilbert_order(instance));
  Assignment random = current_assignment(instance);
  std::mt19937_64 rng(3);
  for (PeId& pe : random.pe) pe = PeId(rng() % 16);

  std::vector<std::size_t> at(64 * 64);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    const auto& c = instance.objects[i].coords;
    at[std::size_t(c[1]) * 64 + std::size_t(c[0])] = i;
  }
  const auto communication_cut = [&](const Assignment& a) {
    int cut = 0;
    for (std::size_t y = 0; y < 64; ++y) {
      for (std::size_t x = 0; x < 64; ++x) {
        const PeId here = a.pe[at[y * 64 + x]];
        if (x + 1 < 64 && a.pe[at[y * 64 + x + 1]] != here) ++cut;
        if (y + 1 < 64 && a.pe[at[(y + 1) * 64 + x]] != here) ++cut;
      }
    }
    return cut;
  };
  const int hilbert_cut_pairs = communication_cut(hilbert);
  const int random_cut_pairs = communication_cut(random);
  EXPECT_EQ(hilbert_cut_pairs, 384);
  EXPECT_GT(random_cut_pairs, 7000);
  EXPECT_LT(10 * hilbert_cut_pairs, random_cut_pairs);
  for (const double load : pe_loads(instance, hilbert)) EXPECT_EQ(load, 256.0);
}

// ---------------------------------------------------------------------------------------------
// The distributed destination rule.

TEST(HilbertDestination, NearestBoundaryRule) {
  // Total 10 on 5 PEs: shares of 2.
  EXPECT_EQ(hilbert_destination(2.0, 2.0, 10.0, 5), 0);  // exactly the first share
  EXPECT_EQ(hilbert_destination(2.4, 1.0, 10.0, 5), 0);  // 1.4..2.4: mostly before the cut
  EXPECT_EQ(hilbert_destination(2.6, 1.0, 10.0, 5), 1);  // 1.6..2.6: mostly after
  EXPECT_EQ(hilbert_destination(3.0, 2.0, 10.0, 5), 1);  // 1..3: a tie goes right
  EXPECT_EQ(hilbert_destination(7.0, 5.0, 10.0, 5), 2);  // spans three shares, midpoint 4.5
  EXPECT_EQ(hilbert_destination(0.0, 0.0, 10.0, 5), 0);
  EXPECT_EQ(hilbert_destination(10.0, 0.0, 10.0, 5), 4);  // clamped to the last PE
  EXPECT_EQ(hilbert_destination(10.0, 1.0, 10.0, 5), 4);
  EXPECT_EQ(hilbert_destination(12.0, 1.0, 10.0, 5), 4);
  EXPECT_EQ(hilbert_destination(-1.0, 0.5, 10.0, 5), 0);
  EXPECT_EQ(hilbert_destination(5.0, 1.0, 0.0, 5), 0);
  EXPECT_EQ(hilbert_destination(5.0, 1.0, 10.0, 1), 0);
  EXPECT_THROW(hilbert_destination(5.0, 1.0, 10.0, 0), std::invalid_argument);
}

// Each object computing its own destination from its prefix reproduces the central cut for
// PEs of equal speed: at every boundary the two cuts differ by at most one object.
TEST(HilbertDestination, AgreesWithTheCentralCut) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const PeId pes : {1, 2, 3, 7, 64, 999, 5000}) {
    Instance instance = grid({70, 50}, std::uint64_t(pes));
    for (Object& o : instance.objects) {
      const double draw = unit(rng);
      o.load = draw < 0.1 ? 0.0 : draw < 0.12 ? 30.0 * unit(rng) : unit(rng);
    }
    instance.pes.assign(std::size_t(pes), Pe{});
    const std::vector<std::uint32_t> order = hilbert_order(instance);
    const Assignment central = hilbert_cut(instance, order);
    double total = 0.0;
    for (const Object& o : instance.objects) total += o.load;

    std::vector<PeId> by_cut, by_rule;
    double prefix = 0.0;
    for (const std::uint32_t position : order) {
      const double load = instance.objects[position].load;
      prefix += load;
      by_cut.push_back(central.pe[position]);
      by_rule.push_back(hilbert_destination(prefix, load, total, pes));
    }
    ASSERT_TRUE(std::is_sorted(by_rule.begin(), by_rule.end()));
    ASSERT_GE(by_rule.front(), 0);
    ASSERT_LT(by_rule.back(), pes);
    std::size_t differ = 0;
    for (PeId k = 1; k < pes; ++k) {
      const auto first_at = [&](const std::vector<PeId>& v) {
        return std::lower_bound(v.begin(), v.end(), k) - v.begin();
      };
      const auto gap = first_at(by_cut) - first_at(by_rule);
      EXPECT_LE(std::abs(gap), 1) << "boundary " << k << " of " << pes;
      differ += gap != 0 ? 1 : 0;
    }
    EXPECT_LE(differ, std::size_t(pes) / 10 + 1);  // rounding differences only
  }
}

// ---------------------------------------------------------------------------------------------
// The strategy.

std::unique_ptr<Strategy> make_hilbert(const RawParams& raw = {}) {
  const StrategyInfo info = builtin::hilbert();
  return info.make(ParamValues(info.name, info.params, raw));
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1.0;
}

TEST(HilbertStrategy, ReusesTheCurveWhileCoordinatesStayTheSame) {
  std::mt19937_64 rng(5);
  Instance instance = grid({60, 40});
  instance.pes.resize(12);
  for (Object& o : instance.objects) o.load = 0.1 + double(rng() % 100);
  const auto strategy = make_hilbert();

  const Solution first = strategy->solve(instance);
  EXPECT_GT(stat(first, "curve_ms"), 0.0);
  EXPECT_GE(stat(first, "cut_ms"), 0.0);
  EXPECT_EQ(first.assignment, hilbert_cut(instance, hilbert_order(instance)));

  const Solution second = strategy->solve(instance);
  EXPECT_EQ(stat(second, "curve_ms"), 0.0);
  EXPECT_EQ(second.assignment, first.assignment);

  // New loads: same curve, new cut.
  for (Object& o : instance.objects) o.load = 0.1 + double(rng() % 100);
  const Solution reloaded = strategy->solve(instance);
  EXPECT_EQ(stat(reloaded, "curve_ms"), 0.0);
  EXPECT_EQ(reloaded.assignment, hilbert_cut(instance, hilbert_order(instance)));

  // A moved object or a new object: the curve is recomputed.
  std::swap(instance.objects[0].coords, instance.objects[1].coords);
  const Solution moved = strategy->solve(instance);
  EXPECT_GT(stat(moved, "curve_ms"), 0.0);
  EXPECT_EQ(moved.assignment, hilbert_cut(instance, hilbert_order(instance)));

  Object extra;
  extra.id = 99999;
  extra.load = 3.0;
  extra.coords = {60.0, 0.0, 0.0};
  instance.objects.push_back(extra);
  const Solution grown = strategy->solve(instance);
  EXPECT_GT(stat(grown, "curve_ms"), 0.0);
  EXPECT_EQ(grown.assignment, hilbert_cut(instance, hilbert_order(instance)));
}

TEST(HilbertStrategy, BitsParameterIsValidatedAndUsed) {
  EXPECT_THROW(make_hilbert({{"bits", "0"}}), ParamError);
  EXPECT_THROW(make_hilbert({{"bits", "21"}}), ParamError);
  EXPECT_THROW(make_hilbert({{"bits", "2.5"}}), ParamError);

  // Two bits put the 2 objects near x = 0 into one cell: their order then follows position.
  Instance instance;
  instance.dims = 2;
  instance.pes.resize(1);
  for (const double x : {0.3, 0.1, 9.0, 4.0}) {
    Object o;
    o.id = ObjectId(instance.objects.size());
    o.coords = {x, 0.0, 0.0};
    instance.objects.push_back(o);
  }
  EXPECT_EQ(hilbert_order(instance, 2), (std::vector<std::uint32_t>{0, 1, 3, 2}));
  EXPECT_EQ(hilbert_order(instance, 16), (std::vector<std::uint32_t>{1, 0, 3, 2}));
  const auto coarse = make_hilbert({{"bits", "2"}});
  EXPECT_EQ(coarse->solve(instance).assignment.pe.size(), 4U);
}

TEST(HilbertStrategy, IsRegistered) {
  try {
    const auto strategy = make_strategy("hilbert");
    Instance instance = grid({8, 8});
    instance.pes.resize(4);
    EXPECT_EQ(strategy->solve(instance).assignment, hilbert_cut(instance, hilbert_order(instance)));
  } catch (const std::logic_error& e) {
    if (dynamic_cast<const ParamError*>(&e) != nullptr) throw;
    GTEST_SKIP() << "registry not complete yet: " << e.what();
  }
}

}  // namespace
}  // namespace vela::lb
