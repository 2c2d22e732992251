// The graph benchmark's problem (seed 001 Alg. 1): a weighted graph of work units,
// from a generator or an instance file, the calibrated work a unit does per unit of weight, and
// the drift of weights from step to step. Everything here is a pure function of the options, so
// the graph, the weights at every step and hence the checksum are the same for any PE count and
// balancer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/trace/trace.hpp"

namespace graph_bench {

struct GraphOptions {
  std::string gen = "gamma";  // gamma | cluster
  std::string instance;       // an instance file (docs/instance-format.md) instead of --gen
  std::int64_t units = 1024;
  double shape = 2.0;     // gamma: k
  double scale = 0.5;     // gamma: θ (mean weight k θ)
  double overload = 4.0;  // cluster: weight multiplier of the heavy region
  double region = 25.0;   // cluster: percent of the units (the first rows of the mesh) in it
  double drift = 0.0;     // percent: the largest change of a drifting unit's weight per step
  std::uint64_t seed = 1;
};

// A message naming the option when a value is out of range, else empty.
std::string check(const GraphOptions& options);

struct Graph {
  std::vector<double> weight;                    // work units per step, at step 0
  std::vector<std::vector<std::uint32_t>> to;    // the units each unit sends to, ascending
  std::vector<std::vector<std::uint32_t>> from;  // the units each unit receives from, ascending
  std::vector<double> start;  // where each unit starts, as a fraction of the PEs in [0, 1)
  std::size_t edges = 0;      // directed edges between distinct units
};

// From the generator: the units lie row-major on a near-square mesh with its 4-neighbour halo
// edges; gamma: weights drawn from Gamma(shape, scale); cluster: weights uniform in [0.5, 1.5),
// times `overload` in the first `region` percent of the units. Units start in contiguous id
// ranges (the heavy region on the first PEs). From a file: its objects in file order, weights
// the loads over their mean (a unit of mean load does one unit of work), its edges, and each
// unit starting on its PE scaled to the run's PE count. Throws std::runtime_error (an unreadable
// or malformed file: vela::lb::InstanceError, naming it) or std::invalid_argument.
Graph make_graph(const GraphOptions& options);

// Whether unit `unit` drifts (half of them, chosen by the seed), and its weight at step + 1 from
// its weight at `step`: times 1 + d u, u uniform in [-1, 1) from (seed, unit, step), d the
// drift as a fraction.
bool drifts(std::uint64_t seed, std::uint64_t unit);
double drifted(double weight, double drift_percent, std::uint64_t seed, std::uint64_t unit,
               std::int64_t step);

// The work the run's units do, as a load trace (docs/trace-format.md) for `vela-lb replay`: the
// units on `pes` PEs where the run starts them, each edge one message of `message_bytes` a
// step, a unit `unit_bytes` to move, and its load at each of `steps` steps its weight at that
// step (drift applied as the run applies it) times `seconds_per_unit`. A pure function of its
// arguments, like the run's weights: the loads the units were given, not their measurement.
vela::lb::Trace load_trace(const Graph& graph, const GraphOptions& options, std::int64_t steps,
                           int pes, double seconds_per_unit, std::uint64_t unit_bytes,
                           std::uint64_t message_bytes);

// A 64-bit finalizer (xorshift-multiply), for checksums and hashed random numbers.
std::uint64_t mix(std::uint64_t x);

// do_work: `iterations` steps of a dependent chain of multiplications and table reads in a
// data-dependent (random) order; returns the chain's state so the work cannot be elided.
std::uint64_t do_work(std::uint64_t iterations, std::uint64_t state);

// Iterations of do_work that take `ns_per_unit` nanoseconds on this machine: the best of
// several timed runs.
struct Calibration {
  double ns_per_iteration = 0.0;
  double iterations_per_unit = 0.0;
};
Calibration calibrate(double ns_per_unit);

}  // namespace graph_bench
