// Placeholder until the strategy lands in this file.
#include <stdexcept>

#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo refine() {
  throw std::logic_error("refine: not implemented yet");
}

}  // namespace vela::lb::builtin
