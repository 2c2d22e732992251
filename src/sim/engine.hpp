// The simulation proper, on SimGrid's S4U interface (engine.cpp), and what it needs from the
// trace. simulate() (simulate.cpp) checks its inputs and runs it in a child process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vela/sim/simulate.hpp"

namespace vela::sim::detail {

// Where an object sends after running a step: the destination's position, the bytes, and
// whether the message feeds the destination's same step (a destination of a higher phase) rather
// than its next.
struct Out {
  std::uint32_t to = 0;
  std::uint64_t bytes = 0;
  bool same_step = false;
};

// The communication graph from step `first` on (until the next epoch's first step): each
// object's destinations and how many messages each object receives per step, for its next step
// (in_degree) and for the same step (in_same_step: from objects of lower phases).
struct Epoch {
  std::size_t first = 0;
  std::vector<std::vector<Out>> out;
  std::vector<std::uint32_t> in_degree;
  std::vector<std::uint32_t> in_same_step;
};

// The trace's edges as epochs, the initial edges first (first = 0); a step that replaces the
// edges starts a new one. `phases` as SimulateOptions::phases (empty: all 0). The trace's objects
// must be fixed (checked by the caller).
std::vector<Epoch> epochs_of(const lb::Trace& trace, const std::vector<std::uint8_t>& phases = {});

// Hosts in the order PEs are laid on them: names compared piecewise, digits as numbers, so
// node-2 comes before node-10.
bool host_name_less(const std::string& a, const std::string& b);

// Runs the simulation in this process. Call once per process (SimGrid's engine cannot be made
// twice). Throws SimulationError for a platform SimGrid cannot load or with too few PE slots.
SimulationResult run_engine(const lb::Trace& trace, const SimulateOptions& options);

}  // namespace vela::sim::detail
