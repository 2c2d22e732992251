// The commands about when to balance, added together by add_replay_commands (commands.hpp):
// replay (replay_command.cpp), predict and policies (predict_command.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace vela::tools {

void add_predict_command(CLI::App& app);
void add_policies_command(CLI::App& app);

}  // namespace vela::tools
