// vela-lb and strategy parameters: how `strategies` lists numeric and text parameters, and a
// text parameter (a strategy name) given to `compare`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/program.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

class VelaLbParams : public vela::testing::ScratchDirTest {};

TEST_F(VelaLbParams, StrategiesShowsRangesForNumbersAndChoicesForText) {
  const Result r = vela_lb("strategies");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string out = "\n" + r.out;
  for (const auto& info : vela::lb::strategies()) {
    const std::size_t entry = out.find("\n" + info.name + " ");
    ASSERT_NE(entry, std::string::npos) << info.name;
    for (const vela::lb::ParamSpec& p : info.params) {
      const std::size_t at = out.find(" " + p.name + "=", entry);
      ASSERT_NE(at, std::string::npos) << info.name << " " << p.name;
      const std::string line = out.substr(at, out.find('\n', at) - at);
      if (p.is_text()) {
        EXPECT_EQ(line.rfind(" " + p.name + "=" + p.default_text + " (", 0), 0u) << line;
        EXPECT_NE(line.find("one of " + vela::lb::join_choices(p.choices()) + ")"),
                  std::string::npos)
            << line;
      } else {
        EXPECT_NE(line.find(", range ["), std::string::npos) << line;
      }
    }
  }
}

TEST_F(VelaLbParams, CompareTakesAStrategyNameAsAParameter) {
  const std::string in = path("storm.json");
  ASSERT_EQ(vela_lb("generate brams -o " + in).status, 0);
  const Result r = vela_lb(
      "compare -s refine,hierarchical -p hierarchical:inner=greedy-refine -p "
      "hierarchical:group_size=16 -f json " +
      in);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  const nlohmann::json& stats = rows[1].at("stats");
  EXPECT_EQ(stats.at("groups").get<double>(), 4.0);  // 64 PEs
  EXPECT_LT(stats.at("max_objects_seen").get<double>(), 4096.0 / 2);
  EXPECT_LT(rows[1].at("lambda_after").get<double>(), 0.1);

  const Result bad = vela_lb("compare -s hierarchical -p hierarchical:inner=gready " + in);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("hierarchical: parameter 'inner' = 'gready' is not one of: greedy, "),
            std::string::npos)
      << bad.out;
}

}  // namespace
