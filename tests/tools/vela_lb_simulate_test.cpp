// vela-lb simulate: the output agrees with the library's simulation, the shipped platforms are
// found by name, and every bad option gets a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/trace/trace.hpp"
#include "vela/sim/simulate.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

double value_after(const std::string& out, const std::string& label) {
  const auto at = out.find(label);
  if (at == std::string::npos) return -1.0;
  return std::stod(out.substr(at + label.size()));
}

class VelaLbSimulate : public vela::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    if (!vela::sim::available()) GTEST_SKIP() << "built without SimGrid";
  }
  // 64 objects on 4 PEs, 20 steps, a storm over PE 0's quarter and halos of 20 kB.
  std::string trace() {
    const std::string file = path("t.trace");
    const Result r = vela_lb("trace generate -o " + file +
                             " --nx 8 --ny 8 --pes 4 --steps 20 --base-load 0.01 "
                             "--halo-bytes 20000 --object-bytes 100000 --storm 2,2,2,6 --quiet");
    EXPECT_EQ(r.status, 0) << r.out;
    return file;
  }
};

TEST_F(VelaLbSimulate, PrintsTheLibrarysSimulationOnAShippedPlatform) {
  const std::string file = trace();
  const Result r = vela_lb("simulate " + file +
                           " --platform fat-tree --policy periodic -P every=5 "
                           "--strategy-time 0.001");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("platforms/fat-tree.xml (4 PEs on 1 hosts)"), std::string::npos) << r.out;

  vela::sim::SimulateOptions o;
  o.platform = std::string(VELA_SOURCE_DIR) + "/platforms/fat-tree.xml";
  o.policy = "periodic";
  o.policy_params = {{"every", "5"}};
  o.strategy_seconds = 0.001;
  const vela::sim::SimulationResult expected = vela::sim::simulate(vela::lb::read_trace(file), o);
  EXPECT_NEAR(value_after(r.out, "total:"), expected.total, 1e-6) << r.out;
  EXPECT_EQ(value_after(r.out, "balances:"), static_cast<double>(expected.balances));
  EXPECT_GT(expected.balances, 0u);

  // The same asynchronously, with the objects of a step in two phases and border prioritization
  // (the trace's PEs are in one cluster: no border object).
  const Result a = vela_lb("simulate " + file +
                           " --platform fat-tree --policy periodic -P every=5 "
                           "--strategy-time 0.001 --async --phase 0-31=0 --phase 32-63=1 "
                           "--grid-queue 4");
  ASSERT_EQ(a.status, 0) << a.out;
  o.async_balancing = true;
  o.grid_queue_period = 4;
  o.phases.assign(64, 0);
  std::fill(o.phases.begin() + 32, o.phases.end(), 1);
  const vela::sim::SimulationResult async = vela::sim::simulate(vela::lb::read_trace(file), o);
  EXPECT_NEAR(value_after(a.out, "total:"), async.total, 1e-6) << a.out;
  EXPECT_NE(async.total, expected.total);
  EXPECT_NEAR(value_after(a.out, "asynchronous:"), async.strategy_overlapped, 1e-9) << a.out;
  EXPECT_GT(async.strategy_overlapped, 0.0);
}

TEST_F(VelaLbSimulate, ComparesPoliciesAgainstNever) {
  const std::string file = trace();
  const Result r = vela_lb("simulate " + file +
                           " --platform xt5 --pes-per-host 1 --compare periodic:every=5 "
                           "--strategy-time 0.001 --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  std::istringstream lines(r.out);
  std::string header;
  std::string row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header.rfind("policy,total,relative_to_never,", 0), 0u) << r.out;
  EXPECT_EQ(row.rfind("periodic:every=5,", 0), 0u) << r.out;
  // Balancing the storm's load beats not balancing it.
  const double relative = std::stod(row.substr(row.find(',', row.find(',') + 1) + 1));
  EXPECT_LT(relative, 1.0) << r.out;
}

TEST_F(VelaLbSimulate, WritesTheSeries) {
  const std::string file = trace();
  const std::string series = path("s.csv");
  const Result r = vela_lb("simulate " + file + " --platform xt5 --series " + series);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(series);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 21);  // the header and 20 steps
}

TEST_F(VelaLbSimulate, BadOptionsAreNamed) {
  const std::string file = trace();
  Result r = vela_lb("simulate " + file + " --platform no-such-machine");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--platform 'no-such-machine': no such file, nor a platform shipped with "
                       "Vela (fat-tree, two-clusters, xt5)"),
            std::string::npos)
      << r.out;
  r = vela_lb("simulate " + file + " --platform xt5 --link-latency wan");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--link-latency: expected LINK=SECONDS"), std::string::npos) << r.out;
  r = vela_lb("simulate " + file + " --platform xt5 --link-latency wan=0.1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("has no link named 'wan'"), std::string::npos) << r.out;
  r = vela_lb("simulate " + file + " --platform xt5 --cfg network/model");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("SimGrid option 'network/model': expected NAME:VALUE"), std::string::npos)
      << r.out;
  r = vela_lb("simulate " + file + " --platform xt5 --policy periodic --compare never");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("either --policy"), std::string::npos) << r.out;
  for (const auto& [phase, why] : std::vector<std::pair<std::string, std::string>>{
           {"3", "expected ID=PHASE or FIRST-LAST=PHASE"},
           {"3=256", "expected a phase from 0 to 255"},
           {"3=0.5", "expected a phase from 0 to 255"},
           {"a-b=1", "expected object ids"},
           {"9-3=1", "the last id is below the first"},
           {"1000-2000=1", "no object of the trace has such an id"}}) {
    r = vela_lb("simulate " + file + " --platform xt5 --phase " + phase);
    EXPECT_EQ(r.status, 1) << phase;
    EXPECT_NE(r.out.find("--phase '" + phase + "': " + why), std::string::npos) << r.out;
  }
  r = vela_lb("simulate " + file + " --platform xt5 --phase 0-9=1 --phase 5=2");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("object 5 was given a phase already"), std::string::npos) << r.out;
  r = vela_lb("simulate " + path("missing.trace") + " --platform xt5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("missing.trace"), std::string::npos) << r.out;
}

}  // namespace
