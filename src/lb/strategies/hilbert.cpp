// Placeholder until the strategy lands in this file.
#include <stdexcept>

#include "strategies.hpp"

namespace vela::lb::builtin {

StrategyInfo hilbert() {
  throw std::logic_error("hilbert: not implemented yet");
}

}  // namespace vela::lb::builtin
