// Properties of grid-comm over seeded multi-cluster grid instances with 4-neighbour halo
// exchange: valid assignments, pinned objects kept, no object leaves its cluster, per-cluster
// balance, heterogeneous speeds, border objects spread over a cluster's PEs, parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {
StrategyInfo grid_comm();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

constexpr double kEps = 1e-9;

std::unique_ptr<Strategy> make(const RawParams& raw = {}) {
  const StrategyInfo info = builtin::grid_comm();
  return info.make(ParamValues(info.name, info.params, raw));
}

struct GridOptions {
  double pinned_fraction = 0.1;
  bool equal_loads = false;
  bool random_within_cluster = true;  // start objects on random PEs of their cluster
};

// An nx x ny grid with halo edges both ways; columns are split into one strip per cluster, each
// cluster has its own PEs with a cluster speed (and per-PE variation).
Instance grid_instance(std::uint64_t seed, const GridOptions& opt = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int clusters = std::uniform_int_distribution<int>(2, 3)(rng);
  const int nx = std::uniform_int_distribution<int>(6, 30)(rng);
  const int ny = std::uniform_int_distribution<int>(4, 30)(rng);
  Instance in;
  in.dims = 2;
  std::vector<std::vector<PeId>> cluster_pes(static_cast<std::size_t>(clusters));
  for (int c = 0; c < clusters; ++c) {
    const int pes = std::uniform_int_distribution<int>(1, 8)(rng);
    const double cluster_speed = 0.5 + 2.5 * unit(rng);
    for (int k = 0; k < pes; ++k) {
      Pe pe;
      pe.cluster = c * 7 + 1;  // cluster ids need not be dense
      pe.speed = cluster_speed * (unit(rng) < 0.3 ? 2.0 : 1.0);
      pe.background = unit(rng) < 0.3 ? unit(rng) : 0.0;
      cluster_pes[static_cast<std::size_t>(c)].push_back(static_cast<PeId>(in.pes.size()));
      in.pes.push_back(pe);
    }
  }
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      Object o;
      o.id = static_cast<ObjectId>(in.objects.size()) + 100;
      o.load = opt.equal_loads ? 1.0 : 0.1 + 3.0 * unit(rng) * unit(rng);
      o.coords = {static_cast<double>(x), static_cast<double>(y), 0.0};
      const auto c = static_cast<std::size_t>(x * clusters / nx);
      const std::vector<PeId>& pes = cluster_pes[c];
      const auto k = opt.random_within_cluster
                         ? std::uniform_int_distribution<std::size_t>(0, pes.size() - 1)(rng)
                         : static_cast<std::size_t>(y) * pes.size() / static_cast<std::size_t>(ny);
      o.pe = pes[k];
      o.migratable = unit(rng) >= opt.pinned_fraction;
      in.objects.push_back(o);
    }
  }
  const auto at = [&](int x, int y) { return static_cast<std::uint32_t>(y * nx + x); };
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      if (x + 1 < nx) {
        in.edges.push_back({at(x, y), at(x + 1, y), 2, 800});
        in.edges.push_back({at(x + 1, y), at(x, y), 2, 800});
      }
      if (y + 1 < ny) {
        in.edges.push_back({at(x, y), at(x, y + 1), 1, 400});
        in.edges.push_back({at(x, y + 1), at(x, y), 1, 400});
      }
    }
  }
  validate(in);
  return in;
}

std::int32_t cluster_of(const Instance& in, PeId pe) {
  return in.pes[static_cast<std::size_t>(pe)].cluster;
}

// The part of `in` on PEs of `cluster`, PEs and objects renumbered.
Instance cluster_part(const Instance& in, std::int32_t cluster) {
  Instance part;
  std::map<PeId, PeId> renumber;
  for (std::size_t p = 0; p < in.pes.size(); ++p) {
    if (in.pes[p].cluster != cluster) continue;
    renumber[static_cast<PeId>(p)] = static_cast<PeId>(part.pes.size());
    part.pes.push_back(in.pes[p]);
  }
  for (const Object& o : in.objects) {
    if (cluster_of(in, o.pe) != cluster) continue;
    Object copy = o;
    copy.pe = renumber.at(o.pe);
    part.objects.push_back(copy);
  }
  return part;
}

std::vector<bool> border_objects(const Instance& in) {
  std::vector<bool> border(in.objects.size(), false);
  for (const Edge& e : in.edges) {
    if (cluster_of(in, in.objects[e.from].pe) != cluster_of(in, in.objects[e.to].pe)) {
      border[e.from] = border[e.to] = true;
    }
  }
  return border;
}

void check_properties(const Instance& in, const Solution& s, double tolerance) {
  ASSERT_NO_THROW(validate(in, s.assignment));
  const Assignment current = current_assignment(in);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    ASSERT_EQ(cluster_of(in, s.assignment.pe[i]), cluster_of(in, in.objects[i].pe))
        << "object " << i << " changed cluster";
    if (!in.objects[i].migratable) {
      ASSERT_EQ(s.assignment.pe[i], in.objects[i].pe);
    }
  }
  ASSERT_FALSE(s.stats.empty());
  EXPECT_EQ(s.stats[0].first, "moves");
  EXPECT_EQ(s.stats[0].second, static_cast<double>(migrations(in, current, s.assignment).count));

  // Per cluster: max time <= max(fixed max, (1 + tol) * (ideal + max load / min speed)).
  const std::vector<double> loads = pe_loads(in, s.assignment);
  std::map<std::int32_t, bool> clusters;
  for (const Pe& pe : in.pes) clusters[pe.cluster] = true;
  for (const auto& [cluster, unused] : clusters) {
    const Instance part = cluster_part(in, cluster);
    const std::vector<double> fixed = fixed_pe_loads(part);
    double max_load = 0.0;
    for (const Object& o : part.objects) max_load = std::max(max_load, o.migratable ? o.load : 0.0);
    double min_speed = part.pes[0].speed;
    for (const Pe& pe : part.pes) min_speed = std::min(min_speed, pe.speed);
    const double bound = std::max(*std::max_element(fixed.begin(), fixed.end()),
                                  (1.0 + tolerance) * (ideal_time(part) + max_load / min_speed));
    for (std::size_t p = 0; p < in.pes.size(); ++p) {
      if (in.pes[p].cluster == cluster) {
        EXPECT_LE(loads[p], bound + kEps) << "cluster " << cluster << " pe " << p;
      }
    }
  }
}

TEST(GridComm, RandomInstancesKeepClustersAndBalanceEachCluster) {
  for (const double tolerance : {0.0, 0.1, 0.5}) {
    auto strategy = make({{"tolerance", std::to_string(tolerance)}});
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
      SCOPED_TRACE(seed);
      const Instance in = grid_instance(seed);
      const Solution s = strategy->solve(in);
      check_properties(in, s, tolerance);
      EXPECT_EQ(strategy->solve(in).assignment, s.assignment);  // deterministic
    }
  }
}

TEST(GridComm, AllPinnedNothingMoves) {
  GridOptions opt;
  opt.pinned_fraction = 1.0;
  const Instance in = grid_instance(7, opt);
  const Solution s = make()->solve(in);
  EXPECT_EQ(s.assignment, current_assignment(in));
  EXPECT_EQ(s.stats[0].second, 0.0);
}

TEST(GridComm, EmptyInstances) {
  Instance none;
  EXPECT_TRUE(make()->solve(none).assignment.pe.empty());
  Instance pes_only;
  pes_only.pes.resize(3);
  EXPECT_TRUE(make()->solve(pes_only).assignment.pe.empty());
}

TEST(GridComm, HeterogeneousSpeedsWithinCluster) {
  // Cluster 0: speeds 1 and 3; cluster 1: speed 2. 120 unit objects per cluster.
  Instance in;
  in.pes = {{1.0, 0.0, 0}, {3.0, 0.0, 0}, {2.0, 0.0, 1}, {2.0, 0.0, 1}};
  for (int i = 0; i < 240; ++i) {
    Object o;
    o.id = i;
    o.load = 1.0;
    o.pe = i < 120 ? 0 : 2;
    in.objects.push_back(o);
  }
  const Solution s = make()->solve(in);
  check_properties(in, s, 0.1);
  const std::vector<double> loads = pe_loads(in, s.assignment);
  EXPECT_NEAR(loads[0], 30.0, 1.0 + kEps);  // 30 objects on speed 1, 90 on speed 3
  EXPECT_NEAR(loads[1], 30.0, 1.0 / 3.0 + kEps);
  EXPECT_DOUBLE_EQ(loads[2], 30.0);
  EXPECT_DOUBLE_EQ(loads[3], 30.0);
}

int max_borders_per_pe(const Instance& in, const Assignment& a, std::int32_t cluster, int* total) {
  const std::vector<bool> border = border_objects(in);
  std::vector<int> count(in.pes.size(), 0);
  *total = 0;
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (!border[i] || cluster_of(in, in.objects[i].pe) != cluster) continue;
    ++count[static_cast<std::size_t>(a.pe[i])];
    ++*total;
  }
  return *std::max_element(count.begin(), count.end());
}

// Two clusters of 4 PEs over a 16 x 16 grid split at column 8: 16 border objects per cluster.
// Objects start in row blocks, so the four PEs nearest the border start with all of them.
Instance border_instance(std::uint64_t seed, double jitter) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Instance in;
  in.dims = 2;
  for (int p = 0; p < 8; ++p) in.pes.push_back({1.0, 0.0, p / 4});
  const int n = 16;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      Object o;
      o.id = y * n + x;
      o.load = 1.0 + jitter * unit(rng);
      o.pe = static_cast<PeId>((x < 8 ? 0 : 4) + (x % 8) / 2);  // columns 7, 8 on PEs 3, 4
      in.objects.push_back(o);
    }
  }
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const auto i = static_cast<std::uint32_t>(y * n + x);
      if (x + 1 < n) in.edges.push_back({i, i + 1, 1, 100});
      if (y + 1 < n) in.edges.push_back({i, i + static_cast<std::uint32_t>(n), 1, 100});
    }
  }
  validate(in);
  return in;
}

TEST(GridComm, BorderObjectsSpreadOverClusterPes) {
  for (const double jitter : {0.0, 0.03}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      SCOPED_TRACE(seed);
      const Instance in = border_instance(seed, jitter);
      const Solution s = make()->solve(in);
      check_properties(in, s, 0.1);
      for (const std::int32_t cluster : {0, 1}) {
        int total = 0;
        const int most = max_borders_per_pe(in, s.assignment, cluster, &total);
        EXPECT_EQ(total, 16);
        const int fair = (total + 3) / 4;
        EXPECT_LE(most, fair + (jitter == 0.0 ? 0 : 1)) << "cluster " << cluster;
      }
    }
  }
}

TEST(GridComm, BorderSpreadOnRandomInstances) {
  // Loosely: no PE holds more than twice its fair share of its cluster's border objects + 2.
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    GridOptions opt;
    opt.pinned_fraction = 0.0;
    opt.random_within_cluster = false;
    const Instance in = grid_instance(seed, opt);
    const Solution s = make({{"tolerance", "0.3"}})->solve(in);
    std::map<std::int32_t, int> pes_in;
    for (const Pe& pe : in.pes) ++pes_in[pe.cluster];
    for (const auto& [cluster, count] : pes_in) {
      int total = 0;
      const int most = max_borders_per_pe(in, s.assignment, cluster, &total);
      EXPECT_LE(most, 2 * ((total + count - 1) / count) + 2) << "cluster " << cluster;
    }
  }
}

TEST(GridComm, Parameters) {
  const StrategyInfo info = builtin::grid_comm();
  EXPECT_EQ(info.name, "grid-comm");
  ASSERT_EQ(info.params.size(), 1U);
  EXPECT_EQ(info.params[0].name, "tolerance");
  EXPECT_DOUBLE_EQ(info.params[0].default_value, 0.10);
  EXPECT_DOUBLE_EQ(info.params[0].min, 0.0);
  EXPECT_DOUBLE_EQ(info.params[0].max, 10.0);
  EXPECT_NO_THROW(make({{"tolerance", "0"}}));
  EXPECT_NO_THROW(make({{"tolerance", "10"}}));
  EXPECT_THROW(make({{"tolerance", "-0.1"}}), ParamError);
  EXPECT_THROW(make({{"tolerance", "10.5"}}), ParamError);
  EXPECT_THROW(make({{"tolerance", "abc"}}), ParamError);
  EXPECT_THROW(make({{"slack", "0.1"}}), ParamError);
}

}  // namespace
}  // namespace vela::lb
