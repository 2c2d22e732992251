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

}  // namespace vela::tools
