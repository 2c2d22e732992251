// vela-lb strategies: what is registered and which parameters each takes.
#include <fmt/core.h>

#include "commands.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::tools {

void add_strategies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("strategies", "List the strategies and their parameters");
  cmd->callback([] {
    for (const lb::StrategyInfo& info : lb::strategies()) {
      fmt::print("{:<16} {}\n", info.name, info.summary);
      for (const lb::ParamSpec& p : info.params) {
        if (p.is_text()) {
          fmt::print("{:<18} {}={} ({}; one of {})\n", "", p.name, p.default_text, p.help,
                     lb::join_choices(p.choices()));
        } else {
          fmt::print("{:<18} {}={} ({}, range [{}, {}]{})\n", "", p.name, p.default_value, p.help,
                     p.min, p.max, p.integer ? ", integer" : "");
        }
      }
    }
  });
}

}  // namespace vela::tools
