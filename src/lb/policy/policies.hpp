// Shared by the policy files: each builtin policy's registry entry, and small helpers.
#pragma once

#include <string>
#include <vector>

#include "vela/lb/policy/policy.hpp"

namespace vela::lb::policy_detail {

// λ (a fraction) of the instance's current placement: max PE time / mean - 1.
double current_imbalance(const Instance& instance);

// A text parameter naming a registered strategy.
ParamSpec strategy_param(std::string name, std::string help, std::string default_strategy);

// "every" steps as an integer parameter, and whether the end of `step` is one of them.
inline bool on_period(std::size_t step, std::size_t every) {
  return (step + 1) % every == 0;
}

PolicyInfo never();
PolicyInfo periodic();
PolicyInfo threshold();
PolicyInfo auto_threshold();  // auto_threshold.cpp
PolicyInfo cost_model();      // cost_model.cpp
PolicyInfo adaptive();
PolicyInfo sequence();

}  // namespace vela::lb::policy_detail
