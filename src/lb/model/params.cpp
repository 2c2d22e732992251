#include "vela/lb/model/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <system_error>
#include <utility>

namespace vela::lb {

ParamSpec text_param(std::string name, std::string help, std::string default_text,
                     std::function<std::vector<std::string>()> choices) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.help = std::move(help);
  spec.default_text = std::move(default_text);
  spec.choices = std::move(choices);
  return spec;
}

ParamSpec text_param(std::string name, std::string help, std::string default_text,
                     std::vector<std::string> choices) {
  return text_param(std::move(name), std::move(help), std::move(default_text),
                    [list = std::move(choices)] { return list; });
}

std::string join_choices(const std::vector<std::string>& choices) {
  std::string joined;
  for (std::size_t i = 0; i < choices.size(); ++i) joined += (i ? ", " : "") + choices[i];
  return joined;
}

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Advances `at` over digits; returns how many.
std::size_t skip_digits(std::string_view text, std::size_t& at) {
  const std::size_t from = at;
  while (at < text.size() && is_digit(text[at])) ++at;
  return at - from;
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text) {
  // The grammar first: std::from_chars alone would also take "inf", "nan" and a prefix.
  std::size_t at = 0;
  if (at < text.size() && text[at] == '-') ++at;
  std::size_t digits = skip_digits(text, at);
  if (at < text.size() && text[at] == '.') {
    ++at;
    digits += skip_digits(text, at);
  }
  if (digits == 0) return std::nullopt;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (skip_digits(text, at) == 0) return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;  // beyond a double's range
  }
  return value;
}

std::optional<std::uint64_t> parse_decimal_unsigned(std::string_view text) {
  std::size_t at = 0;
  if (skip_digits(text, at) == 0 || at != text.size()) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

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

double parse_number(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  const std::string named = owner + ": parameter '" + spec.name + "' = ";
  const std::optional<double> parsed = parse_decimal(text);
  if (!parsed) {
    throw ParamError(named + "'" + text +
                     "' is not a plain decimal number (such as 2, 0.05 or 1e-3)");
  }
  const double value = *parsed;
  if (spec.integer && std::floor(value) != value) {
    throw ParamError(named + "'" + text + "' must be an integer");
  }
  if (value < spec.min || value > spec.max) {
    throw ParamError(named + text + " is out of range [" + format_number(spec.min) + ", " +
                     format_number(spec.max) + "]");
  }
  return value;
}

void check_choice(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  const std::vector<std::string> choices = spec.choices();
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    throw ParamError(owner + ": parameter '" + spec.name + "' = '" + text +
                     "' is not one of: " + join_choices(choices));
  }
}

}  // namespace

ParamValues::ParamValues(const std::string& owner, const std::vector<ParamSpec>& specs,
                         const RawParams& raw)
    : owner_(owner) {
  for (const auto& [key, text] : raw) {
    const auto spec =
        // The binding is named in an init-capture: clang before 16 cannot capture it directly.
        std::find_if(specs.begin(), specs.end(),
                     [&name = key](const ParamSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      throw ParamError(owner + ": unknown parameter '" + key + "' (" + known_names(specs) + ")");
    }
    if (spec->is_text()) {
      check_choice(owner, *spec, text);
      texts_[key] = text;
    } else {
      values_[key] = parse_number(owner, *spec, text);
    }
  }
  for (const ParamSpec& s : specs) {
    if (s.is_text()) {
      texts_.try_emplace(s.name, s.default_text);
    } else {
      values_.try_emplace(s.name, s.default_value);
    }
  }
}

double ParamValues::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  const std::string owner = owner_.empty() ? "" : owner_ + ": ";
  if (texts_.count(name) != 0) {
    throw ParamError(owner + "parameter '" + name + "' is text, not a number");
  }
  throw ParamError(owner + "no parameter named '" + name + "'");
}

const std::string& ParamValues::text(const std::string& name) const {
  const auto it = texts_.find(name);
  if (it != texts_.end()) return it->second;
  const std::string owner = owner_.empty() ? "" : owner_ + ": ";
  if (values_.count(name) != 0) {
    throw ParamError(owner + "parameter '" + name + "' is a number, not text");
  }
  throw ParamError(owner + "no parameter named '" + name + "'");
}

}  // namespace vela::lb
