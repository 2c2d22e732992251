// Fuzzes the instance reader (JSON, docs/instance-format.md). A rejected input must be a
// std::exception with a message; an accepted one must write out and read back equal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>

#include "vela/lb/io/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vela::lb::Instance instance;
  try {
    instance = vela::lb::parse_instance(text, "fuzz-input.json");
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  // Accepted: what is written must read back, to the same text.
  std::ostringstream first;
  vela::lb::write_instance(instance, first);
  const vela::lb::Instance again = vela::lb::parse_instance(first.str(), "rewritten.json");
  std::ostringstream second;
  vela::lb::write_instance(again, second);
  if (first.str() != second.str()) std::abort();
  return 0;
}
