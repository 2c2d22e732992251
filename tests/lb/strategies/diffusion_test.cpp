// The diffusion strategy: neighbour-only moves of boundary objects, connectivity kept,
// load "trapped" (seed 000, Fig. 4.17) and slow convergence over repeated invocations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"

// Defined in src/lb/strategies/*.cpp; reached directly so these tests do not depend on the
// registry listing them.
namespace vela::lb::builtin {
StrategyInfo diffusion();
StrategyInfo greedy();
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

std::unique_ptr<Strategy> make(const StrategyInfo& info, const RawParams& raw = {}) {
  return info.make(ParamValues(info.name, info.params, raw));
}

Solution diffuse(const Instance& instance, const RawParams& raw = {}) {
  return make(builtin::diffusion(), raw)->solve(instance);
}

double stat(const Solution& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1.0;
}

void apply(Instance& instance, const Assignment& a) {
  for (std::size_t i = 0; i < instance.objects.size(); ++i) instance.objects[i].pe = a.pe[i];
}

double lambda(const Instance& instance, const Assignment& a) {
  return load_stats(pe_loads(instance, a)).imbalance;
}

double max_time(const Instance& instance, const Assignment& a) {
  return load_stats(pe_loads(instance, a)).max;
}

// Objects in a line, each talking to the next; `pes[k]` is the PE of object k.
Instance line(const std::vector<double>& loads, const std::vector<PeId>& pes, int pe_count) {
  Instance instance;
  instance.dims = 1;
  instance.pes.resize(static_cast<std::size_t>(pe_count));
  for (std::size_t k = 0; k < loads.size(); ++k) {
    Object o;
    o.id = static_cast<ObjectId>(k);
    o.load = loads[k];
    o.coords = {double(k), 0.0, 0.0};
    o.pe = pes[k];
    instance.objects.push_back(o);
    if (k > 0) {
      instance.edges.push_back(
          {static_cast<std::uint32_t>(k - 1), static_cast<std::uint32_t>(k), 1, 8});
    }
  }
  return instance;
}

// Fig. 4.17: P0, P1, P2 in a line, three objects each. P0's boundary object (6) is heavier than
// the gap to P1 (12 - 8 = 4), and P1's (4) is not below its gap to P2 (8 - 4 = 4): nothing moves.
TEST(Diffusion, TrappedLoadOfFigure417DoesNotMove) {
  const Instance instance = line({3, 3, 6, 2, 2, 4, 2, 1, 1}, {0, 0, 0, 1, 1, 1, 2, 2, 2}, 3);
  const Solution s = diffuse(instance);
  EXPECT_EQ(s.assignment, current_assignment(instance));
  EXPECT_EQ(stat(s, "moves"), 0.0);
  EXPECT_EQ(pe_loads(instance, s.assignment), (std::vector<double>{12, 8, 4}));
  EXPECT_DOUBLE_EQ(lambda(instance, s.assignment), 0.5);
  // Greedy, free to place anything anywhere, balances it exactly.
  const Solution g = make(builtin::greedy())->solve(instance);
  EXPECT_DOUBLE_EQ(lambda(instance, g.assignment), 0.0);
  // A fixed point: further invocations change nothing.
  Instance again = instance;
  for (int k = 0; k < 5; ++k) {
    const Solution next = diffuse(again);
    EXPECT_EQ(next.assignment, current_assignment(again));
  }
}

// Unit objects in a line, 10 | 4 | 4 on P0 | P1 | P2 (ideal 6). Each invocation moves at most the
// boundary layer, so the excess creeps: 9,5,4 -> 8,5,5 -> 7,6,5 and then stays trapped.
TEST(Diffusion, ExcessCreepsOneLayerPerInvocationThenTraps) {
  std::vector<PeId> pes;
  for (int k = 0; k < 18; ++k) pes.push_back(k < 10 ? 0 : (k < 14 ? 1 : 2));
  Instance instance = line(std::vector<double>(18, 1.0), pes, 3);
  const double greedy_lambda =
      lambda(instance, make(builtin::greedy())->solve(instance).assignment);
  EXPECT_DOUBLE_EQ(greedy_lambda, 0.0);

  const std::vector<std::vector<double>> expected = {
      {9, 5, 4}, {8, 5, 5}, {7, 6, 5}, {7, 6, 5}, {7, 6, 5}};
  double previous = lambda(instance, current_assignment(instance));
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const Solution s = diffuse(instance);
    EXPECT_EQ(pe_loads(instance, s.assignment), expected[k]) << "invocation " << k + 1;
    const double l = lambda(instance, s.assignment);
    EXPECT_LE(l, previous);
    EXPECT_GT(l, greedy_lambda) << "invocation " << k + 1;
    previous = l;
    apply(instance, s.assignment);
  }
  // After the first invocation the excess of P0 has not reached P2.
  EXPECT_DOUBLE_EQ(previous, 7.0 / 6.0 - 1.0);
}

TEST(Diffusion, EmptyAndSinglePe) {
  Instance none;
  none.pes.resize(2);
  EXPECT_TRUE(diffuse(none).assignment.pe.empty());
  const Instance one = line({5, 1, 1}, {0, 0, 0}, 1);
  EXPECT_EQ(diffuse(one).assignment, current_assignment(one));
}

// A w x h grid of objects with 4-neighbour halo edges (both directions), placed in blocks of
// columns-by-rows over a px x py PE grid, random loads.
Instance grid(int w, int h, int px, int py, std::mt19937_64& rng, bool speeds) {
  Instance instance;
  instance.dims = 2;
  instance.pes.resize(static_cast<std::size_t>(px * py));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (speeds) {
    for (Pe& pe : instance.pes) {
      pe.speed = 0.5 + unit(rng);
      pe.background = unit(rng) * 2.0;
    }
  }
  const double skew = unit(rng) * 4.0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      Object o;
      o.id = static_cast<ObjectId>(y * w + x);
      // A hot spot in one corner plus noise, so there is something to diffuse.
      o.load = 0.1 + unit(rng) + (x < w / 3 && y < h / 3 ? skew : 0.0);
      if (unit(rng) < 0.05) o.load = 0.0;
      o.coords = {double(x), double(y), 0.0};
      o.pe = static_cast<PeId>((y * py / h) * px + (x * px / w));
      o.migratable = unit(rng) > 0.1;
      instance.objects.push_back(o);
    }
  }
  const auto at = [&](int x, int y) { return static_cast<std::uint32_t>(y * w + x); };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (x + 1 < w) {
        instance.edges.push_back({at(x, y), at(x + 1, y), 1, 64});
        instance.edges.push_back({at(x + 1, y), at(x, y), 1, 64});
      }
      if (y + 1 < h) {
        instance.edges.push_back({at(x, y), at(x, y + 1), 1, 64});
        instance.edges.push_back({at(x, y + 1), at(x, y), 1, 64});
      }
    }
  }
  return instance;
}

// Undirected adjacency of the instance's objects.
std::vector<std::vector<std::uint32_t>> adjacency(const Instance& instance) {
  std::vector<std::vector<std::uint32_t>> adj(instance.objects.size());
  for (const Edge& e : instance.edges) {
    if (e.from == e.to) continue;
    adj[e.from].push_back(e.to);
    adj[e.to].push_back(e.from);
  }
  return adj;
}

// Whether the objects on each PE are connected (a PE with no objects counts as connected).
std::vector<bool> pe_connected(const Instance& instance, const Assignment& a,
                               const std::vector<std::vector<std::uint32_t>>& adj) {
  const std::size_t n = instance.objects.size();
  std::vector<int> components(instance.pes.size(), 0);
  std::vector<bool> seen(n, false);
  std::vector<std::uint32_t> stack;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    const PeId pe = a.pe[s];
    ++components[static_cast<std::size_t>(pe)];
    seen[s] = true;
    stack.assign(1, s);
    while (!stack.empty()) {
      const std::uint32_t v = stack.back();
      stack.pop_back();
      for (const std::uint32_t x : adj[v]) {
        if (!seen[x] && a.pe[x] == pe) {
          seen[x] = true;
          stack.push_back(x);
        }
      }
    }
  }
  std::vector<bool> connected;
  for (const int c : components) connected.push_back(c <= 1);
  return connected;
}

double count_moves(const Assignment& a, const Assignment& b) {
  std::uint64_t moved = 0;
  for (std::size_t i = 0; i < a.pe.size(); ++i) moved += a.pe[i] != b.pe[i] ? 1 : 0;
  return static_cast<double>(moved);
}

void check_invocation(const Instance& instance, const Solution& s,
                      const std::vector<std::vector<std::uint32_t>>& adj, bool equal_speeds) {
  const Assignment before = current_assignment(instance);
  ASSERT_NO_THROW(validate(instance, s.assignment));
  EXPECT_DOUBLE_EQ(stat(s, "moves"), count_moves(before, s.assignment));
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (s.assignment.pe[i] == before.pe[i]) continue;
    EXPECT_TRUE(instance.objects[i].migratable) << "object " << i;
    // It went to a PE on which, before, it had a communication partner.
    bool talked = false;
    for (const std::uint32_t x : adj[i]) talked = talked || before.pe[x] == s.assignment.pe[i];
    EXPECT_TRUE(talked) << "object " << i << " to PE " << s.assignment.pe[i];
  }
  const std::vector<bool> was = pe_connected(instance, before, adj);
  const std::vector<bool> now = pe_connected(instance, s.assignment, adj);
  for (std::size_t p = 0; p < was.size(); ++p) {
    EXPECT_TRUE(!was[p] || now[p]) << "PE " << p;
  }
  EXPECT_LE(max_time(instance, s.assignment), max_time(instance, before) * (1 + 1e-12) + 1e-12);
  if (equal_speeds) {
    EXPECT_LE(lambda(instance, s.assignment), lambda(instance, before) + 1e-12);
  }
}

TEST(Diffusion, PropertiesOverRandomGrids) {
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> side(4, 24);
  std::uniform_int_distribution<int> split(1, 4);
  int moved_total = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const bool speeds = trial % 3 == 2;
    const int w = side(rng), h = side(rng);
    const int px = std::min(split(rng), w), py = std::min(split(rng), h);
    Instance instance = grid(w, h, px, py, rng, speeds);
    const auto adj = adjacency(instance);
    RawParams raw;
    if (trial % 4 == 1) raw["max_moves_per_pe"] = "2";
    if (trial % 5 == 3) raw["tolerance"] = "0.1";
    SCOPED_TRACE("trial " + std::to_string(trial));
    for (int k = 0; k < 6; ++k) {
      const Solution s = diffuse(instance, raw);
      check_invocation(instance, s, adj, !speeds);
      if (raw.count("max_moves_per_pe") != 0) {
        std::vector<int> out(instance.pes.size(), 0);
        for (std::size_t i = 0; i < instance.objects.size(); ++i) {
          if (s.assignment.pe[i] != instance.objects[i].pe) {
            ++out[static_cast<std::size_t>(instance.objects[i].pe)];
          }
        }
        for (const int o : out) EXPECT_LE(o, 2);
      }
      moved_total += static_cast<int>(stat(s, "moves"));
      apply(instance, s.assignment);
    }
  }
  EXPECT_GT(moved_total, 100);  // the properties were exercised by real moves
}

TEST(Diffusion, SlowerThanGreedyOnAHotSpot) {
  std::mt19937_64 rng(7);
  Instance instance = grid(32, 32, 4, 4, rng, false);
  for (Object& o : instance.objects) o.migratable = true;
  const double greedy_lambda =
      lambda(instance, make(builtin::greedy())->solve(instance).assignment);
  double previous = lambda(instance, current_assignment(instance));
  const double start = previous;
  for (int k = 0; k < 10; ++k) {
    const Solution s = diffuse(instance);
    const double l = lambda(instance, s.assignment);
    EXPECT_LE(l, previous + 1e-12);
    EXPECT_GT(l, greedy_lambda);
    previous = l;
    apply(instance, s.assignment);
  }
  EXPECT_LT(previous, start);
}

// A PE's local step reads only its own objects and their neighbours: at 64 objects per PE, the
// busiest step reads about as much on 16 PEs as on 1,024 (64x the objects). A step that scanned
// every object or every PE would grow with the instance.
TEST(Diffusion, LocalStepCostDoesNotGrowWithTheObjectCount) {
  std::vector<double> max_visits;
  for (const int side : {4, 8, 16, 32}) {
    std::mt19937_64 rng(11);
    const Instance instance = grid(8 * side, 8 * side, side, side, rng, false);
    const Solution s = diffuse(instance);
    EXPECT_GT(stat(s, "moves"), 0.0);
    max_visits.push_back(stat(s, "max_pe_visits"));
    EXPECT_GT(stat(s, "mean_pe_visits"), 64.0);  // at least its own objects
    EXPECT_LE(stat(s, "mean_pe_visits"), max_visits.back());
  }
  for (const double v : max_visits) {
    EXPECT_LE(v, 2.0 * max_visits.front());
    EXPECT_GE(v, 0.5 * max_visits.front());
  }
}

TEST(Diffusion, Parameters) {
  const StrategyInfo info = builtin::diffusion();
  EXPECT_EQ(info.name, "diffusion");
  ASSERT_EQ(info.params.size(), 2u);
  EXPECT_EQ(info.params[0].name, "max_moves_per_pe");
  EXPECT_TRUE(info.params[0].integer);
  EXPECT_DOUBLE_EQ(info.params[0].default_value, 0.0);
  EXPECT_EQ(info.params[1].name, "tolerance");
  EXPECT_DOUBLE_EQ(info.params[1].default_value, 0.0);
  EXPECT_NO_THROW(make(info, {{"max_moves_per_pe", "3"}, {"tolerance", "0.25"}}));
  EXPECT_THROW(make(info, {{"max_moves_per_pe", "-1"}}), ParamError);
  EXPECT_THROW(make(info, {{"max_moves_per_pe", "1.5"}}), ParamError);
  EXPECT_THROW(make(info, {{"tolerance", "-0.1"}}), ParamError);
  EXPECT_THROW(make(info, {{"tolerance", "abc"}}), ParamError);
  EXPECT_THROW(make(info, {{"steps", "1"}}), ParamError);
}

TEST(Diffusion, MaxMovesPerPeLimitsOneInvocation) {
  std::vector<PeId> pes;
  for (int k = 0; k < 18; ++k) pes.push_back(k < 14 ? 0 : 1);
  const Instance instance = line(std::vector<double>(18, 1.0), pes, 2);
  // Only object 13 talks to PE 1, so one move per invocation whatever the limit.
  EXPECT_EQ(stat(diffuse(instance), "moves"), 1.0);
  EXPECT_EQ(stat(diffuse(instance, {{"max_moves_per_pe", "1"}}), "moves"), 1.0);
  // Two lines on P0 both bordering P1: unlimited moves two, a limit of 1 moves one.
  Instance two = line({1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 1, 0, 0, 0, 1}, 2);
  two.edges.push_back({0, 4, 1, 8});  // keep P0's objects one component
  EXPECT_EQ(stat(diffuse(two), "moves"), 2.0);
  EXPECT_EQ(stat(diffuse(two, {{"max_moves_per_pe", "1"}}), "moves"), 1.0);
}

TEST(Diffusion, KeepsPeConnectedAndSkipsPinned) {
  // P0 holds 0-1-2 with 1 the only link between 0 and 2; only 1 talks to P1 (object 3).
  Instance instance = line({1, 5, 1, 1}, {0, 0, 0, 1}, 2);
  instance.edges = {{0, 1, 1, 8}, {1, 2, 1, 8}, {1, 3, 1, 8}};
  EXPECT_EQ(stat(diffuse(instance), "moves"), 0.0);  // moving 1 would split 0 from 2
  instance.edges.push_back({0, 2, 1, 8});            // now 0 and 2 stay joined
  EXPECT_EQ(diffuse(instance).assignment.pe, (std::vector<PeId>{0, 1, 0, 1}));
  instance.objects[1].migratable = false;
  EXPECT_EQ(stat(diffuse(instance), "moves"), 0.0);
}

}  // namespace
}  // namespace vela::lb
