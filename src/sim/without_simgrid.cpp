// The simulator in a build without SimGrid: every call says what is missing and how to get it.
#include "engine.hpp"

namespace vela::sim::detail {

SimulationResult run_engine(const lb::Trace&, const SimulateOptions&) {
  throw SimulationError(
      "this Vela was built without SimGrid, so it cannot simulate: install libsimgrid-dev "
      "(scripts/install-deps.sh does) and configure and build Vela again");
}

}  // namespace vela::sim::detail
