// The graph benchmark end to end: bitwise identical checksums whatever the PEs and balancer,
// deterministic drift, an instance file as input, the cost model's log, and bad options named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/program.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/io/io.hpp"

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
