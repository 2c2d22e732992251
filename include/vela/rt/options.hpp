// Runtime options, parsed once with the application's own (CLI11), so `--help` lists both.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "vela/lb/params.hpp"

namespace vela::rt {

struct Options {
  int pes = 0;                         // 0: one per available core
  bool pin = true;                     // bind each PE's thread to a core (hwloc)
  std::string lb;                      // strategy name; empty: no balancing at sync points
  int lb_period = 1;                   // balance at every K-th at_sync() of a collection
  std::vector<std::string> lb_params;  // strategy parameters, "key=value"
  std::string trace;                   // Chrome trace file to write, empty: none
  double lb_interval = 0.0;  // seconds between balancing of collections balanced periodically
  std::string lb_dump;       // directory for one instance file per LB step, empty: none
  bool measure_cpu = false;  // charge entry methods by thread CPU time (else wall time)
  bool instrument = true;    // measure entry methods and communication (balancing needs it)
};

// Adds --pes, --no-pin, --lb, --lb-period, --lb-param, --trace, --lb-dump, --lb-cpu-time and
// --no-instrument to
// `app`, writing into `options`; values are checked as they are parsed (an unknown strategy or a
// malformed parameter is an error naming the option).
void add_runtime_options(CLI::App& app, Options& options);

// Checks options set from code the way the command line checks them; throws
// std::invalid_argument naming the option.
void validate(const Options& options);

}  // namespace vela::rt
