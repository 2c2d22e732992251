#include "strategy_options.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

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

std::vector<double> parse_number_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string part = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    const std::optional<double> value = lb::parse_decimal(part);
    if (!value) {
      throw std::invalid_argument(option + ": '" + part + "' in '" + text +
                                  "' is not a plain decimal number (such as 2, 0.05 or 1e-3)");
    }
    values.push_back(*value);
    if (comma == std::string::npos) return values;
    begin = comma + 1;
  }
}

}  // namespace vela::tools
