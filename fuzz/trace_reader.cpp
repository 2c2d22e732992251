// Fuzzes the trace reader: both formats (JSON and binary, told apart by the first bytes,
// docs/trace-format.md) through read_trace(), as `vela-lb trace info` reads them. A rejected
// input must be a std::exception with a message; an accepted one must write out in both formats
// and read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "file_input.hpp"
#include "vela/lb/trace/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = vela::fuzz::write_input(data, size, "trace");
  vela::lb::Trace trace;
  try {
    trace = vela::lb::read_trace(path);
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  const std::string json = path + ".json";
  const std::string binary = path + ".bin";
  vela::lb::write_trace_json(trace, json);
  vela::lb::write_trace_binary(trace, binary);
  const vela::lb::Trace from_json = vela::lb::read_trace(json);
  const vela::lb::Trace from_binary = vela::lb::read_trace(binary);
  if (from_json.steps.size() != trace.steps.size() ||
      from_binary.steps.size() != trace.steps.size()) {
    std::abort();
  }
  return 0;
}
