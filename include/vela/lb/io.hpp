// Reading and writing instances as JSON (format described in docs/instance-format.md).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "vela/lb/instance.hpp"

namespace vela::lb {

// The format version this build writes, and the only one it reads.
inline constexpr int instance_format_version = 1;

// Parses and validates an instance. Throws InstanceError whose message starts with
// `source` (a file name) and names the element and the problem.
Instance parse_instance(std::string_view text, const std::string& source);
// As parse_instance; a file that cannot be opened or read is an InstanceError too.
Instance read_instance(const std::string& path);

// Writes `instance` so that parse_instance gives back an equal instance (doubles round-trip).
// Throws InstanceError if the instance is invalid (see validate) or the output fails.
void write_instance(const Instance& instance, std::ostream& out);
// As above; an existing regular file at `path` is replaced only once the new contents are
// completely written, so a failed write leaves the old file as it was.
void write_instance(const Instance& instance, const std::string& path);

}  // namespace vela::lb
