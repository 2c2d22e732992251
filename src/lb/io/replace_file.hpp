// Writing a file so that a failed write never leaves it truncated: shared by the instance and
// trace writers.
#pragma once

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace vela::lb::io_detail {

// Calls write(target) to produce `path`. A regular file (or a new one) is written to a
// temporary name first and renamed over `path` once complete; a device or pipe (/dev/stdout)
// is written in place. On an Error from `write` the temporary file is removed and the error
// rethrown; a failed rename throws Error("PATH: cannot replace: reason").
template <class Error, class Write>
void replace_file(const std::string& path, Write&& write) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    write(path);
    return;
  }
  const std::string temporary = path + ".tmp" + std::to_string(std::random_device{}());
  try {
    write(temporary);
  } catch (const Error&) {
    std::filesystem::remove(temporary, ec);
    throw;
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::filesystem::remove(temporary, ec);
    throw Error(path + ": cannot replace: " + reason);
  }
}

}  // namespace vela::lb::io_detail
