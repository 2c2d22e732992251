// Reading and writing instances as JSON (format described in docs/instance-format.md).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "vela/lb/instance.hpp"

namespace vela::lb {

inline constexpr int instance_format_version = 1;

// Parses and validates an instance. Throws InstanceError whose message starts with
// `source` (a file name) and names the element and the problem.
Instance parse_instance(std::string_view text, const std::string& source);
Instance read_instance(const std::string& path);

// Writes `instance` so that parse_instance gives back an equal instance (doubles round-trip).
void write_instance(const Instance& instance, std::ostream& out);
void write_instance(const Instance& instance, const std::string& path);

}  // namespace vela::lb
