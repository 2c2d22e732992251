// Placeholder until the strategy lands in this file.
#include <stdexcept>

#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo greedy_refine() {
  throw std::logic_error("greedy_refine: not implemented yet");
}

}  // namespace vela::lb::builtin
