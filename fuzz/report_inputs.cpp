// Fuzzes the report's reader (tools/vela-lb/report_inputs.cpp): one input of whatever kind its
// contents make it (a step log, an instance, a Chrome trace, a comparison, a replay result),
// through summarize() as `vela-lb report` reads it. A rejected input must be a std::exception
// with a message, never an error of the JSON library escaping the reader's checks (a field used
// as a type it was not checked to have); an accepted one gives a summary listing the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "file_input.hpp"
#include "report_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = vela::fuzz::write_input(data, size, "report-input");
  vela::tools::report::SummaryOptions options;
  options.time_bins = 16;
  nlohmann::json summary;
  try {
    summary = vela::tools::report::summarize({path}, options);
  } catch (const nlohmann::json::exception&) {
    std::abort();
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  if (!summary.is_object() || !summary.contains("inputs") || summary["inputs"].size() != 1) {
    std::abort();
  }
  return 0;
}
