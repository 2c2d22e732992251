// The commands about when to balance, added together by add_replay_commands (commands.hpp):
// replay (replay_command.cpp), predict and policies (predict_command.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace vela::tools {

void add_predict_command(CLI::App& app);
void add_policies_command(CLI::App& app);

// Accepts a finite number >= 0 and says so when the value is something else.
CLI::Validator non_negative_seconds();

}  // namespace vela::tools
