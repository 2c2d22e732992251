// Reading either trace format, and the file handling both share.
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include "io/replace_file.hpp"
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
  if (std::fwrite(contents.data(), 1, contents.size(), file) != contents.size()) {
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

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw TraceError(path + ": cannot read: it is a directory");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw TraceError(path + ": cannot open for reading: " + errno_text(errno));
  std::string contents;
  std::array<char, 1 << 16> buffer;
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), file)) > 0)
    contents.append(buffer.data(), n);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) throw TraceError(path + ": cannot read: " + errno_text(error));
  return contents;
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
  return trace;
}

}  // namespace

Trace read_trace(const std::string& path) {
  const std::string contents = trace_detail::read_file(path);
  const std::string_view magic(trace_detail::binary_magic.data(),
                               trace_detail::binary_magic.size());
  if (std::string_view(contents).starts_with(magic)) {
    return validated(trace_detail::parse_trace_binary(contents, path), path);
  }
  const std::size_t first = contents.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && contents[first] == '{') {
    return validated(trace_detail::parse_trace_json(contents, path), path);
  }
  if (!contents.empty() && contents.size() < magic.size() && magic.starts_with(contents)) {
    throw TraceError(path + ": truncated: the file ends within the binary magic (" +
                     std::to_string(contents.size()) + " bytes)");
  }
  if (!contents.empty() && contents[0] == magic[0]) {
    throw TraceError(path +
                     ": wrong magic: the first 8 bytes are not those of a binary vela trace");
  }
  throw TraceError(path + ": not a vela trace: " +
                   (contents.empty() ? std::string("the file is empty")
                                     : "it starts with neither '{' (JSON) nor the binary magic"));
}

}  // namespace vela::lb
