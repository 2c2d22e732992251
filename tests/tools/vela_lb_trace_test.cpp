// vela-lb trace ...: the commands a user types, their output and their errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lb/trace_support.hpp"
#include "support/program.hpp"
#include "vela/lb/trace/trace.hpp"
#include "vela/lb/trace/vt.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::filesystem::path vt_fixture = std::filesystem::path(VELA_TEST_FIXTURES) / "vt";

#define EXPECT_MENTIONS(text, part) \
  EXPECT_NE((text).find(part), std::string::npos) << "expected '" << (part) << "' in: " << (text)

class VelaLbTrace : public vela::testing::ScratchDirTest {};

TEST_F(VelaLbTrace, GenerateWritesBinaryOrJsonByExtensionOrFormat) {
  const std::string common = " --nx 8 --ny 8 --pes 4 --steps 50 --radiation-period 10";
  Result r = vela_lb("trace generate" + common + " -o " + path("a.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out, "(binary): 50 steps, 64 objects on 4 PEs");
  r = vela_lb("trace generate" + common + " -o " + path("a.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(path("a.json")).find("{\n  \"format\": \"vela-trace\""), 0u);
  r = vela_lb("trace generate" + common + " --format json -o " + path("b.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(path("b.trace")), slurp(path("a.json")));
  vela::testing::expect_same_trace(vela::lb::read_trace(path("a.trace")),
                                   vela::lb::read_trace(path("a.json")));
  r = vela_lb("trace generate" + common + " -o " + path("a.txt"));
  EXPECT_NE(r.status, 0);
  EXPECT_MENTIONS(r.out, "cannot tell the format of '" + path("a.txt") + "' from its extension");
}

TEST_F(VelaLbTrace, GenerateIsReproducibleAcrossRuns) {
  const std::string args =
      " --nx 8 --ny 6 --pes 4 --steps 40 --drift-fraction 0.5 "
      "--create-rate 0.5 --delete-rate 0.25 --storm 2,3,2,3,0.1,0 -o ";
  ASSERT_EQ(vela_lb("trace generate" + args + path("1.trace")).status, 0);
  ASSERT_EQ(vela_lb("trace generate" + args + path("2.trace")).status, 0);
  ASSERT_EQ(vela_lb("trace generate --seed 9" + args + path("3.trace")).status, 0);
  EXPECT_EQ(slurp(path("1.trace")), slurp(path("2.trace")));
  EXPECT_NE(slurp(path("1.trace")), slurp(path("3.trace")));
}

TEST_F(VelaLbTrace, InfoSummarizesStepsObjectsChurnAndImbalance) {
  ASSERT_EQ(vela_lb("trace generate --nx 8 --ny 8 --pes 4 --steps 20 --create-rate 0.5 "
                    "--delete-rate 0.25 -o " +
                    path("t.trace"))
                .status,
            0);
  const Result r = vela_lb("trace info " + path("t.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out, "steps: 20\n");
  EXPECT_MENTIONS(r.out, "PEs: 4\n");
  EXPECT_MENTIONS(r.out, "objects: 64 initially, 69 at the end");
  EXPECT_MENTIONS(r.out, "10 created, 5 deleted");
  EXPECT_MENTIONS(r.out, "imbalance λ under the initial placement: min ");
  EXPECT_MENTIONS(r.out, "mean ");
}

TEST_F(VelaLbTrace, InfoOfAFlatTraceReportsNoImbalance) {
  ASSERT_EQ(vela_lb("trace generate --nx 4 --ny 4 --pes 4 --steps 5 --no-storm --noise 0 -o " +
                    path("flat.json"))
                .status,
            0);
  const Result r = vela_lb("trace info " + path("flat.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out, "min 0.00% (initial), mean 0.00%, max 0.00%");
}

TEST_F(VelaLbTrace, ConvertGoesBothWaysExactly) {
  vela::lb::write_trace_json(vela::testing::small_trace(), path("small.json"));
  Result r = vela_lb("trace convert " + path("small.json") + " " + path("small.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  r = vela_lb("trace convert " + path("small.trace") + " " + path("again.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(path("again.json")), slurp(path("small.json")));
  vela::testing::expect_same_trace(vela::lb::read_trace(path("small.trace")),
                                   vela::testing::small_trace());
}

TEST_F(VelaLbTrace, ImportsVtFilesOrTheirDirectoryAndExportsThemBack) {
  Result r = vela_lb("trace import-vt " + vt_fixture.string() + " -o " + path("vt.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out, "read 2 files: 4 phases, 16 tasks on 2 PEs");
  EXPECT_MENTIONS(r.out, "ignored 3 task placements");
  const vela::lb::Trace trace = vela::lb::read_trace(path("vt.trace"));
  vela::testing::expect_same_trace(
      trace, vela::lb::import_vt(
                 {(vt_fixture / "data.0.json").string(), (vt_fixture / "data.1.json").string()}));
  r = vela_lb("trace export-vt " + path("vt.trace") + " --output-dir " + path("out"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out, "wrote 2 vt LB data files");
  r = vela_lb("trace import-vt " + path("out/data.0.json") + " " + path("out/data.1.json") +
              " -o " + path("back.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  vela::testing::expect_same_trace(vela::lb::read_trace(path("back.json")), trace);
}

TEST_F(VelaLbTrace, BadInputIsReportedWithTheFileOrTheFlag) {
  std::ofstream(path("junk.trace")) << "hello";
  Result r = vela_lb("trace info " + path("junk.trace"));
  EXPECT_EQ(r.status, 1);
  EXPECT_MENTIONS(r.out, "vela-lb: error: " + path("junk.trace") + ": not a vela trace");
  r = vela_lb("trace generate --drift-rate 2 -o " + path("x.trace"));
  EXPECT_EQ(r.status, 1);
  EXPECT_MENTIONS(r.out, "--drift-rate must be in [0, 1), got 2");
  r = vela_lb("trace generate --radiation-period 10 --radiation-offset 10 -o " + path("x.trace"));
  EXPECT_MENTIONS(r.out, "--radiation-offset must be in 0..9, got 10");
  r = vela_lb("trace generate --storm 1,2,3 -o " + path("x.trace"));
  EXPECT_MENTIONS(r.out, "--storm: expected CX,CY,RADIUS,FACTOR or CX,CY,RADIUS,FACTOR,VX,VY");
  r = vela_lb("trace generate --create-where sky -o " + path("x.trace"));
  EXPECT_NE(r.status, 0);
  EXPECT_MENTIONS(r.out, "--create-where");
  r = vela_lb("trace generate --steps 3");
  EXPECT_NE(r.status, 0);
  EXPECT_MENTIONS(r.out, "--output is required");
  EXPECT_FALSE(std::filesystem::exists(path("x.trace")));
  r = vela_lb("trace import-vt " + path("none.json") + " -o " + path("x.trace"));
  EXPECT_EQ(r.status, 1);
  EXPECT_MENTIONS(r.out, "none.json: cannot open for reading");
}

TEST_F(VelaLbTrace, EverySubcommandHasHelp) {
  for (const char* command : {"generate", "info", "convert", "import-vt", "export-vt"}) {
    const Result r = vela_lb(std::string("trace ") + command + " --help");
    EXPECT_EQ(r.status, 0) << command << ": " << r.out;
    EXPECT_MENTIONS(r.out, "Usage:");
  }
  const Result r = vela_lb("trace generate --help");
  for (const char* flag : {"--storm", "--radiation-period", "--drift-fraction", "--create-rate",
                           "--delete-rate", "--create-where", "--format", "--seed"}) {
    EXPECT_MENTIONS(r.out, flag);
  }
}

}  // namespace
