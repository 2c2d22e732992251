#include "vela/lb/params.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace vela::lb {

void parse_param(const std::string& text, RawParams& into) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw ParamError("parameter '" + text + "': expected key=value");
  }
  std::string key = text.substr(0, eq);
  if (into.count(key) != 0) throw ParamError("parameter '" + key + "' is given twice");
  into.emplace(std::move(key), text.substr(eq + 1));
}

namespace {

std::string known_names(const std::vector<ParamSpec>& specs) {
  if (specs.empty()) return "it takes no parameters";
  std::string names = "known: ";
  for (std::size_t i = 0; i < specs.size(); ++i) names += (i ? ", " : "") + specs[i].name;
  return names;
}

std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

ParamValues::ParamValues(const std::string& owner, const std::vector<ParamSpec>& specs,
                         const RawParams& raw) {
  for (const auto& [key, text] : raw) {
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& s : specs) {
      if (s.name == key) spec = &s;
    }
    if (spec == nullptr) {
      throw ParamError(owner + ": unknown parameter '" + key + "' (" + known_names(specs) + ")");
    }
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(value)) {
      throw ParamError(owner + ": parameter '" + key + "' = '" + text + "' is not a number");
    }
    if (spec->integer && std::floor(value) != value) {
      throw ParamError(owner + ": parameter '" + key + "' = '" + text + "' must be an integer");
    }
    if (value < spec->min || value > spec->max) {
      throw ParamError(owner + ": parameter '" + key + "' = " + text + " is out of range [" +
                       format_number(spec->min) + ", " + format_number(spec->max) + "]");
    }
    values_[key] = value;
  }
  for (const ParamSpec& s : specs) values_.try_emplace(s.name, s.default_value);
}

double ParamValues::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw ParamError("no parameter named '" + name + "'");
  return it->second;
}

}  // namespace vela::lb
