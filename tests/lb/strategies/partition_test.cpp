// The graph-partitioner strategies (metis and scotch): valid assignments, pinned objects
// kept, balance and communication cut on a 2-D halo grid, few moves when the placement is
// already a partition, PE speeds respected, parameters checked, results repeatable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {
StrategyInfo metis();
StrategyInfo scotch();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

StrategyInfo info_of(const std::string& name) {
  return name == "metis" ? builtin::metis() : builtin::scotch();
}

std::unique_ptr<Strategy> make(const std::string& name, const RawParams& raw = {}) {
  const StrategyInfo info = info_of(name);
  return info.make(ParamValues(info.name, info.params, raw));
}

// side x side objects with 4-neighbour halo edges of 1000 bytes each way, placed at random.
Instance grid(int side, int pes, std::uint32_t seed = 7) {
  Instance in;
  in.dims = 2;
  in.pes.resize(static_cast<std::size_t>(pes));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<PeId> pick(0, pes - 1);
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      Object o;
      o.id = y * side + x;
      o.load = 1.0;
      o.size = 100;
      o.coords = {static_cast<double>(x), static_cast<double>(y), 0.0};
      o.pe = pick(rng);
      in.objects.push_back(o);
    }
  }
  const auto at = [side](int x, int y) { return static_cast<std::uint32_t>(y * side + x); };
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      if (x + 1 < side) {
        in.edges.push_back({at(x, y), at(x + 1, y), 1, 1000});
        in.edges.push_back({at(x + 1, y), at(x, y), 1, 1000});
      }
      if (y + 1 < side) {
        in.edges.push_back({at(x, y), at(x, y + 1), 1, 1000});
        in.edges.push_back({at(x, y + 1), at(x, y), 1, 1000});
      }
    }
  }
  return in;
}

// 32x32 objects on a 4x4 grid of PEs, 8x8 objects each.
Assignment blocks(const Instance& in) {
  Assignment a;
  for (const Object& o : in.objects) {
    const int x = static_cast<int>(o.coords[0]) / 8;
    const int y = static_cast<int>(o.coords[1]) / 8;
    a.pe.push_back(y * 4 + x);
  }
  return a;
}

double lambda(const Instance& in, const Assignment& a) {
  return load_stats(pe_loads(in, a)).imbalance;
}

void expect_valid(const Instance& in, const Assignment& a) {
  ASSERT_EQ(a.pe.size(), in.objects.size());
  for (std::size_t i = 0; i < a.pe.size(); ++i) {
    ASSERT_GE(a.pe[i], 0);
    ASSERT_LT(static_cast<std::size_t>(a.pe[i]), in.pes.size());
    if (!in.objects[i].migratable) {
      EXPECT_EQ(a.pe[i], in.objects[i].pe) << "object " << i;
    }
  }
}

class PartitionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PartitionTest, ValidAndPinnedStay) {
  Instance in = grid(32, 16);
  std::mt19937 rng(3);
  for (Object& o : in.objects) {
    o.load = std::uniform_real_distribution<double>(0.5, 2.0)(rng);
    o.migratable = rng() % 10 != 0;
  }
  const Solution s = make(GetParam())->solve(in);
  expect_valid(in, s.assignment);
}

TEST_P(PartitionTest, GridBalanceAndCut) {
  const Instance in = grid(32, 16);
  const Solution s = make(GetParam())->solve(in);
  expect_valid(in, s.assignment);
  EXPECT_LE(lambda(in, s.assignment), 0.05);
  const std::uint64_t cut = comm_cut(in, s.assignment).bytes;
  const std::uint64_t random_cut = comm_cut(in, current_assignment(in)).bytes;
  const std::uint64_t block_cut = comm_cut(in, blocks(in)).bytes;
  EXPECT_LT(cut * 4, random_cut);
  EXPECT_LE(cut, 2 * block_cut);
}

TEST_P(PartitionTest, StormBump) {
  Instance in = grid(32, 16);
  for (Object& o : in.objects) {
    const double dx = o.coords[0] - 10.0;
    const double dy = o.coords[1] - 12.0;
    o.load = 1.0 + 4.0 * std::exp(-(dx * dx + dy * dy) / 18.0);
  }
  const Solution s = make(GetParam())->solve(in);
  expect_valid(in, s.assignment);
  EXPECT_LE(lambda(in, s.assignment), 0.10);
}

TEST_P(PartitionTest, SecondRunMovesAlmostNothing) {
  Instance in = grid(32, 16);
  const Solution first = make(GetParam())->solve(in);
  EXPECT_GT(migrations(in, current_assignment(in), first.assignment).count, 100U);
  // Apply the result under relabelled PEs (5 is coprime with 16), so the parts of the second
  // run can only land where their objects are through the overlap matching.
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    in.objects[i].pe = (first.assignment.pe[i] * 5 + 3) % 16;
  }
  const Solution second = make(GetParam())->solve(in);
  const std::uint64_t moved = migrations(in, current_assignment(in), second.assignment).count;
  EXPECT_LE(static_cast<double>(moved), 0.05 * static_cast<double>(in.objects.size()));
}

TEST_P(PartitionTest, FastPeGetsMoreWork) {
  Instance in = grid(32, 4);
  in.pes[1].speed = 2.0;
  const Solution s = make(GetParam())->solve(in);
  expect_valid(in, s.assignment);
  std::vector<double> work(4, 0.0);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    work[static_cast<std::size_t>(s.assignment.pe[i])] += in.objects[i].load;
  }
  const double slow = (work[0] + work[2] + work[3]) / 3.0;
  EXPECT_NEAR(work[1] / slow, 2.0, 0.5);
}

TEST_P(PartitionTest, BackgroundLoadTakesShare) {
  Instance in = grid(32, 4);
  in.pes[2].background = 128.0;  // half of a PE's fair share of 256
  const Solution s = make(GetParam())->solve(in);
  expect_valid(in, s.assignment);
  EXPECT_LE(lambda(in, s.assignment), 0.08);
}

TEST_P(PartitionTest, Deterministic) {
  Instance in = grid(32, 16);
  std::mt19937 rng(11);
  for (Object& o : in.objects) o.load = std::uniform_real_distribution<double>(0.1, 3.0)(rng);
  const Solution a = make(GetParam())->solve(in);
  const Solution b = make(GetParam())->solve(in);
  EXPECT_EQ(a.assignment, b.assignment);
}

TEST_P(PartitionTest, EdgeCases) {
  // One PE.
  Instance one = grid(8, 1);
  Solution s = make(GetParam())->solve(one);
  for (const PeId pe : s.assignment.pe) EXPECT_EQ(pe, 0);
  // Fewer objects than PEs.
  Instance few = grid(2, 16);
  s = make(GetParam())->solve(few);
  expect_valid(few, s.assignment);
  // No edges.
  Instance loose = grid(16, 8);
  loose.edges.clear();
  s = make(GetParam())->solve(loose);
  expect_valid(loose, s.assignment);
  EXPECT_LE(lambda(loose, s.assignment), 0.10);
  // All loads zero.
  Instance idle = grid(16, 8);
  for (Object& o : idle.objects) o.load = 0.0;
  s = make(GetParam())->solve(idle);
  expect_valid(idle, s.assignment);
  // No objects, and nothing migratable.
  Instance empty;
  empty.pes.resize(4);
  EXPECT_TRUE(make(GetParam())->solve(empty).assignment.pe.empty());
  Instance pinned = grid(8, 4);
  for (Object& o : pinned.objects) o.migratable = false;
  EXPECT_EQ(make(GetParam())->solve(pinned).assignment, current_assignment(pinned));
}

TEST_P(PartitionTest, Parameters) {
  EXPECT_NO_THROW(make(GetParam(), {{"imbalance", "1.001"}}));
  EXPECT_NO_THROW(make(GetParam(), {{"imbalance", "2"}}));
  EXPECT_THROW(make(GetParam(), {{"imbalance", "1.0"}}), ParamError);
  EXPECT_THROW(make(GetParam(), {{"imbalance", "2.5"}}), ParamError);
  EXPECT_THROW(make(GetParam(), {{"imbalance", "x"}}), ParamError);
  EXPECT_THROW(make(GetParam(), {{"seed", "1.5"}}), ParamError);
  EXPECT_THROW(make(GetParam(), {{"nope", "1"}}), ParamError);
  const StrategyInfo info = info_of(GetParam());
  EXPECT_EQ(info.name, GetParam());
  EXPECT_DOUBLE_EQ(ParamValues(info.name, info.params, {}).get("imbalance"), 1.05);
}

INSTANTIATE_TEST_SUITE_P(Partitioners, PartitionTest, ::testing::Values("metis", "scotch"));

}  // namespace
}  // namespace vela::lb
