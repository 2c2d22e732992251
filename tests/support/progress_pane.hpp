// Checks of the progress line (vela/progress/reporter.hpp) as a terminal shows it: read off a
// tmux pane (support/tmux.hpp) while a command ran and after it ended.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "support/tmux.hpp"

namespace vela::testing {

inline std::size_t count_lines_containing(const std::string& pane, const std::string& part) {
  const std::vector<std::string> lines = pane_lines(pane);
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != l.npos; }));
}

// While the command ran: one line at a time (redrawn in place, never one under another), each
// "LABEL: D/TOTAL UNIT (P%)  R UNIT/s  T left" with D < TOTAL, P = floor(100 D / TOTAL) and D
// never going back; at least one seen.
inline void expect_running_lines(const PaneRun& r, const std::string& label,
                                 const std::string& unit, long total) {
  const std::regex running(label + ": (\\d+)/" + std::to_string(total) + " " + unit +
                           " \\((\\d+)%\\)  \\d+(\\.\\d+)? " + unit +
                           "/s  (\\d+\\.\\d s|\\d+ s|\\d+m\\d\\ds|\\d+h\\d\\dm) left");
  int seen = 0;
  long last_done = -1;
  for (const std::string& capture : r.captures) {
    EXPECT_LE(count_lines_containing(capture, unit + "/s"), 1u)
        << "drawn in place, not line after line:\n"
        << capture;
    for (const std::string& line : pane_lines(capture)) {
      std::smatch m;
      if (!std::regex_match(line, m, running)) continue;
      ++seen;
      const long done = std::stol(m[1]);
      EXPECT_LT(done, total) << line;
      EXPECT_EQ(std::stol(m[2]), done * 100 / total) << line;
      EXPECT_GE(done, last_done) << "progress never goes back: " << line;
      last_done = done;
    }
  }
  EXPECT_GE(seen, 1) << "no progress line of '" << label << "' in " << r.captures.size()
                     << " captures over " << r.seconds << " s; the last:\n"
                     << (r.captures.empty() ? "" : r.captures.back());
}

// At the end: the complete line ("LABEL: TOTAL/TOTAL UNIT (100%)  R UNIT/s  done in T") just
// above the prompt, which has a line of its own, and no other progress line.
inline void expect_finished_line(const PaneRun& r, const std::string& label,
                                 const std::string& unit, long total) {
  ASSERT_TRUE(r.finished) << "the prompt did not come back on a line of its own:\n" << r.final_pane;
  const std::vector<std::string> lines = pane_lines(r.final_pane);
  ASSERT_GE(lines.size(), 2u) << r.final_pane;
  const std::string n = std::to_string(total);
  const std::regex done(label + ": " + n + "/" + n + " " + unit + " \\(100%\\)  \\d+(\\.\\d+)? " +
                        unit + "/s  done in \\S+( s)?");
  EXPECT_TRUE(std::regex_match(lines[lines.size() - 2], done))
      << "expected the finished line just above the prompt:\n"
      << r.final_pane;
  EXPECT_EQ(lines.back(), TmuxPane::prompt);
  EXPECT_EQ(count_lines_containing(r.final_pane, unit + "/s"), 1u) << r.final_pane;
}

// Runs command(steps) on a fresh pane, doubling `steps` (three times at most) while a run ends
// within `seconds`: a run must outlast the line's one-second delay, on a fast or a busy machine.
inline PaneRun run_at_least(double seconds, int& steps,
                            const std::function<std::string(int)>& command) {
  for (int attempt = 0;; ++attempt, steps *= 2) {
    TmuxPane pane;
    PaneRun r = pane.run(command(steps), std::chrono::seconds(60));
    if (r.seconds >= seconds || !r.finished || attempt == 3) return r;
  }
}

// No progress line at any time.
inline void expect_no_line(const PaneRun& r, const std::string& label, const std::string& unit) {
  ASSERT_TRUE(r.finished) << r.final_pane;
  for (const std::string& capture : r.captures) {
    EXPECT_EQ(count_lines_containing(capture, unit + "/s"), 0u) << capture;
  }
  EXPECT_EQ(count_lines_containing(r.final_pane, label + ":"), 0u) << r.final_pane;
}

}  // namespace vela::testing
