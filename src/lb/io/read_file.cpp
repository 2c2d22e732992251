#include "read_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <new>
#include <system_error>

namespace vela::lb::io_detail {

namespace {

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

struct Closer {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

FileRead read_input(const std::string& path, const Sniff& sniff) {
  FileRead out;
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    out.error = "cannot open for reading: " + errno_text(errno);
    return out;
  }
  struct stat info {};
  if (::fstat(::fileno(file.get()), &info) != 0) {
    out.error = "cannot read: " + errno_text(errno);
    return out;
  }
  if (S_ISDIR(info.st_mode)) {
    out.error = "cannot read: " + errno_text(EISDIR);
    return out;
  }
  // A regular file says its size (files under /proc say 0 and are read like a pipe); it may still
  // grow while it is read, by at most max_unsized_bytes here.
  const bool sized = S_ISREG(info.st_mode) && info.st_size > 0;
  const auto size = static_cast<std::size_t>(sized ? info.st_size : 0);
  const std::size_t limit = size + max_unsized_bytes;
  std::string& contents = out.contents;
  try {
    if (sized) contents.reserve(size);
    bool sniffed = !sniff;
    for (;;) {
      // The first bytes for the sniff, then up to the known size in one piece, then (a pipe, or
      // a file that grew) in blocks.
      const std::size_t have = contents.size();
      std::size_t want = have < size ? size - have : sniff_bytes;
      if (!sniffed) want = std::min(want, sniff_bytes);
      if (have + want > limit) {
        out.error = "cannot read: more than " + std::to_string(limit) + " bytes" +
                    (sized ? " (the file grew while it was read)"
                           : " from a file that is not a regular file (a pipe or a device); "
                             "copy it to a regular file first");
        contents.clear();
        return out;
      }
      contents.resize(have + want);
      const std::size_t got = std::fread(contents.data() + have, 1, want, file.get());
      contents.resize(have + got);
      if (!sniffed && (contents.size() >= sniff_bytes || got < want)) {
        sniffed = true;
        out.error = sniff(std::string_view(contents).substr(0, sniff_bytes));
        if (!out.error.empty()) {
          contents.clear();
          return out;
        }
      }
      if (got < want) break;
    }
  } catch (const std::bad_alloc&) {
    out.error = "out of memory after reading " + std::to_string(contents.size()) + " bytes" +
                (sized ? " of " + std::to_string(size) : std::string());
    contents = std::string();
    return out;
  }
  if (std::ferror(file.get()) != 0) {
    out.error = "cannot read: " + errno_text(errno);
    contents.clear();
  }
  return out;
}

}  // namespace vela::lb::io_detail
