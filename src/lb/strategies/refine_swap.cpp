// Placeholder until the strategy lands in this file.
#include <stdexcept>

#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo refine_swap() {
  throw std::logic_error("refine_swap: not implemented yet");
}

}  // namespace vela::lb::builtin
