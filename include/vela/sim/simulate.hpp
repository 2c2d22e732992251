// Simulation of an over-decomposed run on a SimGrid platform (docs/simulation.md): the objects of
// a load trace executed message-driven by one simulated PE each, their messages crossing the
// platform's network as they would in the runtime, and the toolkit's real policy and strategies
// deciding at the balancing points. Unlike `replay` (vela/lb/policy/replay.hpp), a PE that waits
// for one object's inputs runs another's work meanwhile, so the overlap that virtualization buys
// shows, and communication pays the platform's latency, bandwidth and contention.
//
// Available when Vela was built with SimGrid (libsimgrid-dev); `available()` says whether it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/lb/model/params.hpp"
#include "vela/lb/trace/trace.hpp"

namespace vela::sim {

// Raised for a platform that cannot be read or is too small for the trace, a trace the
// simulation does not take, a SimGrid option it refuses, and a build without SimGrid; the message
// names the file or option.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this build has the simulator (SimGrid was found when Vela was configured).
bool available();

// The loads a strategy sees at a balancing point: each object's mean over the steps since the
// last balance (what the runtime measures between balancing points), or the step's own
// (what `replay` gives).
enum class StrategyLoads { period, step };

struct SimulateOptions {
  // A SimGrid platform file (XML, or a C++ platform library SimGrid loads).
  std::string platform;
  // The policy deciding at each step and its parameters (vela/lb/policy/policy.hpp).
  std::string policy = "never";
  lb::RawParams policy_params;
  StrategyLoads strategy_loads = StrategyLoads::period;
  // Seconds charged per strategy call; unset: the call's measured wall time here.
  std::optional<double> strategy_seconds;
  // Seconds per call of the strategies named here, overriding strategy_seconds.
  std::map<std::string, double> strategy_seconds_by_name;
  // Flop/s of the PE the trace's loads were measured on: an object of load w (seconds) runs
  // w * reference_speed flops, so w seconds on a host of that speed. 0: the speed of the host of
  // PE 0 (loads are seconds on the platform's hosts).
  double reference_speed = 0.0;
  // The migration prices the policy is told (lb::CostParameters: seconds per object moved and
  // per byte moved, for a cost model's α and β); the simulation itself pays the platform's.
  double migration_startup = 0.0;
  double migration_per_byte = 0.0;
  // The runtime's own time, in seconds at the reference speed (docs/simulation.md,
  // "Calibration"): per object step (scheduling the object), and per message on the PE that
  // sends it and again on the one that receives it. 0: not charged.
  double object_overhead = 0.0;
  double message_overhead = 0.0;
  // PEs per host; 0: each host's core count (a 12-core node runs 12 PEs).
  int pes_per_host = 0;
  // SimGrid configuration items, "name:value" each (SimGrid's --cfg), such as
  // "network/model:CM02".
  std::vector<std::string> config;
  // When set, every step ends with an all-reduction of this many bytes over all the objects (an
  // MPI_Allreduce per step, as the BRAMS proxy's CFL time step): no object starts step s + 1
  // before every object finished step s and the result came back to its PE, down a binary tree
  // of the PEs (each PE combines its own objects first, as the runtime does).
  std::optional<std::uint64_t> step_reduction;
  // Latencies set on the platform's links by name before the run (a WAN link swept from one run
  // to the next, say); a name the platform lacks is an error.
  std::map<std::string, double> link_latencies;
  // Each object's phase within a step, by position in the trace's initial objects (empty: every
  // object in phase 0). An object of phase k runs step s once its in-neighbours of lower phases
  // ran step s and those of phase k or higher ran step s - 1: LeanMD's cells (phase 0) send
  // positions to their computes (phase 1) within a step, the computes' forces feed the cells'
  // next step. Without phases every message feeds the receiver's next step.
  std::vector<std::uint8_t> phases;
  // Border prioritization (the runtime's Grid Queue, --grid-queue-period): a ready object that
  // sends to a PE of another cluster (the trace's PE clusters) runs before the others, but after
  // this many such in a row one other ready object runs. 0: first come first served.
  int grid_queue_period = 0;
  // Asynchronous balancing (seed 001's; docs/simulation.md, "Model"): at a balancing decision
  // after step b no PE stops; once every PE finished step b the strategy runs beside them on the
  // loads through b, and when its time has passed each PE sends the objects it is to give away
  // between two objects' steps. Its time is not charged; decisions while it runs are dropped; an
  // answer ready after the last object's last step is not applied. Not with step_reduction.
  bool async_balancing = false;
  bool keep_series = true;
};

// One step of the run, as simulated.
struct SimulatedStep {
  double end = 0.0;       // simulated time at which the last object finished this step
  double time = 0.0;      // end less the previous step's end (a balance after it not included)
  double compute = 0.0;   // the busiest PE's compute in this step
  bool balanced = false;  // a balance followed this step
  std::string strategy;
  std::size_t migrations = 0;
  std::uint64_t bytes_moved = 0;
  double strategy_seconds = 0.0;  // charged to the run
  double balance_seconds = 0.0;   // from `end` to the last PE's resumption
};

struct SimulationResult {
  double total = 0.0;       // simulated seconds from the start to the last object's last step
  double compute = 0.0;     // sum over steps of the busiest PE's compute (replay's compute)
  double busy = 0.0;        // compute summed over all PEs
  double overhead = 0.0;    // the runtime's own time summed over all PEs (the *_overhead options)
  double efficiency = 0.0;  // busy / (PEs * total)
  double strategy = 0.0;    // strategy seconds charged
  double strategy_overlapped = 0.0;   // strategy seconds run beside the PEs (async_balancing)
  std::size_t answers_unapplied = 0;  // asynchronous answers that came back too late
  double balancing = 0.0;  // seconds spent in balancing points (strategy and migration included)
  std::size_t steps = 0;
  std::size_t pes = 0;
  std::size_t hosts = 0;  // hosts that run a PE
  std::size_t balances = 0;
  std::uint64_t migrations = 0;
  std::uint64_t bytes_moved = 0;
  std::uint64_t messages = 0;         // object-to-object messages that crossed the network
  std::uint64_t bytes_sent = 0;       // their bytes
  std::uint64_t cluster_bytes = 0;    // of those, the bytes between PEs of different clusters
  std::vector<SimulatedStep> series;  // one per step when keep_series
  std::uint64_t peak_memory = 0;      // the simulating process's peak resident memory, bytes
};

// Simulates every step of `trace` on the platform under the policy. The trace must be valid
// (lb::validate) and its objects fixed (none created or deleted: SimulationError naming the
// step otherwise). PE p runs on the (p / PEs per host)-th host in the platform's host order
// (names compared with their numbers as numbers). SimGrid's engine runs once per process, so the
// simulation runs in a child process and its result comes back through a pipe; the policy and
// strategies are made there. Deterministic when strategy times are given. Throws
// SimulationError (platform, trace, options), lb::ParamError (policy, strategy).
SimulationResult simulate(const lb::Trace& trace, const SimulateOptions& options);

}  // namespace vela::sim
