// Reading either trace format, and the file handling both share.
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <new>
#include <random>
#include <string>
#include <system_error>

#include "io/format.hpp"
#include "io/read_file.hpp"
#include "io/replace_file.hpp"
#include "io/totals.hpp"
#include "io_common.hpp"

namespace vela::lb {

namespace trace_detail {

namespace {

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

void write_in_place(const std::string& target, const std::string& path, std::string_view contents) {
  std::FILE* file = std::fopen(target.c_str(), "wb");
  if (file == nullptr) throw TraceError(path + ": cannot open for writing: " + errno_text(errno));
  int error = 0;
  if (!contents.empty() &&
      std::fwrite(contents.data(), 1, contents.size(), file) != contents.size()) {
    error = errno != 0 ? errno : EIO;
  }
  if (error == 0 && std::fflush(file) != 0) error = errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (error != 0) throw TraceError(path + ": cannot write: " + errno_text(error));
}

}  // namespace

std::string show(double value) {
  std::array<char, 32> digits;
  const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  return std::string(digits.data(), result.ptr);
}

std::string read_file(const std::string& path,
                      const std::function<std::string(std::string_view)>& sniff) {
  return io_detail::read_input_or_throw<TraceError>(path, sniff);
}

void write_file(const std::string& path, std::string_view contents) {
  io_detail::replace_file<TraceError>(
      path, [&](const std::string& target) { write_in_place(target, path, contents); });
}

void check_writable(const Trace& trace, const std::string& path) {
  try {
    validate(trace);
  } catch (const TraceError& e) {
    throw TraceError(path + ": cannot write an invalid trace: " + e.what());
  }
  if (const std::string problem = totals_problem(trace); !problem.empty()) {
    throw TraceError(path + ": cannot write a trace whose totals are out of range: " + problem);
  }
}

std::string totals_problem(const Trace& trace) {
  const Instance& initial = trace.initial;
  if (std::string problem = io_detail::totals_problem(initial); !problem.empty()) {
    return "initial instance: " + problem;
  }
  io_detail::CountTotal sizes;
  for (const Object& o : initial.objects) sizes.add(o.size);
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const TraceStep& step = trace.steps[s];
    const std::string name = "step " + std::to_string(s) + ": ";
    for (std::size_t k = 0; k < step.created.size(); ++k) {
      if (!sizes.add(step.created[k].size)) {
        return name + "created[" + std::to_string(k) +
               "]: the sizes of the trace's objects (initial and created) add up to more than "
               "2^64 - 1 bytes (the bytes of a migration must fit in 64 bits)";
      }
    }
    io_detail::CountTotal bytes;
    io_detail::CountTotal messages;
    for (std::size_t k = 0; k < step.edges.size(); ++k) {
      if (!bytes.add(step.edges[k].bytes) || !messages.add(step.edges[k].messages)) {
        return name + "edges[" + std::to_string(k) + "]: the edges' " +
               (bytes.fits() ? "messages" : "bytes") +
               " add up to more than 2^64 - 1 (a communication cut must fit in 64 bits)";
      }
    }
    io_detail::TimeTotal time(initial.pes);
    for (std::size_t i = 0; i < step.loads.size(); ++i) {
      if (!time.add(step.loads[i])) {
        return name + "loads[" + std::to_string(i) + "]: " + time.problem();
      }
    }
  }
  return "";
}

}  // namespace trace_detail

namespace {

// Whichever format it came from, a trace read is validated once, here.
Trace validated(Trace trace, const std::string& path) {
  try {
    validate(trace);
  } catch (const TraceError& e) {
    throw TraceError(path + ": " + e.what());
  }
  if (const std::string problem = trace_detail::totals_problem(trace); !problem.empty()) {
    throw TraceError(path + ": " + problem);
  }
  return trace;
}

constexpr std::string_view magic(trace_detail::binary_magic.data(),
                                 trace_detail::binary_magic.size());

// Which format `start`, the first bytes of a file (all of it when `whole`), is in: "" when it
// is one (or cannot be told yet), else why it is not a trace.
std::string format_problem(std::string_view start, bool whole) {
  if (start.starts_with(magic)) return "";
  std::string_view text = start;
  if (text.starts_with(io_detail::utf8_bom)) text.remove_prefix(io_detail::utf8_bom.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return "";
  if (!start.empty() && start.size() < magic.size() && magic.starts_with(start)) {
    if (!whole) return "";
    return "truncated: the file ends within the binary magic (" + std::to_string(start.size()) +
           " bytes)";
  }
  if (!start.empty() && start[0] == magic[0]) {
    return "wrong magic: the first 8 bytes are not those of a binary vela trace";
  }
  if (first == std::string_view::npos && !whole) return "";  // white space so far
  if (start.empty()) return "not a vela trace: the file is empty";
  return "not a vela trace: it starts with neither '{' (JSON) nor the binary magic";
}

Trace read(const std::string& path) {
  // The first bytes tell the format, so /dev/zero or a large file of another kind is refused at
  // once; the sniff sees the whole file when it is shorter than what it is given.
  const std::string contents = trace_detail::read_file(path, [](std::string_view first) {
    return format_problem(first, first.size() < io_detail::sniff_bytes);
  });
  if (const std::string problem = format_problem(contents, true); !problem.empty()) {
    throw TraceError(path + ": " + problem);
  }
  if (std::string_view(contents).starts_with(magic)) {
    return validated(trace_detail::parse_trace_binary(contents, path), path);
  }
  return validated(trace_detail::parse_trace_json(contents, path), path);
}

}  // namespace

Trace read_trace(const std::string& path) {
  try {
    return read(path);
  } catch (const std::bad_alloc&) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    throw TraceError(path + ": out of memory while reading the trace" +
                     (ec ? std::string() : " (a file of " + std::to_string(size) + " bytes)"));
  }
}

}  // namespace vela::lb
