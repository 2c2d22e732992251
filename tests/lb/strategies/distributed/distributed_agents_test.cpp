// The distributed strategies' agents (vela/lb/strategies/distributed.hpp), one per PE, run over a
// simulated transport that delivers their messages in a random order: they reach the offline
// strategy's assignment exactly, and each PE sends only to the PEs its algorithm names.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/strategies/distributed.hpp"
#include "vela/lb/strategies/hilbert.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {
namespace {

struct Simulation {
  Assignment assignment;
  std::vector<AgentMessage> sent;  // every message, in the order sent
  std::size_t forwarded = 0;       // edges passed on by a PE that did not hold the object
};

// Runs one agent per PE of `in`. With `stale`, a PE believes every object it does not hold is
// at a "home" PE drawn at random, which knows where it is: edges to objects then often take
// two hops, as after migrations in the runtime.
Simulation simulate(const Instance& in, const std::string& name, const RawParams& raw,
                    std::uint64_t seed, bool stale) {
  std::mt19937_64 rng(seed);
  const auto pes = static_cast<PeId>(in.pes.size());
  const std::size_t n = in.objects.size();
  const ParamValues values(name, find_strategy(name).params, raw);
  std::shared_ptr<const CurvePositions> curve;
  if (name == "hilbert-distributed") {
    curve =
        std::make_shared<CurvePositions>(curve_positions(in, static_cast<int>(values.get("bits"))));
  }
  std::vector<PeId> home(n);
  for (PeId& h : home) h = static_cast<PeId>(rng() % static_cast<std::uint64_t>(pes));

  std::vector<std::unique_ptr<DistributedAgent>> agents;
  for (PeId p = 0; p < pes; ++p) {
    LocalView view;
    view.pe = p;
    view.pes = pes;
    view.objects_total = n;
    view.background = in.pes[static_cast<std::size_t>(p)].background;
    for (const Pe& pe : in.pes) view.speeds.push_back(pe.speed);
    for (std::size_t i = 0; i < n; ++i) {
      const Object& o = in.objects[i];
      if (o.pe == p) view.objects.push_back({static_cast<ObjectPosition>(i), o.load, o.migratable});
    }
    for (const Edge& e : in.edges) {
      if (in.objects[e.from].pe == p) view.edges.emplace_back(e.from, e.to);
    }
    Locator locate = [&in, &home, stale, p](ObjectPosition x) {
      if (!stale) return in.objects[x].pe;
      return p == home[x] ? in.objects[x].pe : home[x];
    };
    agents.push_back(make_agent(name, values, std::move(view), curve, std::move(locate)));
  }

  Simulation run;
  std::vector<AgentMessage> pool;
  const auto post = [&](std::vector<AgentMessage>& out) {
    for (AgentMessage& m : out) {
      if (m.tag == kDiffusionEdges && m.ints[0] != static_cast<std::uint64_t>(m.from)) {
        ++run.forwarded;
      }
      run.sent.push_back(m);
      pool.push_back(std::move(m));
    }
    out.clear();
  };
  std::vector<AgentMessage> out;
  for (auto& agent : agents) {
    agent->start(out);
    post(out);
  }
  for (;;) {
    if (pool.empty()) {
      const bool all_done =
          std::all_of(agents.begin(), agents.end(), [](const auto& a) { return a->done(); });
      if (all_done) break;
      const bool all_waiting =
          std::all_of(agents.begin(), agents.end(), [](const auto& a) { return a->at_barrier(); });
      if (!all_waiting) {
        ADD_FAILURE() << name << ": no message in flight, some agent neither done nor waiting";
        return run;
      }
      for (auto& agent : agents) {
        agent->pass_barrier(out);
        post(out);
      }
      continue;
    }
    const std::size_t pick = rng() % pool.size();
    std::swap(pool[pick], pool.back());
    const AgentMessage m = std::move(pool.back());
    pool.pop_back();
    agents[static_cast<std::size_t>(m.to)]->receive(m, out);
    post(out);
  }
  run.assignment = current_assignment(in);
  for (PeId p = 0; p < pes; ++p) {
    for (const auto& [object, to] : agents[static_cast<std::size_t>(p)]->moves()) {
      EXPECT_EQ(in.objects[object].pe, p) << name << ": PE " << p << " moved another's object";
      run.assignment.pe[object] = to;
    }
  }
  return run;
}

Assignment offline(const Instance& in, const std::string& name, const RawParams& raw) {
  return make_strategy(name, raw)->solve(in).assignment;
}

// A grid of nx x ny objects with load hot spots, placed in blocks or at random, talking to grid
// neighbours (sometimes one way only) and a few far objects; some objects cannot move or have no
// load, PEs may differ in speed and background.
Instance random_instance(std::mt19937_64& rng, int nx, int ny, PeId pes) {
  Instance in;
  in.dims = 2;
  in.pes.assign(static_cast<std::size_t>(pes), Pe{});
  const bool speeds = rng() % 2 == 0;
  for (Pe& pe : in.pes) {
    if (speeds) pe.speed = 0.5 + static_cast<double>(rng() % 3) * 0.25;
    pe.background = static_cast<double>(rng() % 4) * 0.01;
  }
  const bool scattered = rng() % 4 == 0;
  const int hot_x = static_cast<int>(rng() % static_cast<std::uint64_t>(nx));
  const int hot_y = static_cast<int>(rng() % static_cast<std::uint64_t>(ny));
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      Object o;
      o.id = static_cast<ObjectId>(in.objects.size());
      const int d = std::abs(x - hot_x) + std::abs(y - hot_y);
      o.load = (d < 3 ? 4.0 : 1.0) * (0.5 + static_cast<double>(rng() % 1000) / 1000.0);
      if (rng() % 23 == 0) o.load = 0.0;
      o.migratable = rng() % 19 != 0;
      o.coords = {static_cast<double>(x), static_cast<double>(y), 0.0};
      const std::int64_t block = (static_cast<std::int64_t>(y) * nx + x) * pes / (nx * ny);
      o.pe = scattered ? static_cast<PeId>(rng() % static_cast<std::uint64_t>(pes))
                       : static_cast<PeId>(block);
      in.objects.push_back(o);
    }
  }
  const auto at = [nx](int x, int y) { return static_cast<std::uint32_t>(y * nx + x); };
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      for (const auto& [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
        if (x + dx >= nx || y + dy >= ny) continue;
        const std::uint32_t a = at(x, y), b = at(x + dx, y + dy);
        const auto kind = rng() % 6;
        if (kind != 0) in.edges.push_back({a, b, 1, 8});
        if (kind != 1) in.edges.push_back({b, a, 1, 8});
      }
    }
  }
  const std::size_t n = in.objects.size();
  for (std::size_t k = rng() % 4; k > 0; --k) {
    in.edges.push_back({static_cast<std::uint32_t>(rng() % n),
                        static_cast<std::uint32_t>(rng() % n), 1, 8});  // far, possibly a self-loop
  }
  return in;
}

// The PEs whose objects talk to PE p's (either way): diffusion's neighbours of p.
std::vector<std::set<PeId>> neighbours(const Instance& in) {
  std::vector<std::set<PeId>> nb(in.pes.size());
  for (const Edge& e : in.edges) {
    const PeId a = in.objects[e.from].pe, b = in.objects[e.to].pe;
    if (a == b) continue;
    nb[static_cast<std::size_t>(a)].insert(b);
    nb[static_cast<std::size_t>(b)].insert(a);
  }
  return nb;
}

TEST(DistributedAgents, DiffusionAgentsGiveTheOfflineSweepsAssignment) {
  std::size_t moved = 0, forwarded = 0, cases = 0;
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    std::mt19937_64 rng(seed);
    const int nx = 2 + static_cast<int>(rng() % 14), ny = 1 + static_cast<int>(rng() % 12);
    const PeId pes = 1 + static_cast<PeId>(rng() % 9);
    Instance in = random_instance(rng, nx, ny, pes);
    RawParams raw;
    if (seed % 3 == 1) raw["tolerance"] = "0.05";
    if (seed % 4 == 2) raw["max_moves_per_pe"] = std::to_string(1 + seed % 3);
    // Three invocations, each on the placement the previous one left.
    for (int invocation = 0; invocation < 3; ++invocation) {
      const Assignment expected = offline(in, "diffusion", raw);
      const Simulation run = simulate(in, "diffusion", raw, seed * 7 + invocation, seed % 2 == 1);
      ASSERT_EQ(run.assignment.pe, expected.pe) << "seed " << seed << " invocation " << invocation;
      ++cases;
      forwarded += run.forwarded;
      for (std::size_t i = 0; i < in.objects.size(); ++i) {
        moved += in.objects[i].pe != expected.pe[i] ? 1 : 0;
        in.objects[i].pe = expected.pe[i];
      }
    }
  }
  EXPECT_EQ(cases, 360u);
  // The cases exercise moves and, with stale locations, edges passed on.
  EXPECT_GT(moved, 500u);
  EXPECT_GT(forwarded, 100u);
}

TEST(DistributedAgents, DiffusionPesTalkOnlyToTheirNeighbours) {
  std::size_t results = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(seed + 1000);
    const PeId pes = 2 + static_cast<PeId>(rng() % 7);
    const Instance in = random_instance(rng, 6 + static_cast<int>(rng() % 8), 5, pes);
    const Simulation run = simulate(in, "diffusion", {}, seed, false);
    const auto nb = neighbours(in);
    // Every message goes to a neighbour; each neighbour gets exactly one time and one result.
    std::map<std::pair<PeId, PeId>, int> times, outcomes;
    for (const AgentMessage& m : run.sent) {
      EXPECT_TRUE(nb[static_cast<std::size_t>(m.from)].contains(m.to))
          << "seed " << seed << ": PE " << m.from << " sent tag " << m.tag << " to PE " << m.to;
      if (m.tag == kDiffusionTime) ++times[{m.from, m.to}];
      if (m.tag == kDiffusionResult) ++outcomes[{m.from, m.to}];
    }
    for (PeId p = 0; p < pes; ++p) {
      for (const PeId q : nb[static_cast<std::size_t>(p)]) {
        EXPECT_EQ((times[{p, q}]), 1) << "seed " << seed << " " << p << " -> " << q;
        EXPECT_EQ((outcomes[{p, q}]), 1) << "seed " << seed << " " << p << " -> " << q;
        ++results;
      }
    }
  }
  EXPECT_GT(results, 100u);
}

TEST(DistributedAgents, HilbertAgentsGiveTheOfflineCut) {
  std::size_t moved = 0;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    std::mt19937_64 rng(seed);
    const int nx = 1 + static_cast<int>(rng() % 20), ny = 1 + static_cast<int>(rng() % 15);
    const PeId pes = 1 + static_cast<PeId>(rng() % 19);  // more PEs than objects too
    Instance in = random_instance(rng, nx, ny, pes);
    if (seed % 10 == 3) {
      for (Object& o : in.objects) o.load = 0.0;  // shared by count
    } else if (seed % 3 == 0) {
      // Tenths have no exact binary form and put object midpoints right on the share
      // boundaries: a sum made in another order lands on the other side of one.
      for (Object& o : in.objects) o.load = 0.1 * static_cast<double>(1 + rng() % 3);
    }
    const Assignment expected = offline(in, "hilbert-distributed", {});
    const Simulation run = simulate(in, "hilbert-distributed", {}, seed, false);
    ASSERT_EQ(run.assignment.pe, expected.pe) << "seed " << seed;
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      moved += in.objects[i].pe != expected.pe[i] ? 1 : 0;
    }
  }
  EXPECT_GT(moved, 1000u);
}

TEST(DistributedAgents, HilbertPesTalkOnlyToTheirSegmentsOwnersHoldersAndScanPartners) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 rng(seed + 500);
    const PeId pes = 1 + static_cast<PeId>(rng() % 12);
    const Instance in = random_instance(rng, 3 + static_cast<int>(rng() % 12), 4, pes);
    const Simulation run = simulate(in, "hilbert-distributed", {}, seed, false);
    const std::size_t n = in.objects.size();
    const std::vector<std::uint32_t> order = hilbert_order(in);
    const auto owner = [&](std::size_t k) {
      return static_cast<PeId>(hilbert_segment_of(k, n, static_cast<std::uint64_t>(pes)));
    };
    std::set<std::pair<PeId, PeId>> holds;  // (holder, owner) of some object
    for (std::size_t k = 0; k < n; ++k) holds.insert({in.objects[order[k]].pe, owner(k)});
    std::map<std::pair<PeId, PeId>, int> scans, totals;
    for (const AgentMessage& m : run.sent) {
      const std::pair<PeId, PeId> link{m.from, m.to};
      switch (m.tag) {
        case kHilbertLoads:
          EXPECT_TRUE(holds.contains(link)) << "seed " << seed;
          break;
        case kHilbertAnswer:
          EXPECT_TRUE(holds.contains({m.to, m.from})) << "seed " << seed;
          break;
        case kHilbertScan:
          ++scans[link];
          break;
        case kHilbertTotal:
          ++totals[link];
          break;
        default:
          ADD_FAILURE() << "tag " << m.tag;
      }
    }
    // The scan: s -> s + 2^k, once each; the broadcast: a binomial tree rooted at P - 1.
    std::map<std::pair<PeId, PeId>, int> expected_scans, expected_totals;
    for (PeId s = 0; s < pes; ++s) {
      for (PeId d = 1; s + d < pes; d *= 2) expected_scans[{s, s + d}] = 1;
      const auto r = static_cast<std::uint32_t>(pes - 1 - s);
      if (r > 0) expected_totals[{s + static_cast<PeId>(std::bit_floor(r)), s}] = 1;
    }
    EXPECT_EQ(scans, expected_scans) << "seed " << seed;
    EXPECT_EQ(totals, expected_totals) << "seed " << seed;
  }
}

}  // namespace
}  // namespace vela::lb
