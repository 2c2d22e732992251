// Properties of the hypergraph strategy (Zoltan PHG): valid assignments on seeded random
// instances, pinned objects kept, balance within the tolerance, speeds respected, a far lower
// hypergraph cut than greedy's, few migrations when repartitioning a good placement,
// determinism, parameters, and MPI initialised on demand or left to a caller that owns it.
#include <gtest/gtest.h>
#include <mpi.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {
StrategyInfo hypergraph();
StrategyInfo greedy();
std::size_t repair_balance(const Instance& instance, const std::vector<Hyperedge>& nets,
                           double tolerance, Assignment& assignment);
}  // namespace vela::lb::builtin

namespace vela::lb {
namespace {

std::unique_ptr<Strategy> make(const StrategyInfo& info, const RawParams& raw = {}) {
  return info.make(ParamValues(info.name, info.params, raw));
}

std::unique_ptr<Strategy> hypergraph(const RawParams& raw = {}) {
  return make(builtin::hypergraph(), raw);
}

// Objects of random loads (some zero), sizes and PEs, a fifth pinned; PEs of random speed and
// background; communication as random hyperedges, random edges, or none (by seed).
Instance random_instance(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Instance in;
  in.pes.resize(1 + rng() % 12);
  for (Pe& pe : in.pes) {
    pe.speed = unit(rng) < 0.3 ? 1.0 : 0.5 + 2.5 * unit(rng);
    pe.background = unit(rng) < 0.3 ? 2.0 * unit(rng) : 0.0;
  }
  const std::size_t n = seed % 7 == 0 ? 0 : 1 + rng() % 300;
  for (std::size_t i = 0; i < n; ++i) {
    Object o;
    o.id = static_cast<ObjectId>(3 * i + 7);
    o.load = unit(rng) < 0.1 ? 0.0 : 0.1 + 5.0 * unit(rng);
    o.size = rng() % 100000;
    o.pe = static_cast<PeId>(rng() % in.pes.size());
    o.migratable = unit(rng) >= 0.2;
    in.objects.push_back(o);
  }
  if (n >= 2 && seed % 3 == 0) {
    for (std::size_t h = 0; h < n; ++h) {
      std::vector<std::uint32_t> pins(n);
      std::iota(pins.begin(), pins.end(), 0U);
      std::shuffle(pins.begin(), pins.end(), rng);
      pins.resize(std::min<std::size_t>(n, 2 + rng() % 5));
      in.hyperedges.push_back({pins, rng() % 5000});
    }
  } else if (n >= 2 && seed % 3 == 1) {
    for (std::size_t e = 0; e < 3 * n; ++e) {
      in.edges.push_back({static_cast<std::uint32_t>(rng() % n),
                          static_cast<std::uint32_t>(rng() % n), 1, rng() % 5000});
    }
  }
  validate(in);
  return in;
}

// A small particle box: uneven loads, hyperedges and the matching edges.
Instance particles(std::uint64_t seed, PeId pes = 8) {
  ParticlesOptions o;
  o.nx = 24;
  o.ny = 24;
  o.pes = pes;
  o.particles = 20000;
  o.seed = seed;
  return generate_particles(o);
}

TEST(Hypergraph, ValidAssignmentsOnSeededRandomInstances) {
  auto strategy = hypergraph();
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Instance in = random_instance(seed);
    // run_strategy throws std::logic_error on an invalid PE or a moved pinned object.
    const StrategyReport r = run_strategy(*strategy, "hypergraph", in);
    ASSERT_EQ(r.assignment.pe.size(), in.objects.size());
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      ASSERT_GE(r.assignment.pe[i], 0);
      ASSERT_LT(r.assignment.pe[i], static_cast<PeId>(in.pes.size()));
      if (!in.objects[i].migratable) {
        ASSERT_EQ(r.assignment.pe[i], in.objects[i].pe);
      }
    }
  }
}

TEST(Hypergraph, PinnedWorkCountsAsItsPesOwn) {
  // PE 0 already holds 60 pinned units, exactly its share of the 240 units on 4 equal PEs: it
  // must get (almost) no migratable work, and its pinned objects must stay.
  Instance in;
  in.pes.resize(4);
  for (int i = 0; i < 240; ++i) {
    in.objects.push_back({.id = i, .load = 1.0, .size = 100, .pe = i % 4, .migratable = i >= 60});
    if (i < 60) in.objects.back().pe = 0;
  }
  for (std::uint32_t i = 0; i + 1 < 240; ++i) in.hyperedges.push_back({{i, i + 1}, 10});
  const Solution s = hypergraph()->solve(in);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(s.assignment.pe[static_cast<std::size_t>(i)], 0);
  const std::vector<double> loads = pe_loads(in, s.assignment);
  EXPECT_LE(loads[0], 60.0 * 1.05 + 1e-9);
  EXPECT_LE(*std::max_element(loads.begin(), loads.end()), 1.05 * ideal_time(in) + 1e-9);
}

TEST(Hypergraph, BalancesWithinTheToleranceWhenObjectsAreSmall) {
  // 1500 objects of load 0.5 to 1.5 on 6 PEs: any tolerance >= 1% is reachable.
  for (const double tolerance : {1.02, 1.05, 1.2}) {
    SCOPED_TRACE("imbalance " + std::to_string(tolerance));
    GammaOptions g;
    g.objects = 1500;
    g.pes = 6;
    g.seed = 5;
    g.shape = 20.0;
    g.scale = 0.05;
    const Instance in = generate_gamma(g);
    const Solution s = hypergraph({{"imbalance", std::to_string(tolerance)}})->solve(in);
    const std::vector<double> loads = pe_loads(in, s.assignment);
    EXPECT_LE(*std::max_element(loads.begin(), loads.end()), tolerance * ideal_time(in));
  }
}

TEST(Hypergraph, RepairsTheBalanceOnCoarseParticleBoxes) {
  // The default box: the heaviest cells carry a large part of a PE's share, and Zoltan's
  // recursive bisection alone ends a little above the tolerance.
  const Instance in = generate_particles(ParticlesOptions{});
  const Solution s = hypergraph()->solve(in);
  const std::vector<double> loads = pe_loads(in, s.assignment);
  EXPECT_LE(*std::max_element(loads.begin(), loads.end()), 1.05 * ideal_time(in));
  const auto stat = [&](const std::string& key) {
    for (const auto& [name, value] : s.stats) {
      if (name == key) return value;
    }
    return -1.0;
  };
  EXPECT_GE(stat("balance_moves"), 0.0);
  EXPECT_GE(stat("zoltan_cut"), 0.0);
}

TEST(HypergraphBalance, MovesWhatAddsLeastToTheCut) {
  // A chain 0 - 1 - 2 - 3 of equal objects, all on PE 0 of 2: the ends cost one net to move,
  // the middle two; after the end 0 has moved, moving 1 after it costs nothing.
  Instance in;
  in.pes.resize(2);
  for (int i = 0; i < 4; ++i) in.objects.push_back({.id = i, .load = 1.0});
  in.hyperedges = {{{0, 1}, 10}, {{1, 2}, 10}, {{2, 3}, 10}};
  Assignment a = current_assignment(in);
  EXPECT_EQ(builtin::repair_balance(in, in.hyperedges, 1.05, a), 2u);
  EXPECT_EQ(a, (Assignment{{1, 1, 0, 0}}));
  EXPECT_EQ(hypergraph_cut(in, a), 10u);
  // Within the tolerance already: nothing moves.
  EXPECT_EQ(builtin::repair_balance(in, in.hyperedges, 1.05, a), 0u);
}

TEST(HypergraphBalance, SwapsWhenNoSingleMoveHelps) {
  // PE 0 holds {3, 3} (objects 0, 1), PE 1 holds {2, 2} (objects 2, 3): ideal 5, limit 5.25.
  // Moving a 3 makes PE 1 7, worse than PE 0's 6; only swapping a 3 with a 2 balances. The net
  // {1, 2} is cut now; swapping 0 with 2 or 1 with 3 brings its pins together, the other two
  // swaps leave it cut, so the repair picks the first of those (lowest object index).
  Instance in;
  in.pes.resize(2);
  const std::vector<double> loads = {3, 3, 2, 2};
  for (int i = 0; i < 4; ++i) {
    in.objects.push_back({.id = i, .load = loads[static_cast<std::size_t>(i)], .pe = i / 2});
  }
  in.hyperedges = {{{1, 2}, 10}};
  Assignment a = current_assignment(in);
  EXPECT_EQ(hypergraph_cut(in, a), 10u);
  EXPECT_EQ(builtin::repair_balance(in, in.hyperedges, 1.05, a), 2u);
  EXPECT_EQ(a, (Assignment{{1, 0, 0, 1}}));
  EXPECT_EQ(hypergraph_cut(in, a), 0u);
}

TEST(Hypergraph, MeetsTheToleranceOnACoarseBoxWithSwaps) {
  // 64 x 64 cells, 400,000 particles in 8 blobs, 64 PEs: single cells reach 73% of a PE's
  // average, and single moves alone stopped at 7.4%.
  ParticlesOptions o;
  o.nx = 64;
  o.ny = 64;
  o.particles = 400000;
  o.pes = 64;
  o.blobs = 8;
  const Instance in = generate_particles(o);
  const Solution s = hypergraph()->solve(in);
  const std::vector<double> loads = pe_loads(in, s.assignment);
  EXPECT_LE(*std::max_element(loads.begin(), loads.end()), 1.05 * ideal_time(in));
}

TEST(HypergraphBalance, NeverMovesPinnedObjectsAndStopsWhenNothingCanMove) {
  Instance in;
  in.pes.resize(3);
  for (int i = 0; i < 6; ++i) in.objects.push_back({.id = i, .load = 1.0, .migratable = false});
  in.objects.push_back({.id = 6, .load = 0.5});
  Assignment a = current_assignment(in);                    // everything on PE 0
  EXPECT_EQ(builtin::repair_balance(in, {}, 1.05, a), 1u);  // only object 6 may go
  EXPECT_EQ(a.pe[6], 1);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.pe[static_cast<std::size_t>(i)], 0);
}

TEST(Hypergraph, RespectsHeterogeneousSpeedsAndBackground) {
  GammaOptions g;
  g.objects = 1200;
  g.pes = 4;
  g.shape = 20.0;
  g.scale = 0.05;
  Instance in = generate_gamma(g);
  in.pes[0].speed = 1.0;
  in.pes[1].speed = 1.0;
  in.pes[2].speed = 2.0;
  in.pes[3].speed = 4.0;
  in.pes[1].background = 50.0;
  const Solution s = hypergraph()->solve(in);
  const std::vector<double> loads = pe_loads(in, s.assignment);
  const double ideal = ideal_time(in);
  // Shares blind to speed would leave PE 1 at a quarter of the work plus 50 s of background,
  // far above the ideal, and PE 3 nearly idle.
  for (std::size_t p = 0; p < loads.size(); ++p) {
    EXPECT_LE(loads[p], 1.05 * ideal) << "PE " << p;
    EXPECT_GE(loads[p], 0.8 * ideal) << "PE " << p;
  }
}

TEST(Hypergraph, CutsFarLessThanGreedyOnParticleBoxes) {
  auto strategy = hypergraph();
  auto greedy = make(builtin::greedy());
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Instance in = particles(seed);
    const Solution h = strategy->solve(in);
    const Solution g = greedy->solve(in);
    const std::uint64_t cut = hypergraph_cut(in, h.assignment);
    EXPECT_LT(cut, hypergraph_cut(in, g.assignment) / 3);
    // ... while balancing the work.
    const std::vector<double> loads = pe_loads(in, h.assignment);
    EXPECT_LE(*std::max_element(loads.begin(), loads.end()), 1.1 * ideal_time(in));
    // The strategy's own figure is the same cut.
    const auto stat = std::find_if(h.stats.begin(), h.stats.end(),
                                   [](const auto& kv) { return kv.first == "hypergraph_cut"; });
    ASSERT_NE(stat, h.stats.end());
    EXPECT_EQ(stat->second, static_cast<double>(cut));
  }
}

TEST(Hypergraph, BuildsNetsFromEdgesWhenThereAreNoHyperedges) {
  Instance in = particles(2);
  const std::vector<Hyperedge> nets =
      communication_nets(Instance{in.dims, in.objects, in.pes, in.edges, {}});
  in.hyperedges.clear();
  const Solution h = hypergraph()->solve(in);
  const Solution g = make(builtin::greedy())->solve(in);
  EXPECT_LT(hypergraph_cut(nets, h.assignment), hypergraph_cut(nets, g.assignment) / 3);
  EXPECT_LT(comm_cut(in, h.assignment).bytes, comm_cut(in, g.assignment).bytes / 3);
  const auto stat = [&](const std::string& key) {
    for (const auto& [name, value] : h.stats) {
      if (name == key) return value;
    }
    return -1.0;
  };
  EXPECT_EQ(stat("nets_from_edges"), 1.0);
  EXPECT_EQ(stat("nets"), static_cast<double>(nets.size()));
}

TEST(Hypergraph, RepartitioningABalancedPlacementMovesFewObjects) {
  // A slightly noisy grid in 2-D blocks: balanced and with a low cut already.
  JacobiOptions j;
  j.nx = 40;
  j.ny = 40;
  j.pes = 8;
  j.noise = 0.02;
  const Instance in = generate_jacobi(j);
  const Solution kept = hypergraph()->solve(in);
  const Solution fresh = hypergraph({{"repartition", "0"}})->solve(in);
  const double n = static_cast<double>(in.objects.size());
  const auto moves = [&](const Solution& s) {
    return static_cast<double>(migrations(in, current_assignment(in), s.assignment).count);
  };
  EXPECT_LT(moves(kept), 0.1 * n);
  EXPECT_LT(moves(kept) * 3, moves(fresh));
  const std::vector<double> loads = pe_loads(in, kept.assignment);
  EXPECT_LE(*std::max_element(loads.begin(), loads.end()), 1.05 * ideal_time(in));
}

TEST(Hypergraph, TheSameInstanceGetsTheSameAssignment) {
  const Instance a = particles(7);
  const Instance b = random_instance(3);
  auto first = hypergraph();
  const Assignment once = first->solve(a).assignment;
  first->solve(b);  // Zoltan's process-wide random state moves on
  EXPECT_EQ(first->solve(a).assignment, once);
  EXPECT_EQ(hypergraph()->solve(a).assignment, once);
  EXPECT_EQ(hypergraph({{"seed", "1"}})->solve(a).assignment, once);
}

TEST(Hypergraph, TrivialInstances) {
  Instance empty;
  empty.pes.resize(3);
  EXPECT_TRUE(hypergraph()->solve(empty).assignment.pe.empty());

  Instance one_pe = random_instance(4);
  one_pe.pes.resize(1);
  for (Object& o : one_pe.objects) o.pe = 0;
  const Assignment all = hypergraph()->solve(one_pe).assignment;
  EXPECT_TRUE(std::all_of(all.pe.begin(), all.pe.end(), [](PeId p) { return p == 0; }));

  Instance pinned = random_instance(5);
  for (Object& o : pinned.objects) o.migratable = false;
  EXPECT_EQ(hypergraph()->solve(pinned).assignment, current_assignment(pinned));
}

// The message of the ParamError `raw` raises, or "" if none.
std::string param_error(const RawParams& raw) {
  try {
    hypergraph(raw);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

TEST(Hypergraph, ParametersAreValidatedByName) {
  EXPECT_NE(param_error({{"imbalance", "0.9"}}).find("imbalance"), std::string::npos);
  EXPECT_NE(param_error({{"imbalance", "3"}}).find("imbalance"), std::string::npos);
  EXPECT_NE(param_error({{"seed", "-1"}}).find("seed"), std::string::npos);
  EXPECT_NE(param_error({{"seed", "1.5"}}).find("seed"), std::string::npos);
  EXPECT_NE(param_error({{"repartition", "2"}}).find("repartition"), std::string::npos);
  EXPECT_NE(param_error({{"repart_multiplier", "0"}}).find("repart_multiplier"), std::string::npos);
  EXPECT_NE(param_error({{"tolerance", "0.1"}}).find("tolerance"), std::string::npos);
  EXPECT_EQ(param_error({{"imbalance", "1.1"}, {"repartition", "0"}}), "");
}

// ---- MPI: each case runs in a fresh process (a death test re-executing this binary), so that
// whether MPI is initialised depends on the case alone.

void report_mpi_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  std::fprintf(stderr, finalized != 0 ? "MPI finalized at exit\n" : "MPI running at exit\n");
}

void solve_and_check_mpi_is_up() {
  const Solution s = hypergraph()->solve(particles(1, 4));
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (s.assignment.pe.empty() || initialized == 0 || finalized != 0) std::_Exit(3);
}

// Runs an MPI call of the test's own, as a program that owns MPI makes it. Open MPI keeps memory
// from its initialisation that LeakSanitizer would report; the strategy pauses leak checking
// the same way around the initialisation it makes itself.
template <class Call>
int as_mpi_owner(Call call) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_disable();
#endif
  const int rc = call();
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  return rc;
}

int init_mpi() {
  // As the strategy does for its own initialisation: hwloc's OpenCL plugin would otherwise
  // crash LeakSanitizer's thread scan at exit.
  setenv("HWLOC_COMPONENTS", "-opencl,-gl,-pci", 0);
  int provided = 0;
  return as_mpi_owner(
      [&] { return MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided); });
}

int finalize_mpi() {
  return as_mpi_owner([] { return MPI_Finalize(); });
}

// Each body ends the process: exit status 0 and a line on stderr when all went as expected.
void solve_with_mpi_left_to_the_strategy() {
  int initialized = 1;
  MPI_Initialized(&initialized);
  if (initialized != 0) std::_Exit(2);
  std::atexit(report_mpi_at_exit);  // runs after the handlers registered later
  solve_and_check_mpi_is_up();
  solve_and_check_mpi_is_up();
  std::exit(0);
}

void solve_with_mpi_of_the_caller() {
  if (init_mpi() != MPI_SUCCESS) std::_Exit(2);
  solve_and_check_mpi_is_up();
  // MPI is still the caller's to use, and to finalise.
  int rank = -1;
  int sum = 0;
  const int one = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank != 0 || sum != 1) std::_Exit(4);
  finalize_mpi();
  std::fprintf(stderr, "caller finalized\n");
  std::exit(0);
}

void solve_after_the_caller_finalised_mpi() {
  init_mpi();
  finalize_mpi();
  try {
    hypergraph()->solve(particles(1, 4));
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(0);
  }
  std::_Exit(5);
}

TEST(HypergraphMpi, InitialisesMpiOnDemandAndFinalisesItAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(solve_with_mpi_left_to_the_strategy(), ::testing::ExitedWithCode(0),
              "MPI finalized at exit");
}

TEST(HypergraphMpi, LeavesMpiToACallerThatInitialisedIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(solve_with_mpi_of_the_caller(), ::testing::ExitedWithCode(0), "caller finalized");
}

TEST(HypergraphMpi, RefusesToRunAfterTheCallerFinalisedMpi) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(solve_after_the_caller_finalised_mpi(), ::testing::ExitedWithCode(0),
              "MPI has already been finalised");
}

}  // namespace
}  // namespace vela::lb
