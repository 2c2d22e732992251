// The simulation proper, on SimGrid's S4U interface (engine.cpp), and what it needs from the
// trace. simulate() (simulate.cpp) checks its inputs and runs it in a child process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vela/sim/simulate.hpp"

namespace vela::sim::detail {

// Where an object sends after running a step: the destination's position and the bytes.
struct Out {
  std::uint32_t to = 0;
  std::uint64_t bytes = 0;
};

// The communication graph from step `first` on (until the next epoch's first step): each
// object's destinations and how many messages each object receives per step.
struct Epoch {
  std::size_t first = 0;
  std::vector<std::vector<Out>> out;
  std::vector<std::uint32_t> in_degree;
};

// The trace's edges as epochs, the initial edges first (first = 0); a step that replaces the
// edges starts a new one. The trace's objects must be fixed (checked by the caller).
std::vector<Epoch> epochs_of(const lb::Trace& trace);

// Hosts in the order PEs are laid on them: names compared piecewise, digits as numbers, so
// node-2 comes before node-10.
bool host_name_less(const std::string& a, const std::string& b);

// Runs the simulation in this process. Call once per process (SimGrid's engine cannot be made
// twice). Throws SimulationError for a platform SimGrid cannot load or with too few PE slots.
SimulationResult run_engine(const lb::Trace& trace, const SimulateOptions& options);

}  // namespace vela::sim::detail
