// Fuzzes the parameter parser: each line of the input is a "key=value" setting (as given to
// --param), and the settings are checked against every strategy, policy and predictor. A
// rejected setting must be a std::exception with a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "vela/lb/model/params.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

template <class Make>
void check(Make make) {
  try {
    make();
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vela::lb::RawParams raw;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    try {
      vela::lb::parse_param(std::string(text.substr(begin, end - begin)), raw);
    } catch (const std::exception& e) {
      if (std::string(e.what()).empty()) std::abort();
      return 0;
    }
    begin = end + 1;
  }
  // The strategies are only constructed (their parameters resolved), never run: some take
  // time proportional to a parameter.
  for (const auto& s : vela::lb::strategies()) {
    check([&] { vela::lb::make_strategy(s.name, raw); });
  }
  for (const auto& p : vela::lb::policies()) {
    check([&] { vela::lb::make_policy(p.name, raw); });
  }
  for (const auto& p : vela::lb::predictors()) {
    check([&] { vela::lb::make_predictor(p.name, raw); });
  }
  return 0;
}
