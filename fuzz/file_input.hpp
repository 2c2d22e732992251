// The readers under fuzzing take paths (as users give them): each input is written to a file
// of its own in the temporary directory first.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace vela::fuzz {

// A file holding the current input, named `name` inside a directory of this process; rewritten
// for every input.
inline std::string write_input(const std::uint8_t* data, std::size_t size,
                               const std::string& name) {
  static const std::filesystem::path directory = [] {
    // Memory-backed where there is one: a disk write per input would halve the rate.
    const std::filesystem::path shm("/dev/shm");
    const auto base =
        std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
    auto d = base / ("vela-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::string path = (directory / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace vela::fuzz
