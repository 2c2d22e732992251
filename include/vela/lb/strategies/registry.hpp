// Strategies by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vela/lb/model/registration.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb {

// Every strategy: the built-in ones in a fixed order, then those added by register_strategy in
// the order they were added. A copy, so that registering from another thread cannot change it
// under the caller.
std::vector<StrategyInfo> strategies();

// Throws ParamError for an unknown name (listing the known ones) or bad parameters.
const StrategyInfo& find_strategy(const std::string& name);
std::unique_ptr<Strategy> make_strategy(const std::string& name, const RawParams& params = {});

// Adds a strategy of the program's own, found by name wherever the built-in ones are:
// make_strategy, vela-lb-style listings, the runtime's --lb, replay, and the policies' strategy
// parameters. Thread-safe; register before the names are used (before the runtime parses its
// options). Throws RegistrationError for an empty or malformed name, a name already taken
// (built in or registered before), or an empty `make`.
void register_strategy(StrategyInfo info);

}  // namespace vela::lb
