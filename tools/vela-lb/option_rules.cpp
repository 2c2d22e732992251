#include "option_rules.hpp"

#include <string_view>

#include "vela/lb/model/params.hpp"

namespace vela::tools {

namespace {

std::string check_unsigned(const std::string& text) {
  if (lb::parse_decimal_unsigned(text)) return {};
  return "expected a whole number >= 0 in plain decimal (digits only, such as 0, 7 or 1024), "
         "got '" +
         text + "'";
}

std::string check_signed(const std::string& text) {
  const std::string_view digits =
      text.starts_with('-') ? std::string_view(text).substr(1) : std::string_view(text);
  if (lb::parse_decimal_unsigned(digits)) return {};
  return "expected a whole number in plain decimal (such as 0, 7 or -3), got '" + text + "'";
}

std::string check_decimal(const std::string& text) {
  if (lb::parse_decimal(text)) return {};
  return "expected a finite number in plain decimal (such as 2, 0.05 or 1e-3), got '" + text + "'";
}

// The type CLI11 derived for the option, before any validator's description (after a ':').
std::string base_type(const CLI::Option& option) {
  const std::string full = option.get_type_name();
  return full.substr(0, full.find(':'));
}

void apply_to(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = base_type(*option);
    if (type == "UINT") {
      option->check(CLI::Validator(check_unsigned, ""));
    } else if (type == "INT") {
      option->check(CLI::Validator(check_signed, ""));
    } else if (type == "FLOAT") {
      option->check(CLI::Validator(check_decimal, ""));
    }
    if (option->nonpositional() && option->get_items_expected_max() > 1) {
      option->allow_extra_args(false);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) apply_to(*sub);
}

}  // namespace

void apply_option_rules(CLI::App& app) {
  apply_to(app);
}

std::optional<double> non_negative_number(const std::string& text) {
  const std::optional<double> value = lb::parse_decimal(text);
  if (!value || *value < 0.0) return std::nullopt;
  return value;
}

CLI::Validator non_negative_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (non_negative_number(text)) return {};
        return "expected a finite number >= 0, got '" + text + "'";
      },
      "NUMBER >= 0");
}

}  // namespace vela::tools
