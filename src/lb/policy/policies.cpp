// The policy registry and the simple policies: never, periodic, threshold, adaptive
// period and strategy sequence. Decisions are taken at the end of a step; a policy
// "every K steps" decides at the end of steps K-1, 2K-1, ... (after K, 2K, ... steps).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "model/registry.hpp"
#include "policies.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {

namespace policy_detail {

double current_imbalance(const Instance& instance) {
  return load_stats(pe_loads(instance, current_assignment(instance))).imbalance;
}

ParamSpec strategy_param(std::string name, std::string help, std::string default_strategy) {
  return text_param(std::move(name), std::move(help), std::move(default_strategy), [] {
    std::vector<std::string> names;
    for (const StrategyInfo& info : strategies()) names.push_back(info.name);
    return names;
  });
}

namespace {

std::size_t count_of(const ParamValues& p, const std::string& name) {
  return static_cast<std::size_t>(p.get(name));
}

ParamSpec every_param(double default_steps, std::string help) {
  return {"every", std::move(help), default_steps, 1.0, 1e9, true};
}

ParamSpec threshold_param(double default_percent) {
  return {"threshold",
          "balance only when the imbalance λ exceeds this, in percent",
          default_percent,
          0.0,
          1e6,
          false};
}

class NeverPolicy final : public Policy {
 public:
  Decision decide(const PolicyInput&) override { return {}; }
};

// Checks every `every` steps and balances when λ > threshold; periodic is threshold -1.
class IntervalThresholdPolicy final : public Policy {
 public:
  IntervalThresholdPolicy(std::string strategy, std::size_t every, double threshold)
      : strategy_(std::move(strategy)), every_(every), threshold_(threshold) {}

  Decision decide(const PolicyInput& input) override {
    if (!on_period(input.step, every_)) return {};
    if (threshold_ >= 0.0 && current_imbalance(*input.instance) <= threshold_) return {};
    return {strategy_, {}};
  }

 private:
  std::string strategy_;
  std::size_t every_;
  double threshold_;  // a fraction; negative: always
};

// Adaptive: balances at each invocation; the period doubles (times `factor`) while every PE's load
// changed by less than epsilon (relative to the mean PE load) since the previous invocation,
// and shrinks by the same factor when some PE's load changed more. The change is measured on
// the current placement, so the previous invocation's own migrations do not count as change.
class AdaptivePolicy final : public Policy {
 public:
  explicit AdaptivePolicy(const ParamValues& p)
      : strategy_(p.text("strategy")),
        period_(count_of(p, "initial")),
        min_period_(count_of(p, "min_period")),
        max_period_(count_of(p, "max_period")),
        factor_(count_of(p, "factor")),
        epsilon_(p.get("epsilon") / 100.0) {
    if (min_period_ > max_period_) {
      throw ParamError("adaptive: min_period " + std::to_string(min_period_) +
                       " exceeds max_period " + std::to_string(max_period_));
    }
    period_ = std::clamp(period_, min_period_, max_period_);
    next_ = period_ - 1;
  }

  Decision decide(const PolicyInput& input) override {
    if (input.step < next_) return {};
    const Instance& instance = *input.instance;
    if (invoked_) {
      period_ = largest_change(instance) < epsilon_ ? std::min(max_period_, period_ * factor_)
                                                    : std::max(min_period_, period_ / factor_);
    }
    remember(instance);
    invoked_ = true;
    next_ = input.step + period_;
    return {strategy_, {}};
  }

 private:
  struct Seen {
    double load;
    PeId pe;
  };

  void remember(const Instance& instance) {
    last_.clear();
    last_.reserve(instance.objects.size());
    for (const Object& o : instance.objects) last_.emplace(o.id, Seen{o.load, o.pe});
  }

  // max over PEs of |load now - load at the last invocation| / mean PE load then, both on the
  // current placement (a deleted object counts on its old PE, a created one as new load).
  double largest_change(const Instance& instance) const {
    const std::size_t pes = instance.pes.size();
    std::vector<double> before(pes, 0.0);
    std::vector<double> now(pes, 0.0);
    std::size_t kept = 0;
    for (const Object& o : instance.objects) {
      const auto p = static_cast<std::size_t>(o.pe);
      now[p] += o.load;
      const auto it = last_.find(o.id);
      if (it == last_.end()) continue;
      before[p] += it->second.load;
      ++kept;
    }
    if (kept < last_.size()) {  // some objects were deleted
      std::unordered_map<ObjectId, bool> alive;
      for (const Object& o : instance.objects) alive.emplace(o.id, true);
      for (const auto& [id, seen] : last_) {
        if (alive.count(id) == 0) before[static_cast<std::size_t>(seen.pe)] += seen.load;
      }
    }
    double total = 0.0;
    double largest = 0.0;
    for (std::size_t p = 0; p < pes; ++p) {
      before[p] /= instance.pes[p].speed;
      now[p] /= instance.pes[p].speed;
      total += before[p] + instance.pes[p].background;
      largest = std::max(largest, std::abs(now[p] - before[p]));
    }
    const double mean = pes == 0 ? 0.0 : total / static_cast<double>(pes);
    return mean > 0.0 ? largest / mean
                      : (largest > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
  }

  std::string strategy_;
  std::size_t period_;
  std::size_t min_period_;
  std::size_t max_period_;
  std::size_t factor_;
  double epsilon_;
  std::size_t next_ = 0;  // the step at whose end the next invocation happens
  bool invoked_ = false;
  std::unordered_map<ObjectId, Seen> last_;
};

// Sequence (seed 004): `first` for the first `first_calls` balances carried out, `then` after.
class SequencePolicy final : public Policy {
 public:
  explicit SequencePolicy(const ParamValues& p)
      : first_(p.text("first")),
        then_(p.text("then")),
        first_calls_(count_of(p, "first_calls")),
        every_(count_of(p, "every")),
        threshold_(p.get("threshold") / 100.0) {}

  Decision decide(const PolicyInput& input) override {
    if (!on_period(input.step, every_)) return {};
    if (current_imbalance(*input.instance) <= threshold_) return {};
    return {done_ < first_calls_ ? first_ : then_, {}};
  }

  void balanced(const BalanceOutcome&) override { ++done_; }

 private:
  std::string first_;
  std::string then_;
  std::size_t first_calls_;
  std::size_t every_;
  double threshold_;
  std::size_t done_ = 0;  // balances carried out so far
};

}  // namespace

PolicyInfo never() {
  return {"never", "never balances (the baseline)", {}, [](const ParamValues&) {
            return std::make_unique<NeverPolicy>();
          }};
}

PolicyInfo periodic() {
  return {"periodic",
          "balances every `every` steps, whatever the imbalance",
          {strategy_param("strategy", "strategy to run", "greedy"),
           every_param(100.0, "steps between balances")},
          [](const ParamValues& p) {
            return std::make_unique<IntervalThresholdPolicy>(p.text("strategy"),
                                                             count_of(p, "every"), -1.0);
          }};
}

PolicyInfo threshold() {
  return {"threshold",
          "checks every `every` steps and balances when λ > threshold (Rodrigues Table 4.7)",
          {strategy_param("strategy", "strategy to run", "greedy"),
           every_param(1.0, "steps between checks"), threshold_param(10.0)},
          [](const ParamValues& p) {
            return std::make_unique<IntervalThresholdPolicy>(
                p.text("strategy"), count_of(p, "every"), p.get("threshold") / 100.0);
          }};
}

PolicyInfo adaptive() {
  return {"adaptive",
          "balances every `period` steps; the period grows by `factor` while no PE's load "
          "changed by epsilon between invocations, and shrinks when one did",
          {strategy_param("strategy", "strategy to run", "greedy"),
           {"initial", "first period, in steps", 10.0, 1.0, 1e9, true},
           {"min_period", "shortest period", 1.0, 1.0, 1e9, true},
           {"max_period", "longest period", 1000.0, 1.0, 1e9, true},
           {"factor", "the period is multiplied or divided by this", 2.0, 2.0, 1000.0, true},
           {"epsilon", "largest PE load change (percent of the mean PE load) deemed steady", 5.0,
            0.0, 1e6, false}},
          [](const ParamValues& p) { return std::make_unique<AdaptivePolicy>(p); }};
}

PolicyInfo sequence() {
  return {"sequence",
          "every `every` steps when λ > threshold: `first` for the first `first_calls` balances, "
          "`then` afterwards (seed 004: greedy, then refine-swap)",
          {strategy_param("first", "strategy of the first balances", "greedy"),
           strategy_param("then", "strategy of the later balances", "refine-swap"),
           {"first_calls", "balances done with `first`", 1.0, 1.0, 1e9, true},
           every_param(10.0, "steps between checks"),
           threshold_param(0.0)},
          [](const ParamValues& p) { return std::make_unique<SequencePolicy>(p); }};
}

}  // namespace policy_detail

namespace {

registry_detail::Registry<PolicyInfo>& registry() {
  static registry_detail::Registry<PolicyInfo> all("policy", [] {
    return std::vector<PolicyInfo>{
        policy_detail::never(),          policy_detail::periodic(),   policy_detail::threshold(),
        policy_detail::auto_threshold(), policy_detail::cost_model(), policy_detail::adaptive(),
        policy_detail::sequence(),
    };
  }());
  return all;
}

}  // namespace

std::vector<PolicyInfo> policies() {
  return registry().all();
}

std::unique_ptr<Policy> make_policy(const std::string& name, const RawParams& params) {
  const PolicyInfo& info = registry().find(name);
  return info.make(ParamValues(info.name, info.params, params));
}

void register_policy(PolicyInfo info) {
  registry().add(std::move(info));
}

}  // namespace vela::lb
