// Named parameters of strategies (and later policies), validated against a spec: numbers with a
// range, or text chosen from a list (such as the name of another strategy).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vela::lb {

struct ParamSpec {
  std::string name;
  std::string help;
  double default_value = 0.0;
  double min = 0.0;
  double max = 0.0;
  bool integer = false;
  // Set only for a text parameter (see text_param()); then the numeric fields are unused. The
  // trailing members have initializers so that numeric specs may leave them out.
  std::string default_text{};
  std::function<std::vector<std::string>()> choices{};

  bool is_text() const { return static_cast<bool>(choices); }
};

// A parameter whose value must be one of `choices()`, `default_text` when not given. The
// choices are computed when a value is checked, so they may list what is registered by then.
ParamSpec text_param(std::string name, std::string help, std::string default_text,
                     std::function<std::vector<std::string>()> choices);
ParamSpec text_param(std::string name, std::string help, std::string default_text,
                     std::vector<std::string> choices);

class ParamError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `text` as a plain decimal number: an optional '-', digits with an optional fraction, an
// optional exponent (3, -2.5, .5, 4., 1e-3, 2E+6). Nothing else: no hex (0x1p-3), no '+' sign,
// no spaces before or after, no inf or nan, and not a number too large for a double (1e999).
// nullopt when `text` is not such a number. Numbers a user types (parameters, the command
// line's numeric options) are read this way, so that they mean the same everywhere.
std::optional<double> parse_decimal(std::string_view text);

// `text` as a plain decimal integer >= 0 that fits in 64 bits: digits only, no sign, no leading
// zero ("010" could be read as octal), no spaces. nullopt otherwise.
std::optional<std::uint64_t> parse_decimal_unsigned(std::string_view text);

// Raw "key=value" settings as a user gave them.
using RawParams = std::map<std::string, std::string>;

// Parses one "key=value" string into `into`; throws ParamError on a malformed or repeated key.
void parse_param(const std::string& text, RawParams& into);

// Resolved values: every spec'd parameter present (default when not given), numbers in range,
// text among its choices.
class ParamValues {
 public:
  ParamValues() = default;
  // Throws ParamError naming `owner` for an unknown key, a non-number, a non-integer where an
  // integer is expected, a value outside [min, max], or text that is not one of the choices.
  ParamValues(const std::string& owner, const std::vector<ParamSpec>& specs, const RawParams& raw);

  // A numeric parameter's value; throws ParamError for an unknown or a text parameter.
  double get(const std::string& name) const;
  // A text parameter's value; throws ParamError for an unknown or a numeric parameter.
  const std::string& text(const std::string& name) const;

  const std::map<std::string, double>& all() const { return values_; }
  const std::map<std::string, std::string>& texts() const { return texts_; }

 private:
  std::string owner_;
  std::map<std::string, double> values_;
  std::map<std::string, std::string> texts_;
};

// "a, b, c": how errors and listings show a text parameter's choices.
std::string join_choices(const std::vector<std::string>& choices);

}  // namespace vela::lb
