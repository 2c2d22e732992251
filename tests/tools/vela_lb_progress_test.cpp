// vela-lb's progress line on a real terminal (a tmux pane): drawn in place while a replay runs,
// ended before the shell's prompt, and absent with --quiet or when stderr is not a terminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "support/tmux.hpp"

namespace {

using vela::testing::pane_lines;
using vela::testing::PaneRun;
using vela::testing::TmuxPane;

namespace fs = std::filesystem;

// A replay that balances with METIS after every step: tens of milliseconds per step.
std::string replay(const std::string& trace) {
  return std::string(VELA_LB_BINARY) + " replay " + trace +
         " --policy periodic -P every=1 -P strategy=metis --strategy-time 0.1";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count_containing(const std::string& pane, const std::string& part) {
  const std::vector<std::string> lines = pane_lines(pane);
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != l.npos; }));
}

class VelaLbProgress : public ::testing::Test {
 protected:
  // The traces, sized on this machine so that the runs with a line take about 4 s and the
  // silent ones about 2 s: long enough to pass the line's one-second delay, short enough for
  // the suite.
  static void SetUpTestSuite() {
    if (!TmuxPane::available()) return;
    dir_ = fs::temp_directory_path() / ("vela_progress_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const std::string probe = generate(30);
    const auto start = std::chrono::steady_clock::now();
    vela::testing::run_command(replay(probe) + " >/dev/null 2>&1");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double per_second = 30.0 / std::max(seconds, 1e-3);
    long_steps_ = std::clamp(static_cast<int>(std::lround(4.0 * per_second)), 60, 5000);
    long_trace_ = generate(long_steps_);
    short_trace_ = generate(std::max(30, long_steps_ / 2));
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  void SetUp() override {
    if (!TmuxPane::available()) {
      GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it): the progress "
                      "line is checked on a tmux pane";
    }
  }

  static std::string generate(int steps) {
    const std::string path = (dir_ / ("s" + std::to_string(steps) + ".trace")).string();
    const auto r = vela::testing::run_program(
        VELA_LB_BINARY, "trace generate --steps " + std::to_string(steps) + " -o " + path);
    EXPECT_EQ(r.status, 0) << r.out;
    return path;
  }

  static inline fs::path dir_;
  static inline int long_steps_ = 0;
  static inline std::string long_trace_, short_trace_;
};

TEST_F(VelaLbProgress, DrawsOneLineInPlaceAndEndsItBeforeThePrompt) {
  TmuxPane pane;
  const std::string n = std::to_string(long_steps_);
  // stdout to a file: the progress line is all the command writes on the terminal.
  const PaneRun r =
      pane.run(replay(long_trace_) + " > " + (dir_ / "out.txt").string(), std::chrono::seconds(60));
  ASSERT_TRUE(r.finished) << "the prompt did not come back on a line of its own:\n" << r.final_pane;

  // While it runs: one line, "replay: D/N steps (P%)  R steps/s  T left", P = floor(100 D / N).
  const std::regex running("replay: (\\d+)/" + n +
                           " steps \\((\\d+)%\\)  \\d+(\\.\\d+)? steps/s  "
                           "(\\d+\\.\\d s|\\d+ s|\\d+m\\d\\ds|\\d+h\\d\\dm) left");
  int seen = 0;
  long last_done = -1;
  for (const std::string& capture : r.captures) {
    EXPECT_LE(count_containing(capture, "steps/s"), 1u) << "drawn in place, not line after line:\n"
                                                        << capture;
    for (const std::string& line : pane_lines(capture)) {
      std::smatch m;
      if (!std::regex_match(line, m, running)) continue;
      ++seen;
      const long done = std::stol(m[1]);
      EXPECT_LT(done, long_steps_);
      EXPECT_EQ(std::stol(m[2]), done * 100 / long_steps_) << line;
      EXPECT_GE(done, last_done) << "progress never goes back";
      last_done = done;
    }
  }
  EXPECT_GE(seen, 1) << "no progress line was seen in " << r.captures.size() << " captures over "
                     << r.seconds << " s; last:\n"
                     << (r.captures.empty() ? "" : r.captures.back());

  // At the end: the complete line, then the prompt on the next line.
  const std::vector<std::string> lines = pane_lines(r.final_pane);
  ASSERT_GE(lines.size(), 2u);
  const std::regex done("replay: " + n + "/" + n +
                        " steps \\(100%\\)  \\d+(\\.\\d+)? steps/s  done in \\S+( s)?");
  EXPECT_TRUE(std::regex_match(lines[lines.size() - 2], done))
      << "expected the finished line just above the prompt:\n"
      << r.final_pane;
  EXPECT_EQ(lines.back(), TmuxPane::prompt);
  EXPECT_EQ(count_containing(r.final_pane, "steps/s"), 1u) << r.final_pane;
  EXPECT_NE(slurp(dir_ / "out.txt").find("policy:        periodic"), std::string::npos)
      << "the replay's results go to stdout as before";
}

TEST_F(VelaLbProgress, QuietDrawsNothing) {
  TmuxPane pane;
  const PaneRun r = pane.run(replay(short_trace_) + " --quiet > " + (dir_ / "quiet.txt").string(),
                             std::chrono::seconds(60));
  ASSERT_TRUE(r.finished) << r.final_pane;
  for (const std::string& capture : r.captures) {
    EXPECT_EQ(count_containing(capture, "steps/s"), 0u) << capture;
  }
  EXPECT_EQ(count_containing(r.final_pane, "replay:"), 0u) << r.final_pane;
  EXPECT_GT(r.seconds, 1.0) << "too short a run to show that --quiet silenced the line";
}

TEST_F(VelaLbProgress, NothingWhenStderrIsNotATerminal) {
  TmuxPane pane;
  const fs::path err = dir_ / "err.txt";
  const PaneRun r =
      pane.run(replay(short_trace_) + " > " + (dir_ / "out2.txt").string() + " 2> " + err.string(),
               std::chrono::seconds(60));
  ASSERT_TRUE(r.finished) << r.final_pane;
  for (const std::string& capture : r.captures) {
    EXPECT_EQ(count_containing(capture, "steps/s"), 0u) << capture;
  }
  const std::string written = slurp(err);
  EXPECT_EQ(written.find("steps/s"), std::string::npos) << written;
  EXPECT_EQ(written.find('\r'), std::string::npos) << written;
  EXPECT_GT(r.seconds, 1.0) << "too short a run to show that the line stays off a file";
}

}  // namespace
