// The graph benchmark end to end: bitwise identical checksums whatever the PEs and balancer,
// deterministic drift, an instance file as input, the cost model's log, and bad options named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/program.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/trace/trace.hpp"

namespace {

using Result = vela::testing::ProgramResult;
using vela::testing::run_program;

// Small and quick: 64 units of 2 µs.
const std::string small = "--units 64 --steps 12 --ns-per-unit 2000 --unit-bytes 256 --quiet";

Result run(const std::string& args) {
  return run_program(GRAPH_BENCH_BINARY, args + " --no-pin");
}

std::string field(const std::string& out, const std::string& key) {
  return vela::testing::text_after(out, key);
}

std::string checksum(const std::string& args) {
  const Result r = run(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
  const std::string hex = field(r.out, "checksum: ");
  if (hex.size() != 16) ADD_FAILURE() << "no checksum line for " << args << "\n" << r.out;
  EXPECT_NE(r.out.find("calibration: 1 unit of work = "), std::string::npos) << r.out;
  return hex;
}

TEST(GraphBench, ChecksumIsTheSameForAnyPesAndBalancer) {
  for (const std::string gen : {"--gen gamma --drift 5", "--gen cluster --overload 3"}) {
    const std::string problem = small + " " + gen;
    const std::string reference = checksum(problem + " --pes 1");
    ASSERT_FALSE(reference.empty());
    for (const std::string extra :
         {"--pes 2", "--pes 3", "--pes 2 --lb greedy", "--pes 3 --lb rotate",
          "--pes 2 --lb-policy cost-model --lb-policy-param force=global",
          "--pes 3 --lb-policy cost-model --lb-policy-param force=diffusive",
          "--pes 2 --lb-policy cost-model --lb-policy-param global=metis"}) {
      EXPECT_EQ(checksum(problem + " " + extra), reference) << extra;
    }
  }
  const Result moved = run(small + " --pes 3 --lb rotate");
  EXPECT_EQ(moved.out.find("migrations: 0 "), std::string::npos) << moved.out;
}

TEST(GraphBench, DriftIsDeterministicAndChangesTheResult) {
  const std::string drift = checksum(small + " --drift 5 --seed 7 --pes 2");
  EXPECT_EQ(checksum(small + " --drift 5 --seed 7 --pes 1"), drift);
  EXPECT_NE(checksum(small + " --drift 5 --seed 8 --pes 2"), drift);
  EXPECT_NE(checksum(small + " --drift 0 --seed 7 --pes 2"), drift);
  EXPECT_NE(checksum(small + " --drift 4 --seed 7 --pes 2"), drift);
}

TEST(GraphBench, CostModelLogsItsPickAndPredictions) {
  const Result r = run(small + " --gen cluster --overload 4 --pes 2 --lb-policy cost-model " +
                       "--lb-policy-param horizon=12 --lb-policy-param every=6");
  ASSERT_EQ(r.status, 0) << r.out;
  // Evaluations at the model's steps 0 and 6: after steps 0 and 6.
  EXPECT_NE(r.out.find("cost model at step 0: pick "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cost model at step 6: pick "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measured at step 0: step 0 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("predicted step (ms): none "), std::string::npos) << r.out;
  const Result forced = run(small + " --pes 2 --lb-policy cost-model --lb-policy-param force=none");
  EXPECT_NE(forced.out.find("follows none"), std::string::npos) << forced.out;
  EXPECT_NE(forced.out.find("lb steps: 0 "), std::string::npos) << forced.out;
}

TEST(GraphBench, ReadsAnInstanceFile) {
  const auto dir = std::filesystem::temp_directory_path() / "vela_graph_bench_test";
  std::filesystem::create_directories(dir);
  vela::lb::GammaOptions o;
  o.objects = 50;
  o.pes = 4;
  const vela::lb::Instance in = vela::lb::generate_gamma(o);
  const std::string file = (dir / "g.json").string();
  vela::lb::write_instance(in, file);
  const std::string args = "--instance " + file + " --steps 8 --ns-per-unit 2000 --quiet";
  const Result r = run(args + " --pes 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("graph: 50 units  " + std::to_string(in.edges.size()) + " edges"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(checksum(args + " --pes 3 --lb greedy"), field(r.out, "checksum: "));

  const std::string broken = (dir / "broken.json").string();
  std::ofstream(broken) << "{\"format\": \"vela-instance\", \"version\": 1,";
  const Result bad = run("--instance " + broken);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("broken.json"), std::string::npos) << bad.out;
  const Result missing = run("--instance " + (dir / "none.json").string());
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("none.json"), std::string::npos) << missing.out;
  std::filesystem::remove_all(dir);
}

TEST(GraphBench, RecordsTheLoadsItGivesItsUnitsAsATrace) {
  // The trace holds the run's start (the units where the run places them, the edges it sends
  // on) and each step's loads: weight times --ns-per-unit, half the units drifting by at most 5%
  // a step and the others constant; replayed, it is the run's problem.
  const auto dir = std::filesystem::temp_directory_path() / "graph_bench_record_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "trace.json").string();
  const Result r = run(small + " --gen cluster --drift 5 --pes 3 --record " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const vela::lb::Trace trace = vela::lb::read_trace(path);
  ASSERT_EQ(trace.initial.objects.size(), 64u);
  ASSERT_EQ(trace.initial.pes.size(), 3u);
  ASSERT_EQ(trace.steps.size(), 12u);
  EXPECT_FALSE(trace.initial.edges.empty());
  double mean = 0.0;
  for (const vela::lb::Object& o : trace.initial.objects) mean += o.load / 64;
  // The run prints the mean weight; the trace's step before the first is in seconds (2 µs each).
  EXPECT_NEAR(mean / 2e-6, std::stod(field(r.out, "mean weight ")), 1e-3) << r.out;
  EXPECT_EQ(trace.initial.objects.front().pe, 0);  // the heavy region starts on the first PEs
  EXPECT_EQ(trace.initial.objects.back().pe, 2);
  int drifting = 0;
  for (std::size_t u = 0; u < 64; ++u) {
    const double first = trace.steps.front().loads[u];
    EXPECT_EQ(first, trace.initial.objects[u].load) << u;  // step 0 runs the starting weights
    bool changed = false;
    for (std::size_t s = 1; s < trace.steps.size(); ++s) {
      const double before = trace.steps[s - 1].loads[u], now = trace.steps[s].loads[u];
      EXPECT_LE(std::abs(now - before), 0.05 * before * (1 + 1e-12)) << u << " at " << s;
      changed = changed || now != before;
    }
    drifting += changed ? 1 : 0;
  }
  EXPECT_GT(drifting, 16);
  EXPECT_LT(drifting, 48);
  // Without drift every step's loads are the start's; a file that cannot be written is named.
  ASSERT_EQ(run(small + " --gen cluster --pes 2 --record " + path).status, 0);
  const vela::lb::Trace still = vela::lb::read_trace(path);
  for (const vela::lb::TraceStep& step : still.steps) {
    for (std::size_t u = 0; u < 64; ++u) EXPECT_EQ(step.loads[u], still.initial.objects[u].load);
  }
  const Result bad = run(small + " --record " + (dir / "no" / "such.json").string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("--record: "), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("such.json"), std::string::npos) << bad.out;
  std::filesystem::remove_all(dir);
}

TEST(GraphBench, BadOptionsAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"--units 0", "--units 0: expected"},
      {"--units -4", "--units -4: expected"},
      {"--steps 0", "--steps 0: expected"},
      {"--ns-per-unit -1", "--ns-per-unit -1: expected"},
      {"--gen ring", "--gen ring: unknown generator; expected gamma or cluster"},
      {"--drift 60", "--drift 60: expected a percentage per step in [0, 50]"},
      {"--drift -1", "--drift -1: expected"},
      {"--shape 0", "--shape 0: expected a number > 0"},
      {"--region 100", "--region 100: expected"},
      {"--unit-bytes -1", "--unit-bytes -1: expected"},
      {"--steps x", "--steps"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
  }
  const Result help = run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--ns-per-unit"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--lb-policy"), std::string::npos) << help.out;
}

}  // namespace
