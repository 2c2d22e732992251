// vela-lb end to end: the commands a user types, their output and their errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/program.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

class VelaLbCli : public vela::testing::ScratchDirTest {
 protected:
  std::string storm() {
    const std::string file = path("storm.json");
    const Result r = vela_lb("generate brams -o " + file);
    EXPECT_EQ(r.status, 0) << r.out;
    return file;
  }
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

TEST_F(VelaLbCli, GenerateBramsDefaultsTo64By64On64Pes) {
  const vela::lb::Instance in = vela::lb::read_instance(storm());
  EXPECT_EQ(in.objects.size(), 64u * 64u);
  EXPECT_EQ(in.pes.size(), 64u);
  EXPECT_EQ(in.dims, 2);
  const auto s = vela::lb::load_stats(vela::lb::pe_loads(in, vela::lb::current_assignment(in)));
  EXPECT_GT(s.imbalance, 0.2) << "the default storm should overload some PEs";
}

TEST_F(VelaLbCli, RunWritesABetterPlacement) {
  const std::string in = storm();
  const std::string out = path("balanced.json");
  const Result r = vela_lb("run --strategy greedy " + in + " -o " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("imbalance:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("migrations:"), std::string::npos) << r.out;
  const vela::lb::Instance before = vela::lb::read_instance(in);
  const vela::lb::Instance after = vela::lb::read_instance(out);
  ASSERT_EQ(before.objects.size(), after.objects.size());
  const auto lambda = [](const vela::lb::Instance& i) {
    return vela::lb::load_stats(vela::lb::pe_loads(i, vela::lb::current_assignment(i))).imbalance;
  };
  EXPECT_LT(lambda(after), 0.05);
  EXPECT_LT(lambda(after), lambda(before));
}

TEST_F(VelaLbCli, RunPredictsStepTimeUnderACommunicationModel) {
  const std::string in = storm();
  Result r = vela_lb("run -s refine " + in);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("step time:"), std::string::npos) << "no model, no prediction";
  r = vela_lb("run -s refine --startup 1e-5 --per-byte 1e-9 " + in);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("step time:"), std::string::npos) << r.out;
  r = vela_lb("run -s refine --startup -1 " + in);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--startup: expected a finite number >= 0, got '-1'"), std::string::npos)
      << r.out;
}

TEST_F(VelaLbCli, RepeatedInvocationsPrintOneRowEachAndReportFirstToLast) {
  const Result r = vela_lb("run -s refine --repeat 4 " + storm());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = lines(r.out);
  ASSERT_GE(rows.size(), 6u);
  double previous = 1e9;
  for (int k = 1; k <= 4; ++k) {
    std::istringstream row(rows[static_cast<std::size_t>(k)]);
    int invocation = 0;
    double lambda = 0.0;
    row >> invocation >> lambda;
    EXPECT_EQ(invocation, k) << rows[static_cast<std::size_t>(k)];
    EXPECT_LE(lambda, previous + 1e-9) << "refine never raises the maximum";
    previous = lambda;
  }
  EXPECT_NE(r.out.find("imbalance:"), std::string::npos);
  EXPECT_NE(vela_lb("run -s refine --repeat 0 " + storm()).status, 0);
}

TEST_F(VelaLbCli, CompareCsvHasTheDocumentedHeaderAndARowPerStrategy) {
  const Result r = vela_lb("compare --strategies greedy,refine,dummy --format csv " + storm());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_EQ(rows[0],
            "strategy,lambda_before,lambda_after,max_avg_after,migrations,bytes_moved,"
            "comm_cut_bytes,time_ms");
  EXPECT_EQ(rows[1].rfind("greedy,", 0), 0u);
  EXPECT_EQ(rows[2].rfind("refine,", 0), 0u);
  EXPECT_EQ(rows[3].rfind("dummy,", 0), 0u);
}

TEST_F(VelaLbCli, StrategyListRightBeforeTheInputLeavesTheInputAlone) {
  const Result r = vela_lb("compare -s greedy,dummy " + storm());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("dummy"), std::string::npos) << r.out;
}

TEST_F(VelaLbCli, CompareRunsEveryStrategyByDefault) {
  const Result r = vela_lb("compare --format json " + storm());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = nlohmann::json::parse(r.out);
  std::size_t defaults = 0;  // every strategy but the exact references for small instances
  for (const auto& info : vela::lb::strategies()) defaults += info.reference_only ? 0 : 1;
  ASSERT_EQ(rows.size(), defaults);
  for (const auto& row : rows) {
    const std::string name = row.at("strategy");
    if (name == "dummy") {
      EXPECT_EQ(row.at("migrations").get<int>(), 0);
    }
    if (name == "greedy" || name == "hilbert") {
      EXPECT_LT(row.at("lambda_after").get<double>(), 0.1) << name;
    }
  }
}

TEST_F(VelaLbCli, CompareTakesParametersPerStrategy) {
  const std::string in = storm();
  EXPECT_EQ(vela_lb("compare -s refine -p refine:tolerance=0.2 -f csv " + in).status, 0);
  const Result wrong = vela_lb("compare -s greedy -p refine:tolerance=0.2 " + in);
  EXPECT_NE(wrong.status, 0);
  EXPECT_NE(wrong.out.find("not among those compared"), std::string::npos) << wrong.out;
}

TEST_F(VelaLbCli, CompareOptimalShowsEachStrategysDistanceFromTheOptimum) {
  const std::string small = path("small.json");
  ASSERT_EQ(vela_lb("generate gamma --objects 24 --pes 3 -o " + small).status, 0);
  const Result r =
      vela_lb("compare -s greedy,dummy --optimal -p optimal:time_limit=5 -f csv " + small);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[0].find(",max_over_optimal"), std::string::npos);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double ratio = std::stod(rows[i].substr(rows[i].rfind(',') + 1));
    EXPECT_GE(ratio, 1.0 - 1e-9) << rows[i] << ": no strategy beats the optimum";
  }
  const Result big = vela_lb("compare -s greedy --optimal " + storm());
  EXPECT_EQ(big.status, 1);
  EXPECT_NE(big.out.find("more than the limit"), std::string::npos) << big.out;
}

TEST_F(VelaLbCli, UnknownStrategyListsTheKnownOnes) {
  const Result r = vela_lb("run --strategy gready " + storm());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown strategy 'gready'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("greedy"), std::string::npos) << r.out;
}

TEST_F(VelaLbCli, BadParametersAreNamed) {
  const std::string in = storm();
  Result r = vela_lb("run --strategy refine --param tolerance=-1 " + in);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("tolerance"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out of range"), std::string::npos) << r.out;
  r = vela_lb("run --strategy refine --param speed=2 " + in);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown parameter 'speed'"), std::string::npos) << r.out;
  r = vela_lb("run --strategy refine --param tolerance " + in);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("key=value"), std::string::npos) << r.out;
}

TEST_F(VelaLbCli, MissingAndMalformedFilesAreRejectedByName) {
  Result r = vela_lb("run --strategy greedy " + path("nowhere.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("nowhere.json"), std::string::npos) << r.out;

  const std::string bad = path("bad.json");
  std::ofstream(bad) << "{\"format\": \"vela-instance\", \"version\": 1, \"dims\": ";
  r = vela_lb("compare " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad.json"), std::string::npos) << r.out;
}

TEST_F(VelaLbCli, BadFormatAndUnknownKindAreUsageErrors) {
  const std::string in = storm();
  EXPECT_NE(vela_lb("compare --format xml " + in).status, 0);
  EXPECT_NE(vela_lb("generate storm -o " + path("x.json")).status, 0);
  EXPECT_NE(vela_lb("").status, 0);
}

TEST_F(VelaLbCli, HelpEverywhere) {
  for (const std::string cmd :
       {"--help", "generate --help", "run --help", "compare --help", "strategies --help"}) {
    const Result r = vela_lb(cmd);
    EXPECT_EQ(r.status, 0) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd << "\n" << r.out;
  }
}

TEST_F(VelaLbCli, GenerateParticlesWritesHyperedgesAndCompareShowsTheirCut) {
  const std::string file = path("particles.json");
  Result r = vela_lb("generate particles --nx 16 --ny 12 --particles 4000 --pes 4 -o " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("hyperedges, seed 1"), std::string::npos) << r.out;
  const vela::lb::Instance in = vela::lb::read_instance(file);
  EXPECT_EQ(in.objects.size(), 16u * 12u);
  EXPECT_FALSE(in.hyperedges.empty());
  std::ifstream text(file);
  const std::string head((std::istreambuf_iterator<char>(text)), {});
  EXPECT_NE(head.find("\"version\": 2,"), std::string::npos);

  r = vela_lb("compare -s greedy,dummy -f csv " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[0].substr(rows[0].rfind(',')), ",hypergraph_cut_bytes");
  EXPECT_EQ(rows[2].substr(rows[2].rfind(',') + 1),
            std::to_string(vela::lb::hypergraph_cut(in, vela::lb::current_assignment(in))));
  r = vela_lb("run -s dummy " + file);
  EXPECT_NE(r.out.find("hyperedge cut: "), std::string::npos) << r.out;

  r = vela_lb("generate particles --cutoff 3 -o " + file);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("particles: cutoff must be in (0, 2], got 3"), std::string::npos) << r.out;
  r = vela_lb("generate particles --shape 2 -o " + file);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("does not apply to particles (it is an option of gamma)"), std::string::npos)
      << r.out;
}

TEST_F(VelaLbCli, StrategiesListsEveryRegisteredName) {
  const Result r = vela_lb("strategies");
  ASSERT_EQ(r.status, 0);
  for (const auto& info : vela::lb::strategies()) {
    EXPECT_NE(r.out.find(info.name), std::string::npos) << info.name;
  }
}

}  // namespace
