// Parsing of the strategy parameters given on the command line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vela/lb/params.hpp"

namespace vela::tools {

// "k=v" settings for one strategy.
lb::RawParams parse_params(const std::vector<std::string>& settings);

// "strategy:k=v" settings for several strategies, by strategy name; every named strategy
// must be one of `chosen`.
std::map<std::string, lb::RawParams> parse_scoped_params(const std::vector<std::string>& settings,
                                                         const std::vector<std::string>& chosen);

}  // namespace vela::tools
