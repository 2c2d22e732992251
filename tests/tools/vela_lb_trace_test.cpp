// vela-lb trace ...: the commands a user types, their output and their errors.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lb/trace/trace_support.hpp"
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

// Issue 15, finding 1: a step without loads (every object deleted) made the binary reader hand
// memcpy a null pointer.
TEST_F(VelaLbTrace, InfoOfATraceWhoseObjectsAllGo) {
  Result r = vela_lb("trace generate --nx 4 --ny 4 --pes 4 --steps 5 --delete-rate 100 -o " +
                     path("gone.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  r = vela_lb("trace info " + path("gone.trace"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_MENTIONS(r.out,
                  "objects: 16 initially, 0 at the end, 0 to 16 alive; 0 created, 16 deleted");
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
}

// Issue 15, finding 4: such a file gave "-nan%" and exit status 0.
TEST_F(VelaLbTrace, InfoRejectsLoadsWhoseSumOverflows) {
  std::ofstream(path("huge.json")) << R"({"format": "vela-trace", "version": 1,
    "initial": {"format": "vela-instance", "version": 1, "dims": 0,
      "pes": {"speed": [1, 1], "background": [0, 0], "cluster": [0, 0]},
      "objects": {"id": [1, 2], "load": [1, 1], "size": [0, 0], "pe": [0, 1],
                  "migratable": [true, true]},
      "edges": {"from": [], "to": [], "messages": [], "bytes": []}},
    "steps": [{"loads": [1e308, 1e308]}]})";
  const Result r = vela_lb("trace info " + path("huge.json"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(r.out, "vela-lb: error: " + path("huge.json") +
                             ": step 0: loads[1]: the total time is not finite");
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
}

// Issue 15, finding 7: outputs never replace an input, whatever the spelling of its path.
TEST_F(VelaLbTrace, OutputsNeverReplaceAnInput) {
  std::filesystem::create_directories(path("vt"));
  for (const char* name : {"data.0.json", "data.1.json"}) {
    std::filesystem::copy_file(vt_fixture / name, path("vt/") + name);
  }
  const std::string before = slurp(path("vt/data.0.json"));
  Result r = vela_lb("trace import-vt " + path("vt") + " -o " + path("vt/../vt/data.0.json"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(
      r.out, "is the input " + path("vt/data.0.json") + "; writing it would replace the input");
  EXPECT_EQ(slurp(path("vt/data.0.json")), before);

  // A trace named data.0.json, exported into its own directory.
  ASSERT_EQ(vela_lb("trace import-vt " + path("vt") + " -o " + path("t.json")).status, 0);
  std::filesystem::create_directories(path("out"));
  std::filesystem::copy_file(path("t.json"), path("out/data.0.json"));
  r = vela_lb("trace export-vt " + path("out/data.0.json") + " --output-dir " + path("out"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(r.out, "which the export would replace; export into another directory");
  EXPECT_EQ(slurp(path("out/data.0.json")), slurp(path("t.json")));
  EXPECT_FALSE(std::filesystem::exists(path("out/data.1.json")));

  r = vela_lb("trace convert " + path("t.json") + " " + path("./t.json") + " --format binary");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(r.out, "writing it would replace the input");
  EXPECT_EQ(slurp(path("t.json")), slurp(path("out/data.0.json")));
}

// Issue 15, finding 10: a huge request ran until killed; /dev/zero grew to 7 GB.
TEST_F(VelaLbTrace, HugeRequestsAndEndlessInputsEndAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  Result r = vela_lb("trace generate --nx 10000 --ny 10000 --steps 1000 -o " + path("x.trace"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(r.out,
                  "the trace's size ((--steps + 1) x --nx x --ny, plus what --create-rate "
                  "adds) must be at most 268435456 loads");
  r = vela_lb("trace generate --pes 100000000 -o " + path("x.trace"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_MENTIONS(r.out, "--pes must be in 1..16777216");
  EXPECT_FALSE(std::filesystem::exists(path("x.trace")));
  r = vela_lb("trace generate --help");
  EXPECT_MENTIONS(r.out, "268435456");
  if (std::filesystem::exists("/dev/zero")) {
    r = vela_lb("trace info /dev/zero");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_MENTIONS(r.out, "vela-lb: error: /dev/zero: not a vela trace");
    r = vela_lb("trace import-vt /dev/zero -o " + path("x.trace"));
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_MENTIONS(r.out, "vela-lb: error: /dev/zero: not a vt LB data file");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
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
