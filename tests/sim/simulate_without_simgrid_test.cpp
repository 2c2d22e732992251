// The simulator as built without SimGrid (src/sim/without_simgrid.cpp): it says so, and names
// the package that brings SimGrid, whatever it is asked.
#include <gtest/gtest.h>

#include <string>

#include "vela/sim/simulate.hpp"

namespace vela::sim {
namespace {

TEST(SimulateWithoutSimGrid, SaysWhatIsMissingAndHowToGetIt) {
  EXPECT_FALSE(available());
  lb::Trace trace;
  trace.initial.pes.resize(1);
  trace.steps.resize(1);
  SimulateOptions options;
  options.platform = "any.xml";
  try {
    simulate(trace, options);
    FAIL() << "simulate returned without SimGrid";
  } catch (const SimulationError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("without SimGrid"), std::string::npos) << message;
    EXPECT_NE(message.find("libsimgrid-dev"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace vela::sim
