// Rules every vela-lb option follows, applied once to the whole command tree (main.cpp), and
// the checks of numbers that the commands share.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace vela::tools {

// Applies to every option of `app` and of all its sub-commands, whatever added it:
//  * A number is plain decimal. CLI11 alone reads integers with strtoll(…, 0), so "0x10" is 16
//    and "010" is 8, takes leading spaces, and stores "-1" in an unsigned option as 2^64 - 1;
//    floating point takes hex, "inf" and "nan" too. The options are recognised by the type
//    CLI11 derived from the variable they fill (INT, UINT, FLOAT, also per element of a list):
//    UINT takes digits only (no sign, no leading zero), INT the same after an optional '-', FLOAT
//    what lb::parse_decimal takes (finite, no hex, no spaces).
//  * A repeatable option (one that fills a list) takes one value per occurrence, so
//    "--param a=1 input.json" leaves input.json to the positional argument; repeat the option
//    for more values (--param a=1 --param b=2), or use its delimiter where it has one (-s a,b).
void apply_option_rules(CLI::App& app);

// `text` as a finite number >= 0 in plain decimal; nullopt when it is not one.
std::optional<double> non_negative_number(const std::string& text);

// Accepts what non_negative_number accepts and otherwise says "expected a finite number >= 0,
// got 'TEXT'" (CLI11 puts the option's name in front).
CLI::Validator non_negative_seconds();

}  // namespace vela::tools
