// A program run on a real terminal: a shell in a detached tmux pane, driven with send-keys and
// read with capture-pane, for what only a terminal shows (the progress line drawn in place).
#pragma once

#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/program.hpp"

namespace vela::testing {

// The pane's lines, each without trailing spaces, and without the blank lines below the last
// written one.
inline std::vector<std::string> pane_lines(const std::string& pane) {
  std::vector<std::string> lines;
  std::istringstream in(pane);
  for (std::string line; std::getline(in, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// What a command left on the pane: every capture taken while it ran and the last one.
struct PaneRun {
  std::vector<std::string> captures;
  std::string final_pane;
  double seconds = 0.0;
  bool finished = false;  // the prompt came back before the time limit
};

// One shell (bash, prompt "PROMPT>") in a pane of 200 x 50 on a tmux server of its own, so that
// a user's tmux is never touched; the server ends with the object.
class TmuxPane {
 public:
  static constexpr const char* prompt = "PROMPT>";

  static bool available() { return run_command("tmux -V 2>/dev/null").status == 0; }

  TmuxPane() {
    static int count = 0;
    socket_ = "vela-test-" + std::to_string(::getpid()) + "-" + std::to_string(count++);
    run_command(
        tmux() + "new-session -d -s test -x 200 -y 50 " +
        quote("env PS1='" + std::string(prompt) + " ' HISTFILE=/dev/null bash --norc --noprofile") +
        " 2>&1");
    wait_for_prompt(std::chrono::seconds(10));
  }
  ~TmuxPane() { run_command(tmux() + "kill-server 2>/dev/null"); }
  TmuxPane(const TmuxPane&) = delete;
  TmuxPane& operator=(const TmuxPane&) = delete;

  std::string capture() const { return run_command(tmux() + "capture-pane -p -t test").out; }

  // Types `command` and Enter, then captures the pane every 100 ms until the prompt is back
  // (on a line of its own, after the command's line) or `limit` has passed.
  PaneRun run(const std::string& command, std::chrono::seconds limit) {
    run_command(tmux() + "send-keys -t test -l " + quote(command));
    run_command(tmux() + "send-keys -t test Enter");
    const auto start = std::chrono::steady_clock::now();
    PaneRun r;
    while (std::chrono::steady_clock::now() - start < limit) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::string pane = capture();
      const std::vector<std::string> lines = pane_lines(pane);
      if (lines.size() >= 2 && lines.back() == prompt) {
        r.finished = true;
        r.final_pane = pane;
        break;
      }
      r.captures.push_back(pane);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.finished) r.final_pane = capture();
    return r;
  }

 private:
  std::string tmux() const { return "tmux -L " + socket_ + " "; }

  static std::string quote(const std::string& text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  }

  void wait_for_prompt(std::chrono::seconds limit) const {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < limit) {
      const std::vector<std::string> lines = pane_lines(capture());
      if (!lines.empty() && lines.back() == prompt) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::string socket_;
};

}  // namespace vela::testing
