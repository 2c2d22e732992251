// vela-lb replay, predict and policies: the output agrees with the library, and every bad option
// gets a clear error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/policy/replay.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

double value_after(const std::string& out, const std::string& label) {
  const auto at = out.find(label);
  if (at == std::string::npos) return -1.0;
  return std::stod(out.substr(at + label.size()));
}

class VelaLbReplay : public vela::testing::ScratchDirTest {
 protected:
  // 64 objects on 4 PEs, 40 steps, drifting loads and radiation every 10 steps.
  std::string trace() {
    const std::string file = path("t.trace");
    const Result r = vela_lb("trace generate -o " + file +
                             " --nx 8 --ny 8 --pes 4 --steps 40 --drift-fraction 0.5 "
                             "--radiation-period 10");
    EXPECT_EQ(r.status, 0) << r.out;
    return file;
  }
};

TEST_F(VelaLbReplay, PrintsTheTotalsOfTheLibraryReplay) {
  const std::string file = trace();
  const Result r = vela_lb("replay " + file +
                           " --policy threshold -P threshold=5 -P every=5 -P strategy=refine "
                           "--strategy-time 0.01 --startup 1e-4 --per-byte 1e-9");
  ASSERT_EQ(r.status, 0) << r.out;
  auto policy = vela::lb::make_policy("threshold",
                                      {{"threshold", "5"}, {"every", "5"}, {"strategy", "refine"}});
  vela::lb::ReplayOptions o;
  o.communication = {1e-4, 1e-9};
  o.migration = o.communication;
  o.strategy_seconds = 0.01;
  const vela::lb::ReplayResult expected = vela::lb::replay(vela::lb::read_trace(file), *policy, o);
  EXPECT_NEAR(value_after(r.out, "total:"), expected.totals.total, 1e-6) << r.out;
  EXPECT_NEAR(value_after(r.out, "  migration:"), expected.totals.migration, 1e-6) << r.out;
  EXPECT_NEAR(value_after(r.out, "balances:"), static_cast<double>(expected.balances), 0.0);
  EXPECT_GT(expected.balances, 0u);
  EXPECT_NE(r.out.find("threshold:threshold=5,every=5,strategy=refine"), std::string::npos)
      << r.out;
}

TEST_F(VelaLbReplay, CompareHasOneRowPerPolicyRelativeToNever) {
  const std::string file = trace();
  const Result r = vela_lb("replay " + file +
                           " --compare never --compare threshold:threshold=5,every=5 "
                           "--compare periodic:every=10 --strategy-time 0 -f csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_EQ(rows[0][0], "policy");
  EXPECT_EQ(rows[1][0], "never");
  EXPECT_EQ(rows[2][0], "threshold:threshold=5;every=5");  // one cell: commas become semicolons
  const double never = std::stod(rows[1][1]);
  EXPECT_EQ(std::stod(rows[1][2]), 1.0);
  EXPECT_NEAR(std::stod(rows[3][2]), std::stod(rows[3][1]) / never, 1e-6);
  EXPECT_LT(std::stod(rows[3][2]), 1.0);  // balancing pays on this trace
  // Without never among them, it is still the baseline.
  const Result table = vela_lb("replay " + file + " --compare periodic:every=10 --strategy-time 0");
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_NE(table.out.find("× never"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("periodic:every=10"), std::string::npos) << table.out;
}

TEST_F(VelaLbReplay, AsyncReportsTheOverlappedStrategyTime) {
  const std::string file = trace();
  const Result r =
      vela_lb("replay " + file + " --policy periodic -P every=10 --strategy-time 3 --async");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("asynchronous balancing"), std::string::npos) << r.out;
  EXPECT_EQ(value_after(r.out, "  strategy:"), 0.0) << r.out;
  EXPECT_EQ(value_after(r.out, "overlapped:"), 12.0) << r.out;  // 4 calls of 3 s
}

TEST_F(VelaLbReplay, SeriesHasOneLinePerStep) {
  const std::string file = trace();
  const std::string series = path("s.csv");
  const Result r = vela_lb("replay " + file + " --policy periodic -P every=10 --series " + series +
                           " --strategy-time 0");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(series);
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = csv_rows(text.str());
  ASSERT_EQ(rows.size(), 41u);
  EXPECT_EQ(rows[10][0], "9");
  EXPECT_EQ(rows[10][5], "1");  // started after step 9
}

TEST_F(VelaLbReplay, BadOptionsGetClearErrors) {
  const std::string file = trace();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--policy sometimes", "unknown policy 'sometimes'"},
      {"--policy threshold -P threshold=-3",
       "threshold: parameter 'threshold' = -3 is out of range"},
      {"--policy threshold -P nonsense", "expected key=value"},
      {"--policy periodic -P strategy=nope", "is not one of"},
      {"--strategy-time soon", "--strategy-time: expected 'measured', SECONDS >= 0 or"},
      {"--strategy-time greedy=-2", "got 'greedy=-2'"},
      {"--strategy-time sloth=2", "unknown strategy 'sloth'"},
      {"--strategy-time -1", "--strategy-time"},
      {"--startup -1", "--startup"},
      {"--per-byte abc", "--per-byte"},
      {"--compare never --series x.csv", "--series needs a single --policy"},
      {"--compare never --policy periodic", "either --policy"},
      {"--compare :every=3", "--compare ':every=3': expected POLICY"},
      {"--compare periodic:every", "--compare 'periodic:every': parameter 'every': expected"},
      {"--compare periodic:every=0", "periodic: parameter 'every' = 0 is out of range"},
      {"--predictor-param window=3", "--predictor-param needs --predictor"},
      {"--predictor psychic", "unknown predictor 'psychic'"},
      {"--format xml", "--format"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = vela_lb("replay " + file + " " + args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
  }
  const Result missing = vela_lb("replay " + path("absent.trace"));
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.out.find("absent.trace"), std::string::npos) << missing.out;
}

TEST_F(VelaLbReplay, PredictScoresEveryPredictor) {
  const std::string file = trace();
  const Result r = vela_lb("predict " + file + " -f csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 1u + vela::lb::predictors().size()) << r.out;
  EXPECT_EQ(rows[1][0], "persistence");
  EXPECT_EQ(rows[1][1], "40");
  // Radiation spikes every 10 steps: persistence carries each spike into the next step, the
  // median of 5 ignores it.
  EXPECT_LT(std::stod(rows[2][3]), std::stod(rows[1][3])) << r.out;
  const Result one = vela_lb("predict " + file + " --predictors trend -p trend:window=3");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("trend"), std::string::npos);
  EXPECT_EQ(one.out.find("persistence"), std::string::npos);
  const Result bad = vela_lb("predict " + file + " --predictors trend -p median:window=3");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("predictor 'median' is not among those scored"), std::string::npos);
  const Result unknown = vela_lb("predict " + file + " --predictors crystal-ball");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.out.find("unknown predictor 'crystal-ball'"), std::string::npos);
}

TEST_F(VelaLbReplay, PoliciesListsEveryPolicyAndPredictorWithItsParameters) {
  const Result r = vela_lb("policies");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string out = "\n" + r.out;
  const auto check = [&](const std::string& name, const std::vector<vela::lb::ParamSpec>& params) {
    const std::size_t entry = out.find("\n" + name + " ");
    ASSERT_NE(entry, std::string::npos) << name;
    for (const vela::lb::ParamSpec& p : params) {
      const std::string shown = " " + p.name + "=" + (p.is_text() ? p.default_text : "");
      EXPECT_NE(out.find(shown, entry), std::string::npos) << name << " " << p.name;
    }
  };
  for (const auto& info : vela::lb::policies()) check(info.name, info.params);
  for (const auto& info : vela::lb::predictors()) check(info.name, info.params);
}

}  // namespace
