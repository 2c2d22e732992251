// Reading a whole input file with its size checked before anything is allocated: shared by the
// instance reader and the trace readers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vela::lb::io_detail {

// What is read at most from a file that is not a regular file (a pipe, a device such as
// /dev/stdin), whose size is not known beforehand: 1 GiB.
inline constexpr std::size_t max_unsized_bytes = std::size_t{1} << 30;

// The bytes a reader looks at first, to tell early whether the input can be what it reads.
inline constexpr std::size_t sniff_bytes = std::size_t{1} << 16;

// Given the first bytes of the file (sniff_bytes of them, or all when the file is shorter),
// returns "" to go on reading, else what is wrong ("not a vela trace: ..."), which ends the read.
using Sniff = std::function<std::string(std::string_view first)>;

struct FileRead {
  std::string contents;
  std::string error;  // "" when read; else the reason, without the file name
};

// Reads the whole of `path`. A regular file's contents are allocated once, at its size (and its
// size is checked against what can be allocated); any other file is read in pieces, up to
// max_unsized_bytes. `sniff`, when given, sees the first bytes before the rest is read, so that
// /dev/zero or a large file of another kind is refused at once. Running out of memory is an
// error naming the size, not a std::bad_alloc.
FileRead read_input(const std::string& path, const Sniff& sniff);

// As read_input; an error is thrown as Error("PATH: reason").
template <class Error>
std::string read_input_or_throw(const std::string& path, const Sniff& sniff = {}) {
  FileRead read = read_input(path, sniff);
  if (!read.error.empty()) throw Error(path + ": " + read.error);
  return std::move(read.contents);
}

}  // namespace vela::lb::io_detail
