// Reading and writing instances as JSON (format described in docs/instance-format.md).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "vela/lb/model/instance.hpp"

namespace vela::lb {

// The newest format version: version 2 adds the optional "hyperedges". This build reads every
// version from oldest_instance_format_version to instance_format_version.
inline constexpr int instance_format_version = 2;
inline constexpr int oldest_instance_format_version = 1;

// The version write_instance writes for `instance`: 1 when it has no hyperedges, so that such
// files stay byte for byte what they were and readable by version-1 readers; 2 otherwise.
int format_version_for(const Instance& instance);

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
