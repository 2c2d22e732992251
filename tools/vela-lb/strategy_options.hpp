// Parsing of the strategy parameters and other structured values given on the command line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vela/lb/model/params.hpp"

namespace vela::tools {

// "k=v" settings for one strategy.
lb::RawParams parse_params(const std::vector<std::string>& settings);

// "strategy:k=v" settings for several strategies, by strategy name; every named strategy
// must be one of `chosen`.
std::map<std::string, lb::RawParams> parse_scoped_params(const std::vector<std::string>& settings,
                                                         const std::vector<std::string>& chosen);

// "a,b,c" as plain decimal numbers (lb::parse_decimal), for option `option` (e.g. "--storm");
// throws std::invalid_argument naming the option, the text and the part that is not a number.
// A trailing comma is an empty part.
std::vector<double> parse_number_list(const std::string& option, const std::string& text);

// A policy as --compare names it: "NAME" or "NAME:key=value,key=value". Throws
// std::invalid_argument or lb::ParamError naming `option` and the text.
struct PolicySpec {
  std::string name;
  lb::RawParams params;
};
PolicySpec parse_policy_spec(const std::string& option, const std::string& spec);

// The policies a command runs: --policy NAME with its -P key=value settings ("never" when no
// name is given), or each --compare spec; each labelled as the user wrote it. Throws
// std::invalid_argument for --policy or -P given with --compare, lb::ParamError for a malformed
// setting.
struct LabeledPolicy {
  std::string label;
  std::string name;
  lb::RawParams params;
};
std::vector<LabeledPolicy> policies_to_run(const std::string& policy,
                                           const std::vector<std::string>& settings,
                                           const std::vector<std::string>& compare);

// The strategy times of --strategy-time: each value "measured" (wall time), SECONDS (every
// strategy) or STRATEGY=SECONDS (that one; the strategy must exist); later values win.
struct StrategyTimes {
  std::optional<double> all;  // unset: measured
  std::map<std::string, double> by_name;
};
StrategyTimes parse_strategy_times(const std::vector<std::string>& values);

}  // namespace vela::tools
