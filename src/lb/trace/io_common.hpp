// What the trace readers and writers share (docs/trace-format.md).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "vela/lb/trace/trace.hpp"

namespace vela::lb::trace_detail {

inline constexpr std::string_view json_format_name = "vela-trace";

// The binary file's first 8 bytes: a non-ASCII byte (so that no text file starts this way),
// "VELATR", and a line feed (so that a text-mode transfer that rewrites line ends is caught).
inline constexpr std::array<char, 8> binary_magic = {'\x89', 'V', 'E', 'L', 'A', 'T', 'R', '\n'};

// The shortest text that reads back as the same double ("nan", "inf" for those).
std::string show(double value);

// The whole file; a file that cannot be opened or read is a TraceError naming it.
std::string read_file(const std::string& path);

// Writes `contents` to `path`. An existing regular file is replaced only once the new contents
// are completely written (temporary file, then rename); a device such as /dev/stdout is written
// in place. Errors are TraceErrors naming the file and the reason.
void write_file(const std::string& path, std::string_view contents);

// The format readers, given the file's contents; `path` names the file in messages. They check
// the format; read_trace() then validates the trace itself.
Trace parse_trace_json(std::string_view text, const std::string& path);
Trace parse_trace_binary(std::string_view bytes, const std::string& path);

// Validates `trace` for writing to `path`: an invalid trace cannot be written.
void check_writable(const Trace& trace, const std::string& path);

}  // namespace vela::lb::trace_detail
