// Named numeric parameters of strategies (and later policies), validated against a spec.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vela::lb {

struct ParamSpec {
  std::string name;
  std::string help;
  double default_value = 0.0;
  double min = 0.0;
  double max = 0.0;
  bool integer = false;
};

class ParamError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Raw "key=value" settings as a user gave them.
using RawParams = std::map<std::string, std::string>;

// Parses one "key=value" string into `into`; throws ParamError on a malformed or repeated key.
void parse_param(const std::string& text, RawParams& into);

// Resolved values: every spec'd parameter present (default when not given), in range.
class ParamValues {
 public:
  ParamValues() = default;
  // Throws ParamError naming `owner` for an unknown key, a non-number, a non-integer where an
  // integer is expected, or a value outside [min, max].
  ParamValues(const std::string& owner, const std::vector<ParamSpec>& specs, const RawParams& raw);

  double get(const std::string& name) const;
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

}  // namespace vela::lb
