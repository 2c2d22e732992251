// vela-lb's machine-readable output stays parseable whatever the strategies' libraries do: on the
// instances where METIS used to print "***Cannot bisect a graph with 0 vertices!" to stdout
// (heavy-tailed loads, few objects on many PEs, PEs with no room), `compare --format csv|json`
// with every strategy writes only its CSV or JSON to stdout, and `run` only its report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using Result = vela::testing::ProgramResult;

// Standard output alone (stderr to `errors`), and the exit status.
Result vela_lb_stdout(const std::string& args, const std::string& errors) {
  return vela::testing::run_command(std::string(VELA_LB_BINARY) + " " + args + " 2>" + errors);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (!text.empty() && text.back() == separator && separator == ',') parts.push_back("");
  return parts;
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

std::vector<std::string> default_strategies() {
  std::vector<std::string> names;
  for (const auto& info : vela::lb::strategies()) {
    if (!info.reference_only) names.push_back(info.name);
  }
  return names;
}

class VelaLbMachineOutput : public vela::testing::ScratchDirTest {
 protected:
  // Instances named by how they were made: each makes some partitioner's library struggle.
  std::vector<std::string> instances() {
    const std::vector<std::string> kinds = {
        // Heavy tails: a few objects outweigh a PE's share (METIS printed on all of these).
        "gamma --objects 70 --pes 16 --shape 0.1 --seed 1",
        "gamma --objects 70 --pes 33 --shape 0.1 --seed 1",
        "gamma --objects 130 --pes 64 --shape 0.1 --seed 2",
        // Few objects on many PEs: most parts empty.
        "gamma --objects 5 --pes 64",
        "gamma --objects 64 --pes 64 --shape 0.5",
        // PEs with no room: a slow cluster with a large background.
        "hetero --nx 6 --ny 6 --pes 16 --clusters 2 --speeds 1,0.05 --background 0,5",
        "clustered --objects 40 --pes 16",
        "particles --nx 4 --ny 4 --pes 16 --particles 300",
    };
    std::vector<std::string> files;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      std::string name = std::to_string(k);
      name.append(".json", 5);  // appended with a length: GCC 12's false -Wrestrict (105651)
      const std::string file = path(name);
      const Result r =
          vela::testing::run_program(VELA_LB_BINARY, "generate " + kinds[k] + " -o " + file);
      EXPECT_EQ(r.status, 0) << kinds[k] << "\n" << r.out;
      files.push_back(file);
    }
    return files;
  }
};

TEST_F(VelaLbMachineOutput, CompareCsvWithEveryStrategyIsOnlyCsv) {
  const std::vector<std::string> names = default_strategies();
  for (const std::string& file : instances()) {
    SCOPED_TRACE(file);
    const Result r = vela_lb_stdout("compare -f csv " + file, path("errors.txt"));
    ASSERT_EQ(r.status, 0) << r.out;
    const std::vector<std::string> rows = split(r.out, '\n');
    ASSERT_EQ(rows.size(), names.size() + 1) << r.out;
    const std::size_t columns = split(rows[0], ',').size();
    EXPECT_EQ(rows[0].rfind("strategy,lambda_before,", 0), 0u) << rows[0];
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const std::vector<std::string> cells = split(rows[i], ',');
      ASSERT_EQ(cells.size(), columns) << rows[i];
      EXPECT_EQ(cells[0], names[i - 1]) << rows[i];
      for (std::size_t c = 1; c < cells.size(); ++c) {
        EXPECT_TRUE(is_number(cells[c])) << "column " << c << " of " << rows[i];
      }
    }
  }
}

TEST_F(VelaLbMachineOutput, CompareJsonWithEveryStrategyIsOnlyJson) {
  const std::vector<std::string> names = default_strategies();
  for (const std::string& file : instances()) {
    SCOPED_TRACE(file);
    const Result r = vela_lb_stdout("compare -f json " + file, path("errors.txt"));
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json rows;
    ASSERT_NO_THROW(rows = nlohmann::json::parse(r.out)) << r.out;
    ASSERT_EQ(rows.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(rows[i].at("strategy").get<std::string>(), names[i]);
      EXPECT_TRUE(rows[i].at("lambda_after").is_number());
    }
  }
}

TEST_F(VelaLbMachineOutput, RunReportsOnlyTheirOwnLinesForTheMetisStrategies) {
  for (const std::string& file : instances()) {
    for (const std::string strategy : {"metis", "grid-metis", "grid-hybrid", "scotch"}) {
      SCOPED_TRACE(file + " " + strategy);
      const Result r = vela_lb_stdout("run -s " + strategy + " " + file, path("errors.txt"));
      ASSERT_EQ(r.status, 0) << r.out;
      // Every line of the report is "label: value" (the statistics indented by two spaces).
      for (const std::string& line : split(r.out, '\n')) {
        const std::size_t colon = line.find(':');
        ASSERT_NE(colon, std::string::npos) << line;
        EXPECT_TRUE(line[0] != ' ' || line.rfind("  ", 0) == 0) << line;
        EXPECT_EQ(line.find("***"), std::string::npos) << line;
      }
    }
  }
}

}  // namespace
