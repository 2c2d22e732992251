// Fuzzes the DARMA vt LB-data reader (`vela-lb trace import-vt`): one rank's file. A rejected
// input must be a std::exception with a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "file_input.hpp"
#include "vela/lb/trace/vt.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = vela::fuzz::write_input(data, size, "data.0.json");
  try {
    const vela::lb::Trace trace = vela::lb::import_vt({path});
    vela::lb::validate(trace);
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
