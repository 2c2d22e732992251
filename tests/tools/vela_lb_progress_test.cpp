// vela-lb's progress line on a real terminal (a tmux pane): drawn in place while a replay runs,
// ended before the shell's prompt, and absent with --quiet or when stderr is not a terminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "support/progress_pane.hpp"
#include "support/tmux.hpp"

namespace {

using vela::testing::expect_finished_line;
using vela::testing::expect_no_line;
using vela::testing::expect_running_lines;
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

  // Runs command(trace) on a pane with the short trace. A silent run must outlast the line's
  // one-second delay to show anything; the calibration may have run on a busier machine than
  // the run, so a run that ended too soon is repeated with a trace twice as long (at most
  // three times). The runs that ended too soon must draw no line either.
  template <class Command>
  static PaneRun silent_run(Command command) {
    std::string trace = short_trace_;
    int steps = std::max(30, long_steps_ / 2);
    PaneRun r;
    for (int attempt = 0; attempt < 4; ++attempt) {
      TmuxPane pane;
      r = pane.run(command(trace), std::chrono::seconds(60));
      if (r.seconds > 1.0 || attempt == 3) break;
      expect_no_line(r, "replay", "steps");
      steps *= 2;
      trace = generate(steps);
    }
    return r;
  }

  static inline fs::path dir_;
  static inline int long_steps_ = 0;
  static inline std::string long_trace_, short_trace_;
};

TEST_F(VelaLbProgress, DrawsOneLineInPlaceAndEndsItBeforeThePrompt) {
  TmuxPane pane;
  // stdout to a file: the progress line is all the command writes on the terminal.
  const PaneRun r =
      pane.run(replay(long_trace_) + " > " + (dir_ / "out.txt").string(), std::chrono::seconds(60));
  expect_running_lines(r, "replay", "steps", long_steps_);
  expect_finished_line(r, "replay", "steps", long_steps_);
  EXPECT_NE(slurp(dir_ / "out.txt").find("policy:        periodic"), std::string::npos)
      << "the replay's results go to stdout as before";
}

TEST_F(VelaLbProgress, QuietDrawsNothing) {
  const PaneRun r = silent_run([](const std::string& trace) {
    return replay(trace) + " --quiet > " + (dir_ / "quiet.txt").string();
  });
  expect_no_line(r, "replay", "steps");
  EXPECT_GT(r.seconds, 1.0) << "too short a run to show that --quiet silenced the line";
}

TEST_F(VelaLbProgress, NothingWhenStderrIsNotATerminal) {
  const fs::path err = dir_ / "err.txt";
  const PaneRun r = silent_run([&](const std::string& trace) {
    return replay(trace) + " > " + (dir_ / "out2.txt").string() + " 2> " + err.string();
  });
  expect_no_line(r, "replay", "steps");
  const std::string written = slurp(err);
  EXPECT_EQ(written.find("steps/s"), std::string::npos) << written;
  EXPECT_EQ(written.find('\r'), std::string::npos) << written;
  EXPECT_GT(r.seconds, 1.0) << "too short a run to show that the line stays off a file";
}

}  // namespace
