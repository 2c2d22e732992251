// Parsing of the strategy parameters and other structured values given on the command line.
#pragma once

#include <map>
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

}  // namespace vela::tools
