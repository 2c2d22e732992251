// Placeholder until the strategy lands in this file.
#include <stdexcept>

#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo greedy() {
  throw std::logic_error("greedy: not implemented yet");
}

}  // namespace vela::lb::builtin
