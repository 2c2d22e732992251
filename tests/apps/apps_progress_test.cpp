// The applications' progress line on a real terminal (a tmux pane): Jacobi2D reports from a block
// that runs on any PE thread, BRAMS from rank 0's code; the line is drawn in place, ended before
// the prompt, and absent with --quiet.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "support/program.hpp"
#include "support/progress_pane.hpp"
#include "support/tmux.hpp"

namespace {

using vela::testing::PaneRun;
using vela::testing::TmuxPane;

const std::string jacobi2d_args = " --mesh 1024 --objects 8 --pes 2 --lb greedy --no-pin";
const std::string brams_args = " --ranks 8 --pes 2 --lb greedy --lb-every 20 --no-pin";

// Steps whose stepping loop takes about `seconds` on this machine, from the "time:" a run of
// `probe` steps prints (the loop alone: the start-up does not count); at least `least`.
int steps_for(double seconds, const std::string& binary, const std::string& args, int probe,
              int least) {
  const auto r = vela::testing::run_program(binary, args + " --steps " + std::to_string(probe));
  EXPECT_EQ(r.status, 0) << r.out;
  const auto at = r.out.find("\ntime: ");
  EXPECT_NE(at, std::string::npos) << r.out;
  const double took = at == std::string::npos ? 1.0 : std::stod(r.out.substr(at + 7));
  return std::max(least, static_cast<int>(std::lround(seconds * probe / std::max(took, 1e-3))));
}

class AppsProgress : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TmuxPane::available()) {
      GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it): the progress "
                      "line is checked on a tmux pane";
    }
  }
};

TEST_F(AppsProgress, Jacobi2dDrawsItsStepsInPlace) {
  int steps = steps_for(2.5, JACOBI2D_BINARY, jacobi2d_args, 200, 100);
  const PaneRun r = vela::testing::run_at_least(2.5, steps, [](int n) {
    return std::string(JACOBI2D_BINARY) + jacobi2d_args + " --steps " + std::to_string(n) +
           " > /dev/null";
  });
  vela::testing::expect_running_lines(r, "jacobi2d", "steps", steps);
  vela::testing::expect_finished_line(r, "jacobi2d", "steps", steps);
}

TEST_F(AppsProgress, Jacobi2dQuietDrawsNothing) {
  int steps = steps_for(1.5, JACOBI2D_BINARY, jacobi2d_args, 200, 100);
  const PaneRun r = vela::testing::run_at_least(1.2, steps, [](int n) {
    return std::string(JACOBI2D_BINARY) + jacobi2d_args + " --steps " + std::to_string(n) +
           " --quiet > /dev/null";
  });
  vela::testing::expect_no_line(r, "jacobi2d", "steps");
  EXPECT_GT(r.seconds, 1.0) << "too short a run to show that --quiet silenced the line";
}

TEST_F(AppsProgress, BramsDrawsRankZerosStepsInPlace) {
  const int steps = steps_for(2.5, BRAMS_BINARY, brams_args, 30, 30);
  TmuxPane pane;
  const PaneRun r = pane.run(
      std::string(BRAMS_BINARY) + brams_args + " --steps " + std::to_string(steps) + " > /dev/null",
      std::chrono::seconds(60));
  vela::testing::expect_running_lines(r, "brams", "steps", steps);
  vela::testing::expect_finished_line(r, "brams", "steps", steps);
}

}  // namespace
