// Offline replay: an application run simulated from a load trace under a policy. Each
// step costs its largest PE time plus communication; at the end of each step the policy decides,
// and a balance costs the strategy's time and the migration. With asynchronous balancing
// the strategy runs beside the application and its answer is applied steps later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vela/lb/model/metrics.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/trace/trace.hpp"

namespace vela::lb {

// How a migration is priced: every object and byte in turn (migration_time of the whole move,
// metrics.hpp), or each PE sending and receiving at once, so the busiest PE's objects and bytes
// (sent or received) set the time, as in Pearce's data-movement cost.
enum class MigrationCost { total, busiest_pe };

struct ReplayOptions {
  // Each step costs predicted_step_time (metrics.hpp) under this model: the largest over PEs of
  // the PE's time plus startup per message and per_byte per byte it sends to other PEs.
  CommModel communication;
  // A balance costs startup per object moved plus per_byte per byte moved (migration_time).
  CommModel migration;
  MigrationCost migration_cost = MigrationCost::total;
  // Seconds charged per strategy call; unset: the call's measured wall time (not reproducible).
  std::optional<double> strategy_seconds;
  // Seconds per call of the strategies named here, overriding strategy_seconds (a cheap
  // diffusive step beside a costly global partitioner, say).
  std::map<std::string, double> strategy_seconds_by_name;
  // Asynchronous: the strategy's answer, computed on the instance of the decision step, is applied
  // k = max(1, ceil(strategy time / that step's time)) steps later, mapped by object id onto the
  // objects then alive (deleted ones skipped, created ones stay where they were created). The
  // strategy's time is not charged to the run. One answer at a time: decisions to balance while
  // one is in flight are dropped.
  bool asynchronous = false;
  // When set, strategies see the loads this predictor expects for the next step (it observes
  // every step); policies still see the measured loads.
  Predictor* predictor = nullptr;
  bool keep_series = true;
  // Called after each step with the number of steps replayed so far (vela-lb's progress line).
  std::function<void(std::size_t steps_done)> after_step;
};

struct ReplayStep {
  double time = 0.0;     // compute + communication
  double compute = 0.0;  // largest PE time
  double communication = 0.0;
  double imbalance = 0.0;          // λ of the placement the step ran with (a fraction)
  bool started = false;            // a strategy was run after this step
  bool applied = false;            // a new placement was applied after this step
  std::string strategy;            // the one started (or, async, applied) after this step
  std::size_t migrations = 0;      // objects moved after this step
  std::uint64_t bytes_moved = 0;   // their bytes
  double strategy_seconds = 0.0;   // strategy time charged after this step (inline only)
  double migration_seconds = 0.0;  // migration time charged after this step
};

struct ReplayTotals {
  double compute = 0.0;
  double communication = 0.0;
  double strategy = 0.0;  // strategy time charged to the run (inline)
  double migration = 0.0;
  double total = 0.0;       // the sum of the four above
  double overlapped = 0.0;  // asynchronous strategy time, run beside the application
};

struct ReplayResult {
  ReplayTotals totals;
  std::size_t steps = 0;
  std::size_t started = 0;   // strategy runs
  std::size_t balances = 0;  // placements applied
  std::size_t dropped = 0;   // decisions to balance while an answer was in flight
  std::uint64_t migrations = 0;
  std::uint64_t bytes_moved = 0;
  std::vector<ReplayStep> series;  // one per step when keep_series
};

// Replays every step of `trace` under `policy` (fresh, or its state carries over). Strategies
// are made once per name and parameters and kept for the run. Deterministic when
// strategy_seconds is set and the strategies are. Throws ParamError for a decision that names an
// unknown strategy, std::logic_error for a strategy that breaks its contract.
ReplayResult replay(const Trace& trace, Policy& policy, const ReplayOptions& options = {});

// The series as CSV: step,time,compute,communication,imbalance,started,applied,strategy,
// migrations,strategy_seconds,migration_seconds. Throws std::runtime_error when the file cannot
// be written.
void write_series_csv(const ReplayResult& result, const std::string& path);

}  // namespace vela::lb
