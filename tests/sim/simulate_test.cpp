// The simulator (vela/sim/simulate.hpp) on small platforms whose latency and bandwidth are known,
// so that a run's simulated time can be worked out by hand: the figures below are the formulas
// of docs/simulation.md, "Model", and SimGrid's CM02 model (time = latency + bytes / bandwidth)
// or its default LV08 (latency x 13.01, bandwidth x 0.97).
#include "vela/sim/simulate.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine.hpp"

namespace vela::sim {
namespace {

namespace fs = std::filesystem;

constexpr double kLat = 10e-6;  // per link: a route between two hosts crosses two
constexpr double kBw = 1e9;     // bytes per second

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("vela-sim-test-" + std::to_string(::getpid()));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

// `hosts` single-core hosts of 1 Gflop/s, each on its own link of kLat and kBw (full duplex: a
// cluster's links are, in SimGrid, "c_link_N_UP" and "c_link_N_DOWN").
std::string cluster_xml(int hosts) {
  return "<?xml version='1.0'?>\n"
         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"w\" routing=\"Full\">"
         "<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-" +
         std::to_string(hosts - 1) +
         "\" speed=\"1Gf\" bw=\"1GBps\" lat=\"10us\" />"
         "</zone></platform>\n";
}

lb::Trace make_trace(int pes, const std::vector<lb::PeId>& placement, std::uint64_t size = 0) {
  lb::Trace t;
  t.initial.pes.resize(static_cast<std::size_t>(pes));
  for (std::size_t i = 0; i < placement.size(); ++i) {
    lb::Object o;
    o.id = i;
    o.pe = placement[i];
    o.size = size;
    t.initial.objects.push_back(o);
  }
  return t;
}

void add_steps(lb::Trace& t, int steps, double load) {
  for (int s = 0; s < steps; ++s) {
    lb::TraceStep step;
    step.loads.assign(t.initial.objects.size(), load);
    t.steps.push_back(step);
  }
}

// Object 0 on PE 0 and object 1 on PE 1 take turns: after step s the message goes 0 -> 1 when s
// is even, 1 -> 0 when odd, so each step after the first waits for one message and nothing else.
lb::Trace ping_pong(int steps, std::uint64_t bytes) {
  lb::Trace t = make_trace(2, {0, 1});
  add_steps(t, steps, 0.0);
  for (int s = 0; s < steps; ++s) {
    lb::TraceStep& step = t.steps[static_cast<std::size_t>(s)];
    step.replaces_edges = true;
    step.edges = {s % 2 == 0 ? lb::TraceEdge{0, 1, 1, bytes} : lb::TraceEdge{1, 0, 1, bytes}};
  }
  lb::validate(t);
  return t;
}

SimulateOptions on(const std::string& platform, std::vector<std::string> config = {}) {
  SimulateOptions o;
  o.platform = platform;
  o.config = std::move(config);
  return o;
}

class Simulate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!available()) GTEST_SKIP() << "built without SimGrid";
  }
  TempDir dir_;
};

TEST_F(Simulate, PingPongTakesLatencyAndBandwidthPerMessage) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1000000}}) {
    const SimulationResult r = simulate(ping_pong(9, bytes), on(platform, {"network/model:CM02"}));
    // A message weighs at least a byte (engine.cpp, send_data).
    const double message = 2 * kLat + static_cast<double>(std::max<std::uint64_t>(bytes, 1)) / kBw;
    EXPECT_NEAR(r.total, 8 * message, 1e-9 * 8 * message + 1e-12) << bytes << " bytes";
    EXPECT_EQ(r.messages, 8u);
    EXPECT_EQ(r.bytes_sent, 8 * bytes);
  }
}

TEST_F(Simulate, PingPongUnderTheDefaultModelPaysItsFactors) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  const std::uint64_t bytes = 1000000;
  const SimulationResult r = simulate(ping_pong(5, bytes), on(platform));
  const double message = 13.01 * 2 * kLat + static_cast<double>(bytes) / (0.97 * kBw);
  EXPECT_NEAR(r.total, 4 * message, 1e-6 * 4 * message);
}

// Four objects in a ring, one per PE, each sending `bytes` to both neighbours after step 0: the
// second step starts when both messages are in; each direction of a host's link carries two of
// them at once, so each gets half the bandwidth. With SimGrid's cross-traffic (on by default)
// each flow also sends 5% of its bytes back (TCP's acknowledgements), which the other direction
// carries too: 2.1 flows' worth per direction.
TEST_F(Simulate, OneStepStencilIsComputeThenTheSharedHaloThenCompute) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(4, {0, 1, 2, 3});
  const std::uint64_t bytes = 4000000;
  for (std::uint32_t i = 0; i < 4; ++i) {
    t.initial.edges.push_back({i, (i + 1) % 4, 1, bytes});
    t.initial.edges.push_back({i, (i + 3) % 4, 1, bytes});
  }
  add_steps(t, 2, 0.25);
  lb::validate(t);
  const SimulationResult r =
      simulate(t, on(platform, {"network/model:CM02", "network/crosstraffic:0"}));
  const double halo = 2 * kLat + 2.0 * static_cast<double>(bytes) / kBw;
  EXPECT_NEAR(r.total, 0.25 + halo + 0.25, 1e-9);
  const SimulationResult acked = simulate(t, on(platform, {"network/model:CM02"}));
  EXPECT_NEAR(acked.total, 0.25 + 2 * kLat + 2.1 * static_cast<double>(bytes) / kBw + 0.25, 1e-9);
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_NEAR(r.series[0].end, 0.25, 1e-12);
  EXPECT_NEAR(r.compute, 0.5, 1e-12);
  EXPECT_NEAR(r.efficiency, 0.5 / r.total, 1e-9);
}

// Two objects on one PE, one waiting for a message from the other PE: the PE runs the other
// object meanwhile, so the wait is hidden (the overlap that over-decomposition buys).
TEST_F(Simulate, APeRunsAnotherObjectWhileOneWaitsForItsInput) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(2, {0, 1, 1});
  t.initial.edges.push_back({0, 1, 1, 100000000});  // 0.1 s on the wire
  add_steps(t, 2, 0.0);
  t.steps[0].loads = {0.0, 0.0, 0.3};
  t.steps[1].loads = {0.0, 0.0, 0.0};
  lb::validate(t);
  const SimulationResult r = simulate(t, on(platform, {"network/model:CM02"}));
  // Object 1's step 1 waits for 0.1 s of message; object 2's 0.3 s runs meanwhile.
  EXPECT_NEAR(r.total, 0.3, 1e-9);
}

// Two objects of 0.1 s on PE 0, two of 0.3 s on PE 1, no halos: alone each PE would run at its
// own pace; with a reduction per step, PE 1 (the tree's leaf) sends its part up to PE 0 after
// 0.6 s and gets the result back a message later, so every step costs 0.6 s and two messages.
TEST_F(Simulate, AStepReductionHoldsEveryPeToTheSlowest) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(2, {0, 0, 1, 1});
  add_steps(t, 3, 0.0);
  for (lb::TraceStep& step : t.steps) step.loads = {0.1, 0.1, 0.3, 0.3};
  lb::validate(t);
  SimulateOptions o = on(platform, {"network/model:CM02"});
  EXPECT_NEAR(simulate(t, o).total, 3 * 0.6, 1e-9);
  o.step_reduction = 8;
  const SimulationResult r = simulate(t, o);
  const double message = 2 * kLat + 8 / kBw;
  EXPECT_NEAR(r.total, 3 * (0.6 + 2 * message), 1e-9);
  ASSERT_EQ(r.series.size(), 3u);
  EXPECT_NEAR(r.series[0].end, 0.6 + 2 * message, 1e-9);
  // A PE without objects still takes part (the tree of 4 PEs has two leaves under PE 1).
  lb::Trace wide = t;
  wide.initial.pes.resize(4);
  lb::validate(wide);
  EXPECT_GT(simulate(wide, o).total, r.total);
}

// Two objects on one PE, each sending to the other after every step: each step costs both
// objects' work, the scheduling of each, and every message twice (sent and received here).
TEST_F(Simulate, TheRuntimesOwnTimeIsChargedPerObjectAndPerMessage) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(1, {0, 0});
  t.initial.edges = {{0, 1, 1, 100}, {1, 0, 1, 100}};
  add_steps(t, 4, 0.01);
  lb::validate(t);
  SimulateOptions o = on(platform);
  o.object_overhead = 0.001;
  o.message_overhead = 0.0001;
  const SimulationResult r = simulate(t, o);
  // Messages are sent after steps 0 to 2 only (none follows the last step).
  const double overhead = 8 * 0.001 + 6 * 2 * 0.0001;
  EXPECT_NEAR(r.total, 8 * 0.01 + overhead, 1e-9);
  EXPECT_NEAR(r.overhead, overhead, 1e-9);
  EXPECT_NEAR(r.busy, 8 * 0.01, 1e-9);
}

TEST_F(Simulate, LoadsAreSecondsAtTheReferenceSpeed) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(1, {0});
  add_steps(t, 3, 1.0);
  lb::validate(t);
  SimulateOptions o = on(platform);
  EXPECT_NEAR(simulate(t, o).total, 3.0, 1e-12);  // the host's own speed
  o.reference_speed = 2e9;                        // measured on a PE twice as fast
  EXPECT_NEAR(simulate(t, o).total, 6.0, 1e-12);
}

// All four objects start on PE 0; greedy spreads them after step 0 and the remaining steps run
// in parallel. The balance costs the strategy time charged and the objects' travel.
TEST_F(Simulate, ABalanceChargesTheStrategyAndMovesTheObjects) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  const std::uint64_t size = 10000000;  // 10 ms per object on the wire
  lb::Trace t = make_trace(4, {0, 0, 0, 0}, size);
  add_steps(t, 5, 0.1);
  lb::validate(t);
  SimulateOptions o = on(platform, {"network/model:CM02"});
  const SimulationResult never = simulate(t, o);
  EXPECT_NEAR(never.total, 5 * 0.4, 1e-9);
  EXPECT_EQ(never.balances, 0u);

  o.policy = "periodic";
  o.strategy_seconds = 0.05;
  o.policy_params = {{"every", "1"}};
  const SimulationResult r = simulate(t, o);
  EXPECT_EQ(r.migrations, 3u);
  EXPECT_EQ(r.bytes_moved, 3 * size);
  ASSERT_GE(r.balances, 1u);
  EXPECT_TRUE(r.series[0].balanced);
  EXPECT_NEAR(r.strategy, 0.05 * static_cast<double>(r.balances), 1e-12);
  // The first balance: the strategy, then three objects leaving PE 0 over its one link.
  const double travel = 3 * static_cast<double>(size) / kBw;
  EXPECT_GT(r.series[0].balance_seconds, 0.05 + travel);
  EXPECT_LT(r.series[0].balance_seconds, 0.05 + travel + 0.001);
  EXPECT_NEAR(r.total, 0.4 + r.balancing + 4 * 0.1, 1e-9);
  EXPECT_LT(r.total, never.total);
}

// At the balance after step 1 the step's loads are even, the loads since the start are not: the
// strategy sees the latter by default (as the runtime measures them), the former on request.
TEST_F(Simulate, StrategiesSeeTheLoadsSinceTheLastBalance) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(2, {0, 0, 1, 1}, 1000);
  add_steps(t, 3, 0.1);
  t.steps[0].loads = {1.0, 1.0, 0.1, 0.1};
  lb::validate(t);
  SimulateOptions o = on(platform);
  o.policy = "periodic";
  o.policy_params = {{"every", "2"}, {"strategy", "refine"}};
  o.strategy_seconds = 0.0;
  const SimulationResult period = simulate(t, o);
  ASSERT_EQ(period.balances, 1u);
  EXPECT_TRUE(period.series[1].balanced);
  EXPECT_GT(period.migrations, 0u);
  o.strategy_loads = StrategyLoads::step;
  const SimulationResult step = simulate(t, o);
  EXPECT_EQ(step.balances, 1u);
  EXPECT_EQ(step.migrations, 0u);
}

TEST_F(Simulate, TheSameInputsGiveTheSameRun) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(4, {0, 0, 1, 1, 2, 2, 3, 3}, 1000);
  for (std::uint32_t i = 0; i < 8; ++i) t.initial.edges.push_back({i, (i + 1) % 8, 1, 50000});
  add_steps(t, 12, 0.01);
  for (std::size_t s = 0; s < t.steps.size(); ++s) {
    for (std::size_t i = 0; i < 8; ++i)
      t.steps[s].loads[i] = 0.001 * static_cast<double>((i * 7 + s * 3) % 11);
  }
  lb::validate(t);
  SimulateOptions o = on(platform);
  o.policy = "periodic";
  o.policy_params = {{"every", "3"}};
  o.strategy_seconds = 0.002;
  const SimulationResult a = simulate(t, o);
  const SimulationResult b = simulate(t, o);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.migrations, b.migrations);
  ASSERT_EQ(a.series.size(), b.series.size());
  for (std::size_t s = 0; s < a.series.size(); ++s) EXPECT_EQ(a.series[s].end, b.series[s].end);
  EXPECT_GT(a.balances, 0u);
}

TEST_F(Simulate, MessagesToAnObjectThatMovedAreForwarded) {
  // Objects 0..3 in a ring, all on PE 0 at first, with halo traffic every step: after the
  // balance the messages already on the way reach the old PE and go on from there.
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(4, {0, 0, 0, 0}, 1000);
  for (std::uint32_t i = 0; i < 4; ++i) {
    t.initial.edges.push_back({i, (i + 1) % 4, 1, 1000});
    t.initial.edges.push_back({(i + 1) % 4, i, 1, 1000});
  }
  add_steps(t, 6, 0.01);
  lb::validate(t);
  SimulateOptions o = on(platform);
  o.policy = "periodic";
  o.policy_params = {{"every", "2"}};
  o.strategy_seconds = 0.0;
  const SimulationResult r = simulate(t, o);  // would stop short (an error) if one were lost
  EXPECT_EQ(r.steps, 6u);
  EXPECT_GT(r.migrations, 0u);
  EXPECT_GT(r.messages, 0u);
}

TEST_F(Simulate, BadInputsAreNamed) {
  const std::string platform = dir_.file("p2.xml", cluster_xml(2));
  const lb::Trace two = ping_pong(3, 10);
  auto message_of = [](const lb::Trace& t, const SimulateOptions& o) -> std::string {
    try {
      simulate(t, o);
    } catch (const SimulationError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message_of(two, on(dir_.file("missing-dir/none.xml", ""))).find("none.xml"),
            std::string::npos);
  const std::string broken = dir_.file("broken.xml", "<platform version=\"4.1\"><zone");
  EXPECT_NE(message_of(two, on(broken)).find("broken.xml"), std::string::npos);

  lb::Trace three = make_trace(3, {0, 1, 2});
  add_steps(three, 2, 0.1);
  const std::string small = message_of(three, on(platform));
  EXPECT_NE(small.find("p2.xml"), std::string::npos) << small;
  EXPECT_NE(small.find("3 PEs"), std::string::npos) << small;

  lb::Trace growing = ping_pong(3, 10);
  lb::Object extra;
  extra.id = 99;
  growing.steps[1].created.push_back(extra);
  growing.steps[1].loads.push_back(0.0);
  growing.steps[2].loads.push_back(0.0);
  EXPECT_NE(message_of(growing, on(platform)).find("step 1"), std::string::npos);

  EXPECT_NE(message_of(two, on(platform, {"network/model"})).find("network/model"),
            std::string::npos);
  EXPECT_NE(message_of(two, on(platform, {"no/such-option:1"})).find("no/such-option"),
            std::string::npos);
  SimulateOptions no_link = on(platform);
  no_link.link_latencies = {{"wan", 0.01}};
  EXPECT_NE(message_of(two, no_link).find("'wan'"), std::string::npos);
  SimulateOptions bad_policy = on(platform);
  bad_policy.policy = "no-such-policy";
  EXPECT_THROW(simulate(two, bad_policy), lb::ParamError);
}

TEST_F(Simulate, ALinkLatencyCanBeSetPerRun) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  SimulateOptions o = on(platform, {"network/model:CM02"});
  o.link_latencies = {{"c_link_0_UP", 0.5}};  // host 0's link out
  const SimulationResult r = simulate(ping_pong(3, 0), o);
  // 0 -> 1 goes out through the slow link, 1 -> 0 comes back in through host 0's link in.
  // (Within a microsecond: over half a second of latency, SimGrid's TCP window bounds the rate
  // to window / (2 * latency), 4 MB/s, so the byte the message weighs takes 0.24 us.)
  EXPECT_NEAR(r.total, (0.5 + kLat) + 2 * kLat + 2 / kBw, 1e-6);
}

// Object 0 (phase 0) on PE 0 sends to object 1 (phase 1) on PE 1 after each step, and 1 back to
// 0: with phases, 1's step s waits for 0's step s and 0's step s + 1 for 1's step s, so the two
// take turns (2 loads and 2 messages a step, less the last message, which feeds no step); without
// them both run each step at once, each waiting for the other's previous step.
TEST_F(Simulate, PhasesMakeAStepWaitForTheLowerPhasesOfTheSameStep) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  const double load = 1e-3;
  const int steps = 5;
  lb::Trace t = make_trace(2, {0, 1});
  add_steps(t, steps, load);
  t.initial.edges = {{0, 1, 1, 100}, {1, 0, 1, 100}};
  lb::validate(t);
  const double message = 2 * kLat + 100 / kBw;
  // (Without SimGrid's cross-traffic: the two messages of a step would slow each other by 5%.)
  SimulateOptions o = on(platform, {"network/model:CM02", "network/crosstraffic:0"});
  const double together = simulate(t, o).total;
  EXPECT_NEAR(together, steps * load + (steps - 1) * message, 1e-9);
  o.phases = {0, 1};
  const SimulationResult turns = simulate(t, o);
  EXPECT_NEAR(turns.total, 2 * steps * load + (2 * steps - 1) * message, 1e-9);
  EXPECT_EQ(turns.messages, static_cast<std::uint64_t>(2 * steps - 1));
  // On one PE the turns cost the loads alone.
  lb::Trace one = t;
  one.initial.objects[1].pe = 0;
  EXPECT_NEAR(simulate(one, o).total, 2 * steps * load, 1e-9);
  o.phases = {0};
  EXPECT_THROW(simulate(t, o), SimulationError);
}

// PE 0 (cluster 0) holds object 0, which talks to no one, and object 1, which sends to object 2
// on PE 1 (cluster 1) after step 0; object 2's step 1 waits for it and costs 5 loads. First come
// first served, PE 0 runs 0 before 1, so the message leaves after 2 loads; with the Grid Queue,
// object 1 (a border object) runs first and the message leaves after 1.
TEST_F(Simulate, TheGridQueueRunsBorderObjectsFirst) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  const double load = 1e-3;
  lb::Trace t = make_trace(2, {0, 0, 1});
  t.initial.pes[1].cluster = 1;
  t.initial.edges = {{1, 2, 1, 100}};
  lb::TraceStep step;
  step.loads = {load, load, 0.0};
  t.steps.push_back(step);
  step.loads = {load, load, 5 * load};
  t.steps.push_back(step);
  lb::validate(t);
  const double message = 2 * kLat + 100 / kBw;
  SimulateOptions o = on(platform, {"network/model:CM02"});
  const SimulationResult fifo = simulate(t, o);
  EXPECT_NEAR(fifo.total, 2 * load + message + 5 * load, 1e-9);
  EXPECT_EQ(fifo.cluster_bytes, 100u);
  o.grid_queue_period = 8;
  EXPECT_NEAR(simulate(t, o).total, load + message + 5 * load, 1e-9);
  // Both PEs in one cluster: no border object, first come first served again.
  t.initial.pes[1].cluster = 0;
  const SimulationResult local = simulate(t, o);
  EXPECT_NEAR(local.total, 2 * load + message + 5 * load, 1e-9);
  EXPECT_EQ(local.cluster_bytes, 0u);
  o.grid_queue_period = -1;
  EXPECT_THROW(simulate(t, o), SimulationError);
}

// A message that arrives while a PE computes is taken before the PE picks its next object, as
// the runtime's scheduler polls the network between entry methods. PE 0 (cluster 0) holds X, Z
// and the border object Y (it sends to V on PE 1, cluster 1, which W there feeds it from); V's
// last step (10 loads) waits for Y's step 1, which waits for W's step 0. W's message reaches PE
// 0 while X runs its step 0 (1 load); after it the Grid Queue takes Y's step 1 at once, before Z
// and X queued ahead of it, and V's last step starts after 1 load. First come first served, Y
// comes after X's step 1, one load later.
TEST_F(Simulate, MessagesThatArriveDuringAStepAreTakenBeforeTheNextPick) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  const double load = 1e-3;
  enum : std::uint32_t { X, Z, Y, W, V };
  lb::Trace t = make_trace(2, {0, 0, 0, 1, 1});
  t.initial.pes[1].cluster = 1;
  t.initial.edges = {{W, Y, 1, 100}, {Y, V, 1, 100}};
  for (const std::vector<double>& loads :
       {std::vector<double>{load, 0, 0, 0, 0}, std::vector<double>{load, 0, 0, 0, 0},
        std::vector<double>{0, 0, 0, 0, 10 * load}}) {
    lb::TraceStep step;
    step.loads = loads;
    t.steps.push_back(step);
  }
  lb::validate(t);
  const double message = 2 * kLat + 100 / kBw;
  SimulateOptions o = on(platform, {"network/model:CM02"});
  o.grid_queue_period = 8;
  EXPECT_NEAR(simulate(t, o).total, load + message + 10 * load, 1e-9);
  o.grid_queue_period = 0;
  EXPECT_NEAR(simulate(t, o).total, 2 * load + message + 10 * load, 1e-9);
}

// Two objects of 1 s a step start on PE 0 of 2; the threshold policy balances after step 0 and
// greedy moves one to PE 1; the strategy takes 5 s. Inline, the PEs wait for it: 2 s (step 0),
// 5 s, then 9 steps of 1 s. Asynchronously PE 0 runs on: the strategy starts when step 0 is
// measured (2 s) and is done at 7 s, while PE 0 runs the second object's step 3; between that
// step and the next PE 0 sends one object away (8 s), and the 6 steps left run side by side. An
// answer of 100 s comes after the run's 20 s: never applied. (Within a millisecond: the control
// messages and the move cross the network, microseconds each.)
TEST_F(Simulate, AsynchronousBalancingRunsTheStrategyBesideThePes) {
  const std::string platform = dir_.file("p4.xml", cluster_xml(4));
  lb::Trace t = make_trace(2, {0, 0});
  add_steps(t, 10, 1.0);
  lb::validate(t);
  SimulateOptions o = on(platform, {"network/model:CM02"});
  o.policy = "threshold";
  o.policy_params = {{"strategy", "greedy"}, {"every", "1"}};
  o.strategy_seconds = 5.0;
  const SimulationResult inline_run = simulate(t, o);
  EXPECT_NEAR(inline_run.total, 2 + 5 + 9, 1e-3);
  EXPECT_EQ(inline_run.balances, 1u);
  EXPECT_DOUBLE_EQ(inline_run.strategy, 5.0);

  o.async_balancing = true;
  const SimulationResult async_run = simulate(t, o);
  EXPECT_NEAR(async_run.total, 8 + 6, 1e-3);
  EXPECT_EQ(async_run.balances, 1u);
  EXPECT_EQ(async_run.migrations, 1u);
  EXPECT_EQ(async_run.strategy, 0.0);   // nothing charged
  EXPECT_EQ(async_run.balancing, 0.0);  // no PE stopped
  EXPECT_DOUBLE_EQ(async_run.strategy_overlapped, 5.0);
  ASSERT_EQ(async_run.series.size(), 10u);
  EXPECT_TRUE(async_run.series[0].balanced);  // decided after step 0
  EXPECT_EQ(async_run.series[0].migrations, 1u);

  o.strategy_seconds = 100.0;
  const SimulationResult late = simulate(t, o);
  EXPECT_NEAR(late.total, 20, 1e-3);
  EXPECT_EQ(late.balances, 0u);
  EXPECT_EQ(late.answers_unapplied, 1u);
}

TEST(SimulateLayout, HostsAreOrderedWithTheirNumbersAsNumbers) {
  using detail::host_name_less;
  EXPECT_TRUE(host_name_less("node-2", "node-10"));
  EXPECT_FALSE(host_name_less("node-10", "node-2"));
  EXPECT_TRUE(host_name_less("a-63", "b-0"));
  EXPECT_TRUE(host_name_less("n007", "n8"));
  EXPECT_FALSE(host_name_less("x", "x"));
}

TEST(SimulateLayout, EpochsFollowTheStepsThatReplaceTheEdges) {
  const lb::Trace t = ping_pong(4, 8);
  const std::vector<detail::Epoch> e = detail::epochs_of(t);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[1].first, 1u);
  ASSERT_EQ(e[1].out[1].size(), 1u);
  EXPECT_EQ(e[1].out[1][0].to, 0u);
  EXPECT_EQ(e[1].in_degree[0], 1u);
  EXPECT_EQ(e[1].in_degree[1], 0u);
  // With phases, an edge to a higher phase feeds the same step.
  const std::vector<detail::Epoch> p = detail::epochs_of(t, {1, 0});
  EXPECT_FALSE(p[0].out[0][0].same_step);  // 0 (phase 1) -> 1 (phase 0): the next step
  EXPECT_TRUE(p[1].out[1][0].same_step);   // 1 (phase 0) -> 0 (phase 1): the same step
  EXPECT_EQ(p[1].in_same_step[0], 1u);
  EXPECT_EQ(p[1].in_degree[0], 0u);
}

}  // namespace
}  // namespace vela::sim
