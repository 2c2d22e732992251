// The distributed strategies in the runtime (hilbert-distributed, diffusion): the PEs balance
// without gathering the measurements, each talking only to the PEs its algorithm names, and the
// placement after every step is what the offline strategy makes of that step's instance.
#include <gtest/gtest.h>

#include <unistd.h>
#include <bit>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "services/lb_manager.hpp"
#include "support/patches.hpp"
#include "vela/lb/strategies/distributed.hpp"
#include "vela/lb/strategies/hilbert.hpp"

namespace {

using vela::lb::PeId;

std::string dump_dir(const std::string& what) {
  return ::testing::TempDir() + "vela_lb_distributed_" + what + "_" + std::to_string(::getpid());
}

vela::rt::Options options(const std::string& strategy, int pes, const std::string& dump) {
  vela::rt::Options o;
  o.pes = pes;
  o.pin = false;
  o.lb = strategy;
  o.lb_dump = dump;
  return o;
}

// Every step of several PE counts: the offline strategy's placement, bit for bit.
void expect_offline_answers(const std::string& strategy, const std::vector<std::string>& params) {
  std::size_t moved = 0;
  for (const int pes : {1, 2, 3, 4, 7}) {
    const std::string dump = dump_dir(strategy + std::to_string(pes));
    vela::rt::Options o = options(strategy, pes, dump);
    o.lb_params = params;
    vela::lb::RawParams raw;
    for (const std::string& p : params) vela::lb::parse_param(p, raw);
    vela::rt::Runtime runtime(o);
    constexpr int steps = 3;
    const auto placements = vela::testing::run_patches(runtime, 9, 6, steps);
    ASSERT_EQ(placements.size(), static_cast<std::size_t>(steps)) << pes;
    moved += vela::testing::expect_offline_placements(dump, strategy, raw, placements);
    EXPECT_EQ(runtime.stats().lb_steps, static_cast<std::uint64_t>(steps)) << pes;
    EXPECT_GT(runtime.stats().lb_seconds, 0.0) << pes;
    // Nothing gathered for the strategy (the dump's gather is not counted).
    EXPECT_EQ(runtime.stats().lb_collect_seconds, 0.0) << pes;
    std::filesystem::remove_all(dump);
  }
  // The hot corner makes every PE count above one move elements.
  EXPECT_GT(moved, 20u) << strategy;
}

TEST(LbDistributed, HilbertDistributedGivesTheOfflineCutOnEveryStep) {
  expect_offline_answers("hilbert-distributed", {});
}

TEST(LbDistributed, DiffusionGivesTheOfflineSweepOnEveryStep) {
  expect_offline_answers("diffusion", {});
  expect_offline_answers("diffusion", {"max_moves_per_pe=2", "tolerance=0.05"});
}

// What the agents send, seen by the test hook: (from, to, tag), from every PE thread.
std::mutex sent_mutex;
std::vector<std::tuple<PeId, PeId, std::uint32_t>> sent;
void note(PeId from, PeId to, std::uint32_t tag) {
  const std::lock_guard<std::mutex> lock(sent_mutex);
  sent.emplace_back(from, to, tag);
}

// One balancing step (placements from the initial homes, so every location is known and no
// edge needs passing on), messages observed; returns the step's instance.
vela::lb::Instance observe_one_step(const std::string& strategy, int pes) {
  const std::string dump = dump_dir("observed");
  sent.clear();
  vela::rt::detail::agent_observer = &note;
  vela::rt::Runtime runtime(options(strategy, pes, dump));
  vela::testing::run_patches(runtime, 9, 6, 1);
  vela::rt::detail::agent_observer = nullptr;
  const vela::lb::Instance instance = vela::lb::read_instance(dump + "/patches-step1.json");
  std::filesystem::remove_all(dump);
  return instance;
}

TEST(LbDistributed, DiffusionPesTalkOnlyToTheirNeighbourPes) {
  for (const int pes : {2, 3, 4, 7}) {
    const vela::lb::Instance in = observe_one_step("diffusion", pes);
    std::vector<std::set<PeId>> neighbours(static_cast<std::size_t>(pes));
    for (const vela::lb::Edge& e : in.edges) {
      const PeId a = in.objects[e.from].pe, b = in.objects[e.to].pe;
      if (a == b) continue;
      neighbours[static_cast<std::size_t>(a)].insert(b);
      neighbours[static_cast<std::size_t>(b)].insert(a);
    }
    std::map<std::tuple<PeId, PeId, std::uint32_t>, int> count;
    for (const auto& [from, to, tag] : sent) {
      EXPECT_TRUE(neighbours[static_cast<std::size_t>(from)].contains(to))
          << pes << " PEs: PE " << from << " sent tag " << tag << " to PE " << to;
      ++count[{from, to, tag}];
    }
    // Each neighbour hears this PE's time once and its result once, and has its edges.
    std::size_t pairs = 0;
    for (PeId p = 0; p < pes; ++p) {
      for (const PeId q : neighbours[static_cast<std::size_t>(p)]) {
        EXPECT_EQ((count[{p, q, vela::lb::kDiffusionTime}]), 1) << p << " -> " << q;
        EXPECT_EQ((count[{p, q, vela::lb::kDiffusionResult}]), 1) << p << " -> " << q;
        EXPECT_GE((count[{p, q, vela::lb::kDiffusionEdges}]), 1) << p << " -> " << q;
        ++pairs;
      }
    }
    EXPECT_GE(pairs, static_cast<std::size_t>(2 * (pes - 1))) << pes;
  }
}

TEST(LbDistributed, HilbertPesTalkOnlyToSegmentOwnersHoldersAndScanPartners) {
  for (const int pes : {2, 3, 4, 7}) {
    const vela::lb::Instance in = observe_one_step("hilbert-distributed", pes);
    const std::size_t n = in.objects.size();
    const std::vector<std::uint32_t> order = vela::lb::hilbert_order(in);
    std::set<std::pair<PeId, PeId>> holds;  // (holder, segment owner) of an object
    for (std::size_t k = 0; k < n; ++k) {
      holds.insert(
          {in.objects[order[k]].pe, static_cast<PeId>(vela::lb::hilbert_segment_of(k, n, pes))});
    }
    std::map<std::pair<PeId, PeId>, int> scans, totals;
    std::size_t loads = 0;
    for (const auto& [from, to, tag] : sent) {
      switch (tag) {
        case vela::lb::kHilbertLoads:
          EXPECT_TRUE(holds.contains({from, to})) << pes << ": loads " << from << " -> " << to;
          ++loads;
          break;
        case vela::lb::kHilbertAnswer:
          EXPECT_TRUE(holds.contains({to, from})) << pes << ": answer " << from << " -> " << to;
          break;
        case vela::lb::kHilbertScan:
          ++scans[{from, to}];
          break;
        case vela::lb::kHilbertTotal:
          ++totals[{from, to}];
          break;
        default:
          ADD_FAILURE() << "tag " << tag;
      }
    }
    // Scan: s -> s + 2^k once each; total: down the binomial tree rooted at PE P - 1.
    std::map<std::pair<PeId, PeId>, int> expected_scans, expected_totals;
    for (PeId s = 0; s < pes; ++s) {
      for (PeId d = 1; s + d < pes; d *= 2) expected_scans[{s, s + d}] = 1;
      const auto r = static_cast<std::uint32_t>(pes - 1 - s);
      if (r > 0) expected_totals[{s + static_cast<PeId>(std::bit_floor(r)), s}] = 1;
    }
    EXPECT_EQ(scans, expected_scans) << pes;
    EXPECT_EQ(totals, expected_totals) << pes;
    // Blocks and curve segments differ: some holders send loads to another PE.
    EXPECT_GT(loads, 0u) << pes;
  }
}

// With a policy the root decides on a gathered instance and runs the strategy offline: the same
// placements.
TEST(LbDistributed, WithAPolicyTheRootRunsTheStrategyOnTheGatheredInstance) {
  const std::string dump = dump_dir("policy");
  vela::rt::Options o = options("diffusion", 3, dump);
  o.lb_policy = "periodic";
  o.lb_policy_params = {"every=1"};
  sent.clear();
  vela::rt::detail::agent_observer = &note;
  vela::rt::Runtime runtime(o);
  const auto placements = vela::testing::run_patches(runtime, 9, 6, 2);
  vela::rt::detail::agent_observer = nullptr;
  EXPECT_TRUE(sent.empty()) << "agents ran under a policy";
  EXPECT_GT(runtime.stats().lb_collect_seconds, 0.0);
  vela::testing::expect_offline_placements(dump, "diffusion", {}, placements);
  std::filesystem::remove_all(dump);
}

}  // namespace
