// Pearce's cost model (seed 001 §3.3), in the corrected form written out below: over a horizon of
// `steps` steps it prices doing nothing, one global rebalance, and diffusion at every step (from
// a diffusion simulator), and picks the cheapest.
//
//   none      = steps * L_max
//   global    = C_global + steps * L_mean,
//               C_global = C_decision + (α + β * element_size) * moved,
//               moved = elements_max * (L_max - L_mean) / L_max
//   diffusive = Σ_{i=1..steps} (C_diff,i + L_max,i),  C_diff,i = C_decision + (α + β *
//               element_size) * moved_i on the steps where the simulation is not yet balanced
//
// L are PE times (background + work / speed); elements_max is the number of objects on the most
// loaded PE; element_size is the mean object size in bytes. α is paid per object moved (the
// seed's α is per data movement), as the runtime's --lb-startup and replay charge migrations.
//
// With a trial of the global strategy (not in the seed; the policy's trial=on) its measured
// answer replaces the formula: global = C_decision + α * objects moved + β * bytes moved +
// steps * the L_max it leaves. A partitioner such as METIS moves far more than the minimum and
// leaves some imbalance; the formula sees neither.
//
// With `granular` (not in the seed) the model remembers that objects are indivisible: no
// placement beats the largest object, so a global balance reaches level = max(L_mean, largest
// object) instead of L_mean, every simulated L_max,i is at least that level, and diffusion, which
// moves whole objects, stops once λ is within one mean object of that level:
// tolerance = max(tolerance, level / L_mean - 1, mean object / L_mean).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/policy/policy.hpp"

namespace vela::lb {

// The neighbourhood D_i of each PE: the PEs that hold an object communicating with one of its
// objects under `assignment` (both directions), sorted, without the PE itself.
std::vector<std::vector<PeId>> pe_neighbours(const Instance& instance,
                                             const Assignment& assignment);

// One run of the diffusion simulator (Pearce Alg. 5, corrected). Each step, while the imbalance
// λ = max/mean - 1 exceeds `tolerance`, every neighbour pair (i, j) exchanges
// γ_ij (L_i - L_j) of load at once, γ_ij = min(gamma, 1 / (max(deg_i, deg_j) + 1)), so that
// L_i <- L_i - Σ_{j ∈ D_i} γ_ij (L_i - L_j): total load is kept and no PE rises above the old
// maximum. Load leaves a PE carrying elements at that PE's density (elements / load), i.e.
// elements moved = elements_i * load moved / L_i.
struct DiffusionSimulation {
  std::vector<double> max_load;        // L_max after each simulated step
  std::vector<double> elements_moved;  // most elements sent or received by one PE, each step
  std::vector<bool> active;            // whether the step moved load (λ above tolerance)
  std::size_t convergence_steps = 0;   // steps that began with λ above tolerance
};

DiffusionSimulation simulate_diffusion(std::vector<double> loads, std::vector<double> elements,
                                       const std::vector<std::vector<PeId>>& neighbours,
                                       double gamma, double tolerance, std::size_t steps);

enum class BalanceMode { none, global, diffusive };
std::string to_string(BalanceMode mode);

// What running a strategy on the instance showed: what it moves and the L_max it leaves.
struct StrategyTrial {
  double objects_moved = 0.0;
  double bytes_moved = 0.0;
  double max_load = 0.0;
};

struct CostModelSettings {
  std::size_t steps = 100;                    // the horizon
  double global_seconds = 0.0;                // C_decision of the global strategy (one call)
  double diffusion_seconds = 0.0;             // C_decision of one diffusive step
  double startup = 0.0;                       // α: seconds per object moved
  double per_byte = 0.0;                      // β: seconds per byte moved
  double gamma = 1.0;                         // upper bound of the diffusion coefficient
  double tolerance = 0.01;                    // diffusion stops below this λ (a fraction)
  bool granular = false;                      // see above
  std::optional<StrategyTrial> global_trial;  // the global strategy's measured answer, if run
};

struct CostEstimate {
  double none = 0.0;  // seconds over the horizon
  double global = 0.0;
  double diffusive = 0.0;
  double global_elements_moved = 0.0;
  double level = 0.0;         // L_mean, or granular's level: where a perfect balance ends
  double global_level = 0.0;  // the step time after the global balance: level, or the trial's
  double tolerance = 0.0;     // the λ at which diffusion stops (granular may raise it)
  double current_max = 0.0;   // L_max of the current placement
  bool granular = false;      // the settings' granular: simulated L_max is floored at `level`
  DiffusionSimulation diffusion;
  BalanceMode choice = BalanceMode::none;  // the cheapest; ties: none, then diffusive, then global
};

// The three prices for the instance's current placement. Throws std::invalid_argument for an
// instance without PEs.
CostEstimate estimate_costs(const Instance& instance, const CostModelSettings& settings);

// The step time the model expects under `mode` once balancing has had its effect, in seconds:
// L_max now for none, global_level for global, the simulated L_max at
// the end of the horizon for diffusive.
double predicted_step_time(const CostEstimate& estimate, BalanceMode mode);

// One evaluation of the cost-model policy: the step it was made at, the mode the policy follows
// until the next one (the model's choice, or the forced mode) and the prices it saw (computed
// for the observer when the mode is forced).
struct CostModelEvaluation {
  std::size_t step = 0;
  BalanceMode mode = BalanceMode::none;
  CostEstimate estimate;
};
using CostModelObserver = std::function<void(const CostModelEvaluation&)>;

// The "cost-model" policy with its parameters (as make_policy would take them), calling
// `observer` at each evaluation: what an application registers under a name of its own to log
// the model's picks and predictions (apps/graph-bench).
std::unique_ptr<Policy> make_cost_model_policy(const ParamValues& params,
                                               CostModelObserver observer);

}  // namespace vela::lb
