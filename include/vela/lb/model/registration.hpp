// Adding entries to the registries (strategies, policies, predictors) at run time.
#pragma once

#include <stdexcept>

namespace vela::lb {

// Thrown by register_strategy, register_policy and register_predictor for an entry that cannot
// be added: an empty or malformed name, a name already taken (built in or registered before),
// or no factory. The message names the entry.
class RegistrationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace vela::lb
