#include "strategy_options.hpp"

#include <algorithm>

namespace vela::tools {

lb::RawParams parse_params(const std::vector<std::string>& settings) {
  lb::RawParams raw;
  for (const std::string& s : settings) lb::parse_param(s, raw);
  return raw;
}

std::map<std::string, lb::RawParams> parse_scoped_params(const std::vector<std::string>& settings,
                                                         const std::vector<std::string>& chosen) {
  std::map<std::string, lb::RawParams> by_strategy;
  for (const std::string& s : settings) {
    const auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0) {
      throw lb::ParamError("--param '" + s + "': expected STRATEGY:key=value");
    }
    const std::string name = s.substr(0, colon);
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) {
      throw lb::ParamError("--param '" + s + "': strategy '" + name +
                           "' is not among those compared");
    }
    lb::parse_param(s.substr(colon + 1), by_strategy[name]);
  }
  return by_strategy;
}

}  // namespace vela::tools
