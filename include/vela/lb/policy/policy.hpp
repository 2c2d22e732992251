// Deciding when (and with which strategy) to balance: load predictors and policies
// (docs/user-guide.md, *When to balance: replay, predict, policies*). The same interface serves
// offline replay (vela-lb replay) and the runtime.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/registration.hpp"

namespace vela::lb {

// ---- Predictors ----

// Learns per-object loads step after step (objects named by id; they may come and go) and
// predicts each object's load for the next step.
class Predictor {
 public:
  virtual ~Predictor() = default;
  // The loads measured in one step: every object of `instance` with its load.
  virtual void observe(const Instance& instance) = 0;
  // Predicted next-step load of every object of `instance`, in its order; an object never
  // observed is predicted at its load in `instance`.
  virtual std::vector<double> predict(const Instance& instance) const = 0;
};

struct PredictorInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Predictor>(const ParamValues&)> make;
};

// The built-in predictors, persistence, median (of the last N), trend (linear, least squares
// over the last N), then those added by register_predictor. A copy (see strategies()).
std::vector<PredictorInfo> predictors();
// Throws ParamError for an unknown name (listing the known ones) or bad parameters.
std::unique_ptr<Predictor> make_predictor(const std::string& name, const RawParams& params = {});
// Adds a predictor of the program's own, found by name like the built-in ones (make_predictor,
// vela-lb-style listings). Thread-safe. Throws RegistrationError for an empty or malformed
// name, a name already taken, or an empty `make`.
void register_predictor(PredictorInfo info);

// ---- Policies ----

// The costs a policy may weigh, in seconds: migrating costs startup + per_byte * bytes per
// object moved (T_s + t_w * bytes); a balancing strategy costs strategy_seconds per call
// (measured by the caller, or given).
struct CostParameters {
  double startup = 0.0;
  double per_byte = 0.0;
  double strategy_seconds = 0.0;
};

// What a policy sees at a decision point: the end of step `step` (0-based), the instance as
// measured in that step (loads, placement, edges), and the costs.
struct PolicyInput {
  std::size_t step = 0;
  const Instance* instance = nullptr;
  CostParameters costs;
};

// A policy's answer: balance with `strategy` (a registered strategy name, with `params`), or
// not at all when `strategy` is empty.
struct Decision {
  std::string strategy;
  RawParams params;

  bool balance() const { return !strategy.empty(); }
};

// What happened after a decision to balance, so policies can learn (adaptive period, cost
// model, automatic threshold).
struct BalanceOutcome {
  std::size_t step = 0;
  std::string strategy;
  double strategy_seconds = 0.0;   // the strategy's time
  double migration_seconds = 0.0;  // the migration cost paid
  std::size_t migrations = 0;
  double imbalance_before = 0.0;  // λ before and after, as fractions
  double imbalance_after = 0.0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  // Called once per step, in step order.
  virtual Decision decide(const PolicyInput& input) = 0;
  // Called after every balance the caller carried out for this policy's decision.
  virtual void balanced(const BalanceOutcome&) {}
};

struct PolicyInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Policy>(const ParamValues&)> make;
};

// The built-in policies, in a fixed order: never, periodic, threshold, auto-threshold,
// cost-model, adaptive, sequence; then those added by register_policy. A copy (see
// strategies()).
std::vector<PolicyInfo> policies();
// Throws ParamError for an unknown name (listing the known ones) or bad parameters.
std::unique_ptr<Policy> make_policy(const std::string& name, const RawParams& params = {});
// Adds a policy of the program's own, found by name like the built-in ones (make_policy, the
// runtime's --lb-policy, replay). Its decisions may name any registered strategy. Thread-safe.
// Throws RegistrationError for an empty or malformed name, a name already taken, or an empty
// `make`.
void register_policy(PolicyInfo info);

}  // namespace vela::lb
