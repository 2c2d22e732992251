// What the trace readers and writers share (docs/trace-format.md).
#pragma once

#include <array>
#include <functional>
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

// The whole file; a file that cannot be opened or read is a TraceError naming it. `sniff`, when
// given, sees the first bytes before the rest is read and may refuse the file at once
// (io_detail::read_input: sizes checked before allocating, at most 1 GiB from a pipe or device).
std::string read_file(const std::string& path,
                      const std::function<std::string(std::string_view)>& sniff = {});

// Writes `contents` to `path`. An existing regular file is replaced only once the new contents
// are completely written (temporary file, then rename); a device such as /dev/stdout is written
// in place. Errors are TraceErrors naming the file and the reason.
void write_file(const std::string& path, std::string_view contents);

// The format readers, given the file's contents; `path` names the file in messages. They check
// the format; read_trace() then validates the trace itself.
Trace parse_trace_json(std::string_view text, const std::string& path);
Trace parse_trace_binary(std::string_view bytes, const std::string& path);
// The binary format's bytes of `trace` (what write_trace_binary writes; not validated).
std::string encode_trace_binary(const Trace& trace);

// Validates `trace` for writing to `path`: an invalid trace cannot be written, nor one whose
// totals a reader rejects (totals_problem).
void check_writable(const Trace& trace, const std::string& path);

// What is wrong with the totals of a valid trace ("" when nothing), naming the step and the
// element (docs/trace-format.md, "Rules a reader enforces"): the initial instance's totals
// (io/totals.hpp); every step's total time finite; the sizes of all the trace's objects, initial
// and created, and the bytes and the messages of every step's edges each within 64 bits.
std::string totals_problem(const Trace& trace);

}  // namespace vela::lb::trace_detail
