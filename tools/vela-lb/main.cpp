// vela-lb: the load-balancing toolkit from the command line.
#include <fmt/core.h>

#include <exception>
#include <new>
#include <string>

#include "commands.hpp"
#include "option_rules.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "vela-lb: generate load-balancing instances, run strategies on them and compare them"};
  app.require_subcommand(1, 1);
  app.failure_message(CLI::FailureMessage::help);
  vela::tools::add_generate_command(app);
  vela::tools::add_run_command(app);
  vela::tools::add_compare_command(app);
  vela::tools::add_strategies_command(app);
  vela::tools::add_trace_command(app);
  vela::tools::add_replay_commands(app);
  vela::tools::add_report_command(app);
  vela::tools::add_simulate_command(app);
  vela::tools::apply_option_rules(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints its message (and the help) and gives its own code: 0 for --help, 105 to 115
    // for the kinds of bad input. Every bad input exits 1, as the README says.
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const std::bad_alloc&) {
    // The commands name the file or the request where they can; this names the command.
    std::string request = "vela-lb";
    for (int i = 1; i < argc; ++i) request += std::string(" ") + argv[i];
    fmt::print(stderr, "vela-lb: error: out of memory running '{}'\n", request);
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "vela-lb: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
