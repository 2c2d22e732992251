// The sub-commands of vela-lb; each file adds one to the application.
#pragma once

#include <CLI/CLI.hpp>

namespace vela::tools {

// Each adds its sub-command; its callback throws on bad input, and main reports the error.
void add_generate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_strategies_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_replay_commands(CLI::App& app);  // replay, predict, policies
void add_report_command(CLI::App& app);
void add_simulate_command(CLI::App& app);  // simulate_command.cpp (SimGrid, vela/sim)

// --quiet of the commands that draw a progress line (vela/progress/reporter.hpp) on stderr
// while they work: trace generate, replay, compare.
inline void add_quiet_flag(CLI::App& command, bool& quiet) {
  command.add_flag("--quiet", quiet,
                   "No progress line on stderr (drawn only when stderr is a terminal and the "
                   "work takes more than a second)");
}

}  // namespace vela::tools
