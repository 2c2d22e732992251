// vela-lb's options as a user types them: a repeatable option before the positional file, the
// exit status of every rejected input, and numbers that must be plain decimal.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/program.hpp"

namespace {

using Result = vela::testing::ProgramResult;

Result vela_lb(const std::string& args) {
  return vela::testing::run_program(VELA_LB_BINARY, args);
}

bool has(const Result& r, const std::string& text) {
  return r.out.find(text) != std::string::npos;
}

class VelaLbOptions : public vela::testing::ScratchDirTest {
 protected:
  std::string storm() {
    const std::string file = path("storm.json");
    if (!std::filesystem::exists(file)) {
      const Result r = vela_lb("generate brams --nx 16 --ny 16 --pes 8 -o " + file);
      EXPECT_EQ(r.status, 0) << r.out;
    }
    return file;
  }
  std::string trace() {
    const std::string file = path("t.trace");
    if (!std::filesystem::exists(file)) {
      const Result r = vela_lb("trace generate --nx 8 --ny 8 --pes 4 --steps 20 -o " + file);
      EXPECT_EQ(r.status, 0) << r.out;
    }
    return file;
  }
};

// ---- repeatable options take one value per occurrence (issue 15, finding 3)

TEST_F(VelaLbOptions, TheReadmeAndUserGuideExamplesWithAParameterBeforeTheFileRun) {
  const std::string in = storm();
  const std::string out = path("balanced.json");
  Result r = vela_lb("run --strategy refine --param tolerance=0.02 " + in + " -o " + out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_TRUE(has(r, "wrote:")) << r.out;

  r = vela_lb("compare -s greedy,refine -p refine:tolerance=0.02 " + in + " --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("strategy,", 0), 0u) << r.out;
  EXPECT_TRUE(has(r, "\ngreedy,")) << r.out;
  EXPECT_TRUE(has(r, "\nrefine,")) << r.out;
}

TEST_F(VelaLbOptions, ARepeatedParameterOptionCollectsEveryValue) {
  const std::string in = storm();
  // Both values reach the strategy: the second one, bad, is named.
  Result r = vela_lb("run -s metis --param imbalance=1.1 --param seed=3 " + in);
  EXPECT_EQ(r.status, 0) << r.out;
  r = vela_lb("run -s metis --param imbalance=1.1 --param seed=x " + in);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "metis: parameter 'seed' = 'x'")) << r.out;
  r = vela_lb("compare -s metis -p metis:imbalance=1.1 -p metis:seed=1.5 " + in);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "metis: parameter 'seed' = '1.5' must be an integer")) << r.out;
  // Two values after one --param: the second is not a parameter, so it is the input file, and
  // the first command line has two inputs.
  r = vela_lb("run -s metis --param imbalance=1.1 seed=3 " + in);
  EXPECT_EQ(r.status, 1) << r.out;
}

TEST_F(VelaLbOptions, PolicyAndPredictorParametersBeforeTheTraceRun) {
  const std::string t = trace();
  Result r =
      vela_lb("replay -P every=5 -P strategy=greedy --policy periodic " + t + " --strategy-time 0");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r, "policy:        periodic:every=5,strategy=greedy")) << r.out;
  r = vela_lb("replay --predictor median --predictor-param window=3 " + t + " --strategy-time 0");
  EXPECT_EQ(r.status, 0) << r.out;
  r = vela_lb("predict -p median:window=3 -p trend:window=4 " + t + " -f csv");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r, "\nmedian,")) << r.out;
  EXPECT_TRUE(has(r, "\ntrend,")) << r.out;
}

TEST_F(VelaLbOptions, AListOptionTakesItsValuesWithTheDelimiterOnly) {
  Result r = vela_lb("generate hetero --pes 4 --clusters 2 --speeds 1,0.5 -o " + path("h.json"));
  EXPECT_EQ(r.status, 0) << r.out;
  r = vela_lb("generate hetero --pes 4 --clusters 2 --speeds 1 0.5 -o " + path("h.json"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "unexpected argument '0.5'")) << r.out;
}

// ---- every rejected input exits 1, with CLI11's message (finding 8)

TEST_F(VelaLbOptions, OptionsThatCli11RejectsExitOneAndSayWhy) {
  const std::string in = storm();
  struct Case {
    std::string args;
    std::string says;
  };
  const Case cases[] = {
      {"run -s greedy --bogus " + in, "--bogus"},                           // extras (CLI11: 109)
      {"run " + in, "--strategy is required"},                              // required (106)
      {"compare --format xml " + in, "xml"},                                // validation (105)
      {"run -s greedy --repeat many " + in, "many"},                        // conversion
      {"run -s greedy --repeat 0 " + in, "--repeat"},                       // out of range (105)
      {"generate", "A subcommand is required"},                             // no sub-command
      {"", "A subcommand is required"},                                     // nothing at all
      {"frobnicate", "A subcommand is required"},                           // unknown sub-command
      {"generate brams --seed 1 --seed 2 -o " + path("x.json"), "--seed"},  // twice
  };
  for (const Case& c : cases) {
    const Result r = vela_lb(c.args);
    EXPECT_EQ(r.status, 1) << c.args << "\n" << r.out;
    EXPECT_TRUE(has(r, c.says)) << c.args << ": should say " << c.says << "\n" << r.out;
  }
}

TEST_F(VelaLbOptions, HelpStillExitsZero) {
  for (const std::string args : {"--help", "run --help", "generate brams --help", "trace -h"}) {
    const Result r = vela_lb(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
    EXPECT_TRUE(has(r, "Usage")) << args;
  }
}

// ---- numbers are plain decimal (finding 9)

TEST_F(VelaLbOptions, StrategyParametersArePlainDecimal) {
  const std::string in = storm();
  for (const std::string value :
       {"0x1p-3", "0x10", "' 0.1'", "'0.1 '", "inf", "nan", "-inf", "1e999", "+0.1", "1,5"}) {
    const Result r = vela_lb("run -s refine --param tolerance=" + value + " " + in);
    EXPECT_EQ(r.status, 1) << value << "\n" << r.out;
    EXPECT_TRUE(has(r, "is not a plain decimal number")) << value << "\n" << r.out;
  }
  Result r = vela_lb("run -s hilbert --param bits=0x10 " + in);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "hilbert: parameter 'bits' = '0x10' is not a plain decimal number")) << r.out;
  for (const std::string value : {"0.1", ".1", "1e-1", "1E-1", "0.10", "10e-2"}) {
    r = vela_lb("run -s refine --param tolerance=" + value + " " + in);
    EXPECT_EQ(r.status, 0) << value << "\n" << r.out;
  }
  r = vela_lb("run -s hilbert --param bits=16 " + in);
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(VelaLbOptions, PolicyAndPredictorParametersArePlainDecimal) {
  const std::string t = trace();
  Result r = vela_lb("replay --policy periodic -P every=0x10 " + t);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "periodic: parameter 'every' = '0x10' is not a plain decimal number"))
      << r.out;
  r = vela_lb("replay --compare 'periodic:every= 10' " + t);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "' 10' is not a plain decimal number")) << r.out;
  r = vela_lb("predict -p median:window=0x3 " + t);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r, "median: parameter 'window' = '0x3' is not a plain decimal number")) << r.out;
  r = vela_lb("replay --predictor trend --predictor-param window=inf " + t);
  EXPECT_EQ(r.status, 1) << r.out;
}

TEST_F(VelaLbOptions, SeedsAreNonNegativeWholeNumbers) {
  for (const std::string command : {"generate brams", "generate gamma", "trace generate"}) {
    const std::string out = path(command.starts_with("trace") ? "s.trace" : "s.json");
    for (const std::string seed : {"-1", "0x10", "010", "' 7'", "1.5", "1e3", "+3"}) {
      const Result r = vela_lb(command + " --seed " + seed + " -o " + out);
      EXPECT_EQ(r.status, 1) << command << " --seed " << seed << "\n" << r.out;
      EXPECT_TRUE(has(r, "expected a whole number >= 0 in plain decimal"))
          << command << " --seed " << seed << "\n"
          << r.out;
    }
  }
  const Result r = vela_lb("generate gamma --objects 10 --pes 2 --seed 18446744073709551615 -o " +
                           path("s.json"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r, "seed 18446744073709551615")) << r.out;
  EXPECT_EQ(vela_lb("generate gamma --seed 18446744073709551616 -o " + path("s.json")).status, 1);
}

TEST_F(VelaLbOptions, NumericOptionsArePlainDecimal) {
  const std::string out = path("x.json");
  struct Case {
    std::string args;
    std::string says;
  };
  const Case cases[] = {
      {"generate brams --nx 0x10 -o " + out, "--nx: expected a whole number in plain decimal"},
      {"generate brams --nx 010 -o " + out, "got '010'"},
      {"generate brams --pes 0x4 -o " + out, "expected a whole number in plain decimal"},
      {"generate brams --noise inf -o " + out, "expected a finite number in plain decimal"},
      {"generate brams --noise nan -o " + out, "got 'nan'"},
      {"generate brams --noise 0x1p-3 -o " + out, "got '0x1p-3'"},
      {"generate brams --noise ' 0.1' -o " + out, "got ' 0.1'"},
      {"generate hetero --pes 4 --speeds 1,inf -o " + out, "got 'inf'"},
      {"generate brams --storm 0x10,10,5,2 -o " + out, "'0x10' in '0x10,10,5,2'"},
      {"generate brams --storm '10, 10,5,2' -o " + out, "' 10' in"},
      {"trace generate --steps 0x10 -o " + path("x.trace"), "got '0x10'"},
      {"trace generate --drift-rate 1e-1x -o " + path("x.trace"), "got '1e-1x'"},
      {"run -s greedy --startup 0x1p-3 " + storm(), "--startup"},
      {"run -s greedy --per-byte inf " + storm(), "--per-byte"},
      {"run -s greedy --repeat 0x2 " + storm(), "--repeat"},
      {"replay --startup nan " + trace(), "--startup"},
      {"replay --strategy-time 0x1 " + trace(), "--strategy-time"},
      {"replay --strategy-time greedy=inf " + trace(), "--strategy-time"},
  };
  for (const Case& c : cases) {
    const Result r = vela_lb(c.args);
    EXPECT_EQ(r.status, 1) << c.args << "\n" << r.out;
    EXPECT_TRUE(has(r, c.says)) << c.args << ": should say " << c.says << "\n" << r.out;
  }
  // Plain decimal in every form a user writes.
  EXPECT_EQ(vela_lb("generate brams --nx 16 --ny 8 --pes 4 --noise .1 --base-load 2e-1 "
                    "--storm 4,4,2.5,3 -o " +
                    out)
                .status,
            0);
  EXPECT_EQ(vela_lb("run -s greedy --startup 1e-5 --per-byte 0 --repeat 2 " + storm()).status, 0);
}

}  // namespace
