#include "vela/lb/generate/generate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace vela::lb {
namespace {

bool same_instance(const Instance& a, const Instance& b) {
  const auto object_key = [](const Object& o) {
    return std::tie(o.id, o.load, o.size, o.coords, o.pe, o.migratable);
  };
  const auto pe_key = [](const Pe& p) { return std::tie(p.speed, p.background, p.cluster); };
  const auto edge_key = [](const Edge& e) { return std::tie(e.from, e.to, e.messages, e.bytes); };
  return a.dims == b.dims &&
         std::equal(
             a.objects.begin(), a.objects.end(), b.objects.begin(), b.objects.end(),
             [&](const Object& x, const Object& y) { return object_key(x) == object_key(y); }) &&
         std::equal(a.pes.begin(), a.pes.end(), b.pes.begin(), b.pes.end(),
                    [&](const Pe& x, const Pe& y) { return pe_key(x) == pe_key(y); }) &&
         std::equal(a.edges.begin(), a.edges.end(), b.edges.begin(), b.edges.end(),
                    [&](const Edge& x, const Edge& y) { return edge_key(x) == edge_key(y); });
}

std::vector<double> loads_of(const Instance& instance) {
  std::vector<double> loads;
  for (const Object& o : instance.objects) loads.push_back(o.load);
  return loads;
}

// Sum of object loads on each PE (speed and background left out).
std::vector<double> work_per_pe(const Instance& instance) {
  std::vector<double> work(instance.pes.size(), 0.0);
  for (const Object& o : instance.objects) work[static_cast<std::size_t>(o.pe)] += o.load;
  return work;
}

std::size_t expected_halo_edges(std::int64_t nx, std::int64_t ny) {
  return static_cast<std::size_t>(2 * (nx - 1) * ny + 2 * nx * (ny - 1));
}

// Every edge joins objects one grid step apart, carries one message of `bytes`, appears once,
// and has its reverse.
void expect_grid_neighbour_edges(const Instance& instance, std::uint64_t bytes) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (const Edge& e : instance.edges) {
    ASSERT_LT(e.from, instance.objects.size());
    ASSERT_LT(e.to, instance.objects.size());
    const auto& a = instance.objects[e.from].coords;
    const auto& b = instance.objects[e.to].coords;
    EXPECT_EQ(std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]), 1.0)
        << "edge " << e.from << " -> " << e.to;
    EXPECT_EQ(e.messages, 1U);
    EXPECT_EQ(e.bytes, bytes);
    EXPECT_TRUE(seen.insert({e.from, e.to}).second)
        << "duplicate edge " << e.from << " -> " << e.to;
  }
  for (const auto& [from, to] : seen) EXPECT_TRUE(seen.count({to, from})) << from << " -> " << to;
}

// Expects `make` to throw std::invalid_argument whose message contains `text`.
void expect_rejected(const std::function<void()>& make, const std::string& text) {
  try {
    make();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << text << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message \"" << e.what() << "\" lacks \"" << text << "\"";
  }
}

// ---- grid building blocks ----

TEST(BlockPlacement2d, FourByFourOnFourPesGivesQuadrants) {
  EXPECT_EQ(pe_grid_2d(4, 4, 4), (PeGrid{2, 2}));
  const std::vector<PeId> expected = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
  EXPECT_EQ(block_placement_2d(4, 4, 4), expected);
}

TEST(BlockPlacement2d, SquareGridOnSquarePeCountGivesSquareBlocks) {
  EXPECT_EQ(pe_grid_2d(64, 64, 64), (PeGrid{8, 8}));
  const std::vector<PeId> pe = block_placement_2d(64, 64, 64);
  // Object (i, j) lies in block (i / 8, j / 8).
  for (std::int64_t j = 0; j < 64; ++j) {
    for (std::int64_t i = 0; i < 64; ++i) {
      ASSERT_EQ(pe[static_cast<std::size_t>(j * 64 + i)], (j / 8) * 8 + i / 8) << i << "," << j;
    }
  }
}

TEST(BlockPlacement2d, PrefersSquareBlocksAndDivisibleFactors) {
  EXPECT_EQ(pe_grid_2d(64, 64, 48), (PeGrid{8, 6}));   // 8 | 64 breaks the 8x6 / 6x8 tie
  EXPECT_EQ(pe_grid_2d(128, 32, 16), (PeGrid{8, 2}));  // 16 x 16 blocks
  EXPECT_EQ(pe_grid_2d(10, 7, 6), (PeGrid{3, 2}));
  EXPECT_EQ(pe_grid_2d(3, 3, 4), (PeGrid{2, 2}));
  EXPECT_EQ(pe_grid_2d(1, 50, 5), (PeGrid{1, 5}));  // 5 x 1 would leave PEs empty
}

// Each PE owns exactly the objects of one rectangle; widths and heights differ by at most one.
void expect_near_equal_rectangles(std::int64_t nx, std::int64_t ny, PeId pes) {
  SCOPED_TRACE(std::to_string(nx) + "x" + std::to_string(ny) + " on " + std::to_string(pes));
  const std::vector<PeId> pe = block_placement_2d(nx, ny, pes);
  ASSERT_EQ(pe.size(), static_cast<std::size_t>(nx * ny));
  struct Box {
    std::int64_t x0 = INT64_MAX, x1 = -1, y0 = INT64_MAX, y1 = -1, count = 0;
  };
  std::vector<Box> box(static_cast<std::size_t>(pes));
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const PeId p = pe[static_cast<std::size_t>(j * nx + i)];
      ASSERT_GE(p, 0);
      ASSERT_LT(p, pes);
      Box& b = box[static_cast<std::size_t>(p)];
      b.x0 = std::min(b.x0, i);
      b.x1 = std::max(b.x1, i);
      b.y0 = std::min(b.y0, j);
      b.y1 = std::max(b.y1, j);
      ++b.count;
    }
  }
  std::set<std::int64_t> widths;
  std::set<std::int64_t> heights;
  for (PeId p = 0; p < pes; ++p) {
    const Box& b = box[static_cast<std::size_t>(p)];
    ASSERT_GT(b.count, 0) << "PE " << p << " got no objects";
    const std::int64_t w = b.x1 - b.x0 + 1;
    const std::int64_t h = b.y1 - b.y0 + 1;
    EXPECT_EQ(b.count, w * h) << "PE " << p << " does not own a full rectangle";
    widths.insert(w);
    heights.insert(h);
  }
  EXPECT_LE(*widths.rbegin() - *widths.begin(), 1);
  EXPECT_LE(*heights.rbegin() - *heights.begin(), 1);
}

TEST(BlockPlacement2d, NonDivisibleSizesGiveNearEqualRectangles) {
  expect_near_equal_rectangles(10, 7, 6);
  expect_near_equal_rectangles(64, 64, 7);
  expect_near_equal_rectangles(13, 11, 12);
  expect_near_equal_rectangles(100, 3, 9);
  expect_near_equal_rectangles(5, 5, 25);
}

TEST(BlockPlacement1d, ContiguousRangesDifferingByAtMostOne) {
  const std::vector<PeId> pe = block_placement_1d(10, 4);
  EXPECT_EQ(pe, (std::vector<PeId>{0, 0, 1, 1, 1, 2, 2, 3, 3, 3}));
  EXPECT_TRUE(std::is_sorted(pe.begin(), pe.end()));
}

TEST(NearSquareGrid, HoldsCountWithOnlyLastRowPartial) {
  EXPECT_EQ(near_square_grid(4096), (GridShape{64, 64}));
  EXPECT_EQ(near_square_grid(10), (GridShape{4, 3}));
  EXPECT_EQ(near_square_grid(1), (GridShape{1, 1}));
  EXPECT_EQ(near_square_grid(12), (GridShape{4, 3}));
  for (std::int64_t n : {2, 3, 5, 17, 99, 1000, 4097}) {
    const GridShape g = near_square_grid(n);
    EXPECT_GE(g.nx * g.ny, n);
    EXPECT_LT(g.nx * (g.ny - 1), n) << n;  // no empty row
    EXPECT_LE(std::abs(g.nx - g.ny), 1) << n;
  }
}

TEST(GridHaloEdges, CountsAndNeighbours) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {
      {1, 1}, {1, 5}, {5, 1}, {10, 7}};
  for (auto [nx, ny] : sizes) {
    const std::vector<Edge> edges = grid_halo_edges(nx, ny, 77);
    EXPECT_EQ(edges.size(), expected_halo_edges(nx, ny)) << nx << "x" << ny;
    Instance instance;
    instance.dims = 2;
    for (std::int64_t k = 0; k < nx * ny; ++k) {
      Object o;
      o.id = k;
      o.coords = {static_cast<double>(k % nx), static_cast<double>(k / nx), 0.0};
      instance.objects.push_back(o);
    }
    instance.edges = edges;
    expect_grid_neighbour_edges(instance, 77);
  }
}

// ---- (a) brams ----

TEST(Brams, DefaultsAreSixtyFourByFourOnSixtyFourPesWithOneStorm) {
  const Instance instance = generate_brams({});
  ASSERT_EQ(instance.objects.size(), 4096U);
  ASSERT_EQ(instance.pes.size(), 64U);
  EXPECT_EQ(instance.dims, 2);
  EXPECT_EQ(instance.edges.size(), expected_halo_edges(64, 64));
  expect_grid_neighbour_edges(instance, 8U * 32U * 8U * 8U);
  for (std::size_t k = 0; k < instance.objects.size(); ++k) {
    const Object& o = instance.objects[k];
    EXPECT_EQ(o.id, static_cast<ObjectId>(k));
    EXPECT_EQ(o.coords[0], static_cast<double>(k % 64));
    EXPECT_EQ(o.coords[1], static_cast<double>(k / 64));
    EXPECT_EQ(o.size, 8U * 8U * 32U * 8U * 8U);
  }
  EXPECT_EQ(current_assignment(instance).pe, block_placement_2d(64, 64, 64));
  // The storm (centre (19.2, 25.6), radius 9.6) overloads a few PEs, not most of them.
  const std::vector<double> work = work_per_pe(instance);
  const double mean = [&] {
    double s = 0.0;
    for (double w : work) s += w;
    return s / static_cast<double>(work.size());
  }();
  const auto hot =
      std::count_if(work.begin(), work.end(), [&](double w) { return w > 1.3 * mean; });
  EXPECT_GE(hot, 2);
  EXPECT_LE(hot, 12);
  EXPECT_GT(*std::max_element(work.begin(), work.end()), 2.0 * mean);
}

TEST(Brams, SameSeedSameInstanceOtherSeedOtherLoads) {
  BramsOptions options;
  options.nx = 20;
  options.ny = 12;
  options.pes = 6;
  options.seed = 42;
  EXPECT_TRUE(same_instance(generate_brams(options), generate_brams(options)));
  BramsOptions other = options;
  other.seed = 43;
  EXPECT_NE(loads_of(generate_brams(options)), loads_of(generate_brams(other)));
}

TEST(Brams, StormMultipliesCentreByFactorAndLeavesOutsideAtBase) {
  BramsOptions options;
  options.base_load = 2.0;
  options.storms = std::vector<Storm>{{20.0, 30.0, 10.0, 4.0}};
  const Instance instance = generate_brams(options);
  const Object& centre = instance.objects[30 * 64 + 20];
  EXPECT_GE(centre.load, 2.0 * 4.0 * 0.95);
  EXPECT_LE(centre.load, 2.0 * 4.0 * 1.05);
  int outside = 0;
  for (const Object& o : instance.objects) {
    const double d = std::hypot(o.coords[0] - 20.0, o.coords[1] - 30.0);
    if (d < 10.0) {
      EXPECT_GT(o.load, 2.0 * 0.95) << "inside at distance " << d;
      continue;
    }
    ++outside;
    EXPECT_GE(o.load, 2.0 * 0.95) << "outside at distance " << d;
    EXPECT_LE(o.load, 2.0 * 1.05) << "outside at distance " << d;
  }
  EXPECT_GT(outside, 3500);
}

TEST(Brams, StormShapeIsRaisedCosineWithoutNoise) {
  BramsOptions options;
  options.noise = 0.0;
  options.storms = std::vector<Storm>{{10.0, 10.0, 8.0, 5.0}};
  const Instance instance = generate_brams(options);
  for (int di = 0; di <= 9; ++di) {
    const double d = di;
    const double expected =
        d < 8.0 ? 1.0 + 4.0 * 0.5 * (1.0 + std::cos(std::numbers::pi * d / 8.0)) : 1.0;
    EXPECT_NEAR(instance.objects[10 * 64 + 10 + di].load, expected, 1e-12) << "distance " << d;
  }
  // Strictly falling from the centre to the radius.
  for (int di = 0; di < 8; ++di) {
    EXPECT_GT(instance.objects[10 * 64 + 10 + di].load, instance.objects[10 * 64 + 11 + di].load);
  }
}

TEST(Brams, OverlappingStormsMultiplyAndNoStormsMeansBaseLoad) {
  BramsOptions options;
  options.noise = 0.0;
  options.storms = std::vector<Storm>{{5.0, 5.0, 4.0, 3.0}, {5.0, 5.0, 6.0, 2.0}};
  EXPECT_NEAR(generate_brams(options).objects[5 * 64 + 5].load, 6.0, 1e-12);
  options.storms = std::vector<Storm>{};
  for (const Object& o : generate_brams(options).objects) ASSERT_EQ(o.load, 1.0);
}

TEST(Brams, RadiationMultipliesEveryLoad) {
  BramsOptions options;
  options.nx = 16;
  options.ny = 16;
  options.pes = 4;
  const Instance plain = generate_brams(options);
  options.radiation = 2.5;
  const Instance radiated = generate_brams(options);
  for (std::size_t k = 0; k < plain.objects.size(); ++k) {
    EXPECT_DOUBLE_EQ(radiated.objects[k].load, 2.5 * plain.objects[k].load);
  }
}

TEST(Brams, NoiseComesFromTheRawEngineOutput) {
  // Own distribution: load = base * (1 + (-noise + 2 noise u)), u = top 53 bits / 2^53.
  BramsOptions options;
  options.nx = 8;
  options.ny = 8;
  options.pes = 4;
  options.seed = 7;
  options.storms = std::vector<Storm>{};
  const Instance instance = generate_brams(options);
  std::mt19937_64 engine(7);
  for (const Object& o : instance.objects) {
    const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    ASSERT_EQ(o.load, 1.0 * (1.0 + (-0.05 + (0.05 - -0.05) * u)));
  }
}

TEST(Brams, ByteCountsFollowTheBlockOrTheOverrides) {
  BramsOptions options;
  options.nx = 4;
  options.ny = 4;
  options.pes = 4;
  options.block_side = 4;
  options.levels = 10;
  options.fields = 3;
  Instance instance = generate_brams(options);
  EXPECT_EQ(instance.objects[0].size, 4U * 4U * 10U * 3U * 8U);
  EXPECT_EQ(instance.edges[0].bytes, 4U * 10U * 3U * 8U);
  options.halo_bytes = 123;
  options.object_bytes = 456;
  instance = generate_brams(options);
  EXPECT_EQ(instance.objects[0].size, 456U);
  expect_grid_neighbour_edges(instance, 123);
}

// ---- (b) jacobi ----

TEST(Jacobi, EqualLoadsHaloAndBlockPlacement) {
  JacobiOptions options;
  options.nx = 10;
  options.ny = 7;
  options.pes = 6;
  options.load = 0.25;
  const Instance instance = generate_jacobi(options);
  ASSERT_EQ(instance.objects.size(), 70U);
  for (const Object& o : instance.objects) {
    EXPECT_EQ(o.load, 0.25);
    EXPECT_EQ(o.size, 2U * 64U * 64U * 8U);
  }
  EXPECT_EQ(instance.edges.size(), expected_halo_edges(10, 7));
  expect_grid_neighbour_edges(instance, 64U * 8U);
  EXPECT_EQ(current_assignment(instance).pe, block_placement_2d(10, 7, 6));
}

TEST(Jacobi, NoiseIsSeeded) {
  JacobiOptions options;
  options.noise = 0.1;
  options.seed = 3;
  EXPECT_TRUE(same_instance(generate_jacobi(options), generate_jacobi(options)));
  JacobiOptions other = options;
  other.seed = 4;
  EXPECT_NE(loads_of(generate_jacobi(options)), loads_of(generate_jacobi(other)));
}

// ---- (c) gamma ----

struct Moments {
  double mean = 0.0;
  double variance = 0.0;
  double skewness = 0.0;
};

Moments moments(const std::vector<double>& x) {
  Moments m;
  const auto n = static_cast<double>(x.size());
  for (double v : x) m.mean += v;
  m.mean /= n;
  double m2 = 0.0;
  double m3 = 0.0;
  for (double v : x) {
    const double d = v - m.mean;
    m2 += d * d;
    m3 += d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m.variance = m2;
  m.skewness = m3 / std::pow(m2, 1.5);
  return m;
}

double lag1_correlation(const std::vector<double>& x) {
  const Moments m = moments(x);
  double sum = 0.0;
  for (std::size_t i = 1; i < x.size(); ++i) sum += (x[i - 1] - m.mean) * (x[i] - m.mean);
  return sum / static_cast<double>(x.size() - 1) / m.variance;
}

TEST(Gamma, SampleMomentsMatchShapeAndScale) {
  // 200000 draws: standard errors are about 0.3% of the mean, 1% of the variance and 1.5% of
  // the skewness (shape >= 0.5), so these fixed-seed bounds have wide margins, yet a sampler
  // with a wrong constant or a missing factor falls outside them.
  const std::vector<std::pair<double, double>> cases = {
      {2.0, 0.5}, {0.5, 2.0}, {1.0, 1.0}, {9.0, 0.25}};
  for (auto [shape, scale] : cases) {
    SCOPED_TRACE("shape " + std::to_string(shape) + " scale " + std::to_string(scale));
    GammaOptions options;
    options.objects = 200000;
    options.pes = 100;
    options.shape = shape;
    options.scale = scale;
    options.halo = false;
    const std::vector<double> loads = loads_of(generate_gamma(options));
    const Moments m = moments(loads);
    EXPECT_NEAR(m.mean, shape * scale, 0.02 * shape * scale);
    EXPECT_NEAR(m.variance, shape * scale * scale, 0.06 * shape * scale * scale);
    EXPECT_NEAR(m.skewness, 2.0 / std::sqrt(shape), 0.08 * 2.0 / std::sqrt(shape));
    // Successive draws are independent (standard error of the lag-1 correlation: 0.0022).
    EXPECT_NEAR(lag1_correlation(loads), 0.0, 0.015);
  }
}

TEST(Gamma, LayoutPlacementAndEdges) {
  GammaOptions options;
  options.objects = 10;
  options.pes = 4;
  Instance instance = generate_gamma(options);
  ASSERT_EQ(instance.objects.size(), 10U);
  EXPECT_EQ(instance.dims, 2);
  // Laid on a 4 x 3 grid whose last row holds two objects.
  EXPECT_EQ(instance.objects[9].coords[0], 1.0);
  EXPECT_EQ(instance.objects[9].coords[1], 2.0);
  EXPECT_EQ(current_assignment(instance).pe, block_placement_1d(10, 4));
  // Rows 0-1 full (2*3*2 + 2*4*1 = 20 edges), row 2 has one horizontal pair and two vertical.
  EXPECT_EQ(instance.edges.size(), 20U + 2U + 4U);
  expect_grid_neighbour_edges(instance, options.halo_bytes);
  for (const Object& o : instance.objects) EXPECT_GT(o.load, 0.0);

  options.placement = Placement::block_2d;
  instance = generate_gamma(options);
  std::vector<PeId> expected = block_placement_2d(4, 3, 4);
  expected.resize(10);
  EXPECT_EQ(current_assignment(instance).pe, expected);

  options.halo = false;
  EXPECT_TRUE(generate_gamma(options).edges.empty());
}

TEST(Gamma, SameSeedSameInstanceOtherSeedOtherLoads) {
  GammaOptions options;
  options.objects = 1000;
  options.seed = 11;
  EXPECT_TRUE(same_instance(generate_gamma(options), generate_gamma(options)));
  GammaOptions other = options;
  other.seed = 12;
  EXPECT_NE(loads_of(generate_gamma(options)), loads_of(generate_gamma(other)));
}

// ---- (d) clustered ----

TEST(Clustered, OverloadedPesCarryFactorTimesTheOthersWork) {
  for (Placement placement : {Placement::block, Placement::block_2d}) {
    ClusteredOptions options;
    options.placement = placement;
    options.factor = 3.0;
    options.overloaded = 8;
    const Instance instance = generate_clustered(options);
    const std::vector<double> work = work_per_pe(instance);
    double hot = 0.0;
    double cold = 0.0;
    for (std::size_t p = 0; p < work.size(); ++p) (p < 8 ? hot : cold) += work[p];
    // 64 objects per PE: the per-PE averages agree with the factor to within about 2%.
    EXPECT_NEAR((hot / 8.0) / (cold / 56.0), 3.0, 0.15);
    for (const Object& o : instance.objects) {
      const double base = o.pe < 8 ? o.load / 3.0 : o.load;
      EXPECT_GE(base, 0.5);
      EXPECT_LT(base, 1.5);
    }
  }
}

TEST(Clustered, OverloadIsAtOneEndOfTheGrid) {
  ClusteredOptions options;  // 64 x 64 grid, block placement: PE p holds rows p
  const Instance instance = generate_clustered(options);
  for (const Object& o : instance.objects) {
    EXPECT_EQ(o.pe < options.overloaded, o.coords[1] < 8.0) << "object " << o.id;
  }
}

TEST(Clustered, SameSeedSameInstanceOtherSeedOtherLoads) {
  ClusteredOptions options;
  options.seed = 5;
  EXPECT_TRUE(same_instance(generate_clustered(options), generate_clustered(options)));
  ClusteredOptions other = options;
  other.seed = 6;
  EXPECT_NE(loads_of(generate_clustered(options)), loads_of(generate_clustered(other)));
}

// ---- (e) hetero ----

TEST(Hetero, TwoClustersWithSlowSecondHalf) {
  HeteroOptions options;
  options.slow_speed = 0.25;
  const Instance instance = generate_hetero(options);
  ASSERT_EQ(instance.pes.size(), 64U);
  for (std::size_t p = 0; p < 64; ++p) {
    EXPECT_EQ(instance.pes[p].cluster, p < 32 ? 0 : 1) << "PE " << p;
    EXPECT_EQ(instance.pes[p].speed, p < 32 ? 1.0 : 0.25) << "PE " << p;
    EXPECT_EQ(instance.pes[p].background, 0.0);
  }
  EXPECT_EQ(instance.edges.size(), expected_halo_edges(64, 64));
  EXPECT_EQ(current_assignment(instance).pe, block_placement_2d(64, 64, 64));
}

TEST(Hetero, SpeedsAndBackgroundPerClusterOrPerPe) {
  HeteroOptions options;
  options.nx = 12;
  options.ny = 12;
  options.pes = 6;
  options.clusters = 3;
  options.speeds = {1.0, 2.0, 0.5};
  options.background = {0.1};
  Instance instance = generate_hetero(options);
  const std::vector<std::int32_t> cluster = {0, 0, 1, 1, 2, 2};
  const std::vector<double> speed = {1.0, 1.0, 2.0, 2.0, 0.5, 0.5};
  for (std::size_t p = 0; p < 6; ++p) {
    EXPECT_EQ(instance.pes[p].cluster, cluster[p]);
    EXPECT_EQ(instance.pes[p].speed, speed[p]);
    EXPECT_EQ(instance.pes[p].background, 0.1);
  }
  options.speeds = {1, 2, 3, 4, 5, 6};
  options.background = {0.0, 0.5, 1.0};
  instance = generate_hetero(options);
  for (std::size_t p = 0; p < 6; ++p) {
    EXPECT_EQ(instance.pes[p].speed, static_cast<double>(p + 1));
    EXPECT_EQ(instance.pes[p].background, 0.5 * cluster[p]);
  }
}

TEST(Hetero, SameSeedSameInstanceOtherSeedOtherLoads) {
  HeteroOptions options;
  options.seed = 9;
  EXPECT_TRUE(same_instance(generate_hetero(options), generate_hetero(options)));
  HeteroOptions other = options;
  other.seed = 10;
  EXPECT_NE(loads_of(generate_hetero(options)), loads_of(generate_hetero(other)));
}

// ---- bad options ----

TEST(GenerateOptions, BadOptionsAreRejectedNamingTheOption) {
  expect_rejected([] { generate_brams({.nx = 0}); }, "brams: nx must be >= 1, got 0");
  expect_rejected([] { generate_brams({.ny = -3}); }, "brams: ny must be >= 1, got -3");
  expect_rejected([] { generate_brams({.pes = 0}); }, "brams: pes must be >= 1, got 0");
  expect_rejected([] { generate_brams({.noise = 1.0}); }, "brams: noise must be in [0, 1), got 1");
  expect_rejected([] { generate_brams({.radiation = 0.0}); }, "brams: radiation must be");
  expect_rejected([] { generate_brams({.levels = 0}); }, "brams: levels must be in");
  expect_rejected([] { generate_brams({.nx = 100000, .ny = 100000}); }, "brams: nx * ny must be");
  expect_rejected(
      [] {
        BramsOptions o;
        o.storms = std::vector<Storm>{{1, 1, 2, 2}, {1, 1, 0, 2}};
        generate_brams(o);
      },
      "brams: storm 1 radius must be a finite number > 0, got 0");
  expect_rejected(
      [] {
        BramsOptions o;
        o.storms = std::vector<Storm>{{1, 1, 2, -1}};
        generate_brams(o);
      },
      "brams: storm 0 factor");
  expect_rejected([] { generate_jacobi({.block_side = 0}); }, "jacobi: block_side must be in");
  expect_rejected([] { generate_jacobi({.load = -1}); },
                  "jacobi: load must be a finite number > 0");
  expect_rejected([] { generate_gamma({.objects = 0}); }, "gamma: objects must be in 1..");
  expect_rejected([] { generate_gamma({.shape = 0.0}); },
                  "gamma: shape must be a finite number > 0");
  expect_rejected([] { generate_gamma({.scale = std::numeric_limits<double>::quiet_NaN()}); },
                  "gamma: scale must be");
  expect_rejected([] { generate_clustered({.overloaded = 64}); },
                  "clustered: overloaded must be in 1..63, got 64");
  expect_rejected([] { generate_clustered({.pes = 1}); }, "clustered: pes must be >= 2, got 1");
  expect_rejected([] { generate_clustered({.factor = 0.0}); }, "clustered: factor must be");
  expect_rejected([] { generate_clustered({.min_load = 2.0}); },
                  "clustered: max_load must be a finite number > min_load");
  expect_rejected([] { generate_hetero({.clusters = 0}); },
                  "hetero: clusters must be in 1..64, got 0");
  expect_rejected([] { generate_hetero({.slow_speed = -0.5}); },
                  "hetero: slow_speed must be a finite number > 0, got -0.5");
  expect_rejected(
      [] {
        generate_hetero({.speeds = {1.0, 2.0, 3.0}});
      },
      "hetero: speeds must be 1 value, one per cluster (2) or one per PE (64), got 3");
  expect_rejected([] { generate_hetero({.speeds = {1.0, 0.0}}); }, "hetero: speeds[1] must be");
  expect_rejected([] { generate_hetero({.background = {-1.0}}); }, "hetero: background[0] must be");
  expect_rejected([] { block_placement_2d(4, 4, 0); },
                  "block_placement_2d: pes must be >= 1, got 0");
  expect_rejected([] { block_placement_2d(-1, 4, 2); }, "block_placement_2d: nx must be >= 0");
  expect_rejected([] { block_placement_1d(5, -2); },
                  "block_placement_1d: pes must be >= 1, got -2");
  expect_rejected([] { grid_halo_edges(4, -1, 8); }, "grid_halo_edges: ny must be >= 0");
}

}  // namespace
}  // namespace vela::lb
