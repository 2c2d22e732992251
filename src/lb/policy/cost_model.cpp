// Pearce's cost model (cost_model.hpp): the diffusion simulator, the three prices, and the policy
// that chooses none / a global strategy / diffusion at each evaluation.
#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "policies.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/policy/cost_model.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {

std::vector<std::vector<PeId>> pe_neighbours(const Instance& instance,
                                             const Assignment& assignment) {
  std::vector<std::vector<PeId>> neighbours(instance.pes.size());
  for (const Edge& e : instance.edges) {
    const PeId a = assignment.pe[e.from];
    const PeId b = assignment.pe[e.to];
    if (a == b) continue;
    neighbours[static_cast<std::size_t>(a)].push_back(b);
    neighbours[static_cast<std::size_t>(b)].push_back(a);
  }
  for (auto& list : neighbours) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return neighbours;
}

DiffusionSimulation simulate_diffusion(std::vector<double> loads, std::vector<double> elements,
                                       const std::vector<std::vector<PeId>>& neighbours,
                                       double gamma, double tolerance, std::size_t steps) {
  const std::size_t n = loads.size();
  if (elements.size() != n || neighbours.size() != n) {
    throw std::invalid_argument(
        "simulate_diffusion: loads, elements and neighbours differ in size");
  }
  DiffusionSimulation sim;
  std::vector<double> delta_load(n);
  std::vector<double> sent(n);
  std::vector<double> received(n);
  for (std::size_t step = 0; step < steps; ++step) {
    const LoadStats stats = load_stats(loads);
    const bool active = n > 0 && stats.mean > 0.0 && stats.imbalance > tolerance;
    double moved = 0.0;
    if (active) {
      ++sim.convergence_steps;
      std::fill(delta_load.begin(), delta_load.end(), 0.0);
      std::fill(sent.begin(), sent.end(), 0.0);
      std::fill(received.begin(), received.end(), 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        for (const PeId neighbour : neighbours[i]) {
          const auto j = static_cast<std::size_t>(neighbour);
          if (loads[i] <= loads[j]) continue;  // each pair once, from the heavier side
          const double degree =
              static_cast<double>(std::max(neighbours[i].size(), neighbours[j].size()));
          const double flow = std::min(gamma, 1.0 / (degree + 1.0)) * (loads[i] - loads[j]);
          const double carried = elements[i] * flow / loads[i];
          delta_load[i] -= flow;
          delta_load[j] += flow;
          sent[i] += carried;
          received[j] += carried;
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        loads[i] += delta_load[i];
        elements[i] += received[i] - sent[i];
        moved = std::max({moved, sent[i], received[i]});
      }
    }
    sim.max_load.push_back(n == 0 ? 0.0 : *std::max_element(loads.begin(), loads.end()));
    sim.elements_moved.push_back(moved);
    sim.active.push_back(active);
  }
  return sim;
}

std::string to_string(BalanceMode mode) {
  switch (mode) {
    case BalanceMode::none:
      return "none";
    case BalanceMode::global:
      return "global";
    case BalanceMode::diffusive:
      return "diffusive";
  }
  return "?";
}

CostEstimate estimate_costs(const Instance& instance, const CostModelSettings& s) {
  if (instance.pes.empty()) throw std::invalid_argument("estimate_costs: the instance has no PEs");
  const Assignment placement = current_assignment(instance);
  const std::vector<double> loads = pe_loads(instance, placement);
  const LoadStats stats = load_stats(loads);
  std::vector<double> elements(instance.pes.size(), 0.0);
  double bytes = 0.0;
  double work = 0.0;
  double largest = 0.0;
  double fastest = 0.0;
  for (const Pe& pe : instance.pes) fastest = std::max(fastest, pe.speed);
  for (const Object& o : instance.objects) {
    elements[static_cast<std::size_t>(o.pe)] += 1.0;
    bytes += static_cast<double>(o.size);
    work += o.load;
    largest = std::max(largest, o.load / fastest);
  }
  const auto count = static_cast<double>(instance.objects.size());
  const double element_size = instance.objects.empty() ? 0.0 : bytes / count;
  // α is paid per object moved, as the runtime's --lb-startup and replay's migration cost are.
  const auto data_cost = [&](double moved) {
    return s.startup * moved + s.per_byte * moved * element_size;
  };
  const auto steps = static_cast<double>(s.steps);

  CostEstimate e;
  e.level = stats.mean;
  e.tolerance = s.tolerance;
  e.current_max = stats.max;
  e.granular = s.granular;
  if (s.granular && stats.mean > 0.0) {
    e.level = std::max(stats.mean, largest);
    const double mean_object = instance.objects.empty() ? 0.0 : work / count / fastest;
    e.tolerance = std::max({s.tolerance, e.level / stats.mean - 1.0, mean_object / stats.mean});
  }
  e.none = steps * stats.max;
  const auto heaviest =
      static_cast<std::size_t>(std::max_element(loads.begin(), loads.end()) - loads.begin());
  e.global_elements_moved =
      stats.max > 0.0 ? elements[heaviest] * (stats.max - stats.mean) / stats.max : 0.0;
  e.global_level = e.level;
  double global_moving = data_cost(e.global_elements_moved);
  if (s.global_trial) {
    const StrategyTrial& t = *s.global_trial;
    e.global_elements_moved = t.objects_moved;
    e.global_level = s.granular ? std::max(t.max_load, e.level) : t.max_load;
    global_moving = s.startup * t.objects_moved + s.per_byte * t.bytes_moved;
  }
  e.global = s.global_seconds + global_moving + steps * e.global_level;
  e.diffusion = simulate_diffusion(loads, elements, pe_neighbours(instance, placement), s.gamma,
                                   e.tolerance, s.steps);
  for (std::size_t i = 0; i < s.steps; ++i) {
    if (e.diffusion.active[i]) {
      e.diffusive += s.diffusion_seconds + data_cost(e.diffusion.elements_moved[i]);
    }
    e.diffusive +=
        s.granular ? std::max(e.diffusion.max_load[i], e.level) : e.diffusion.max_load[i];
  }
  e.choice = BalanceMode::none;
  double best = e.none;
  if (e.diffusive < best) {
    best = e.diffusive;
    e.choice = BalanceMode::diffusive;
  }
  if (e.global < best) e.choice = BalanceMode::global;
  return e;
}

double predicted_step_time(const CostEstimate& e, BalanceMode mode) {
  switch (mode) {
    case BalanceMode::none:
      return e.current_max;
    case BalanceMode::global:
      return e.global_level;
    case BalanceMode::diffusive:
      return e.diffusion.max_load.empty()
                 ? e.current_max
                 : std::max(e.diffusion.max_load.back(), e.granular ? e.level : 0.0);
  }
  return 0.0;
}

namespace policy_detail {

namespace {

// Every `every` steps (from step 0) chooses a mode for the steps up to the next choice: none;
// global (the global strategy once, now); or diffusive (the diffusive strategy at every step
// while λ > tolerance). `force` fixes the mode, to price each choice by replay.
class CostModelPolicy final : public Policy {
 public:
  CostModelPolicy(const ParamValues& p, CostModelObserver observer)
      : observer_(std::move(observer)),
        global_(p.text("global")),
        diffusive_(p.text("diffusive")),
        force_(p.text("force")),
        every_(static_cast<std::size_t>(p.get("every"))),
        global_seconds_(p.get("global_seconds")),
        diffusion_seconds_(p.get("diffusion_seconds")) {
    settings_.steps = static_cast<std::size_t>(p.get("horizon"));
    settings_.gamma = p.get("gamma");
    settings_.tolerance = p.get("tolerance") / 100.0;
    settings_.granular = p.text("floor") == "granular";
    trial_ = p.text("trial") == "on";
    tolerance_ = settings_.tolerance;
  }

  Decision decide(const PolicyInput& input) override {
    const Instance& instance = *input.instance;
    if (input.step % every_ == 0) {
      if (force_ == "model" || settings_.granular || observer_) {
        CostEstimate e = estimate(input);
        tolerance_ = e.tolerance;
        mode_ = force_ == "model" ? e.choice : forced();
        if (observer_) observer_({input.step, mode_, std::move(e)});
      } else {
        mode_ = forced();
      }
      if (mode_ == BalanceMode::global) return {global_, {}};
    }
    if (mode_ == BalanceMode::diffusive && current_imbalance(instance) > tolerance_) {
      return {diffusive_, {}};
    }
    return {};
  }

  void balanced(const BalanceOutcome& outcome) override {
    measured_[outcome.strategy] = outcome.strategy_seconds;
  }

 private:
  CostEstimate estimate(const PolicyInput& input) {
    CostModelSettings s = settings_;
    s.startup = input.costs.startup;
    s.per_byte = input.costs.per_byte;
    if (trial_) {
      // The global strategy's answer for this instance: its time, its moves, the load it leaves.
      const StrategyReport r = run_strategy(strategy(global_), global_, *input.instance);
      s.global_trial = StrategyTrial{static_cast<double>(r.moved.count),
                                     static_cast<double>(r.moved.bytes), r.after.max};
      if (global_seconds_ < 0.0) measured_[global_] = r.time_ms / 1000.0;
      if (diffusion_seconds_ < 0.0 && !measured_.contains(diffusive_)) {
        measured_[diffusive_] =
            run_strategy(strategy(diffusive_), diffusive_, *input.instance).time_ms / 1000.0;
      }
    }
    s.global_seconds = decision_seconds(global_, global_seconds_, input.costs);
    s.diffusion_seconds = decision_seconds(diffusive_, diffusion_seconds_, input.costs);
    return estimate_costs(*input.instance, s);
  }

  Strategy& strategy(const std::string& name) {
    auto& made = strategies_[name];
    if (!made) made = make_strategy(name);
    return *made;
  }

  // A given time, else the strategy's last measured time, else the caller's strategy time.
  double decision_seconds(const std::string& strategy, double given,
                          const CostParameters& costs) const {
    if (given >= 0.0) return given;
    const auto it = measured_.find(strategy);
    return it != measured_.end() ? it->second : costs.strategy_seconds;
  }

  BalanceMode forced() const {
    if (force_ == "global") return BalanceMode::global;
    if (force_ == "diffusive") return BalanceMode::diffusive;
    return BalanceMode::none;
  }

  CostModelObserver observer_;  // may be empty
  std::string global_;
  std::string diffusive_;
  std::string force_;
  std::size_t every_;
  double global_seconds_;
  double diffusion_seconds_;
  CostModelSettings settings_;
  double tolerance_;  // where diffusion stops: the setting, or the granular model's
  BalanceMode mode_ = BalanceMode::none;
  bool trial_;
  std::map<std::string, double> measured_;
  std::map<std::string, std::unique_ptr<Strategy>> strategies_;  // made for trials
};

}  // namespace

PolicyInfo cost_model() {
  return {"cost-model",
          "every `every` steps prices none / one global balance / diffusion over `horizon` steps "
          "(Pearce §3.3, corrected) and follows the cheapest until the next evaluation",
          {strategy_param("global", "the global strategy", "greedy"),
           strategy_param("diffusive", "the diffusive strategy (run each step)", "diffusion"),
           {"horizon", "steps the model looks ahead", 100.0, 1.0, 1e7, true},
           {"every", "steps between evaluations (from step 0)", 1.0, 1.0, 1e9, true},
           {"gamma",
            "upper bound of the diffusion coefficient (each pair uses at most "
            "1/(max degree+1))",
            1.0, 0.0, 1.0, false},
           {"tolerance", "λ in percent below which diffusion stops", 1.0, 0.0, 1e6, false},
           {"global_seconds",
            "decision time of the global strategy (-1: measured or given "
            "strategy time)",
            -1.0, -1.0, 1e9, false},
           {"diffusion_seconds",
            "decision time of one diffusive step (-1: measured or given "
            "strategy time)",
            -1.0, -1.0, 1e9, false},
           text_param("force", "model: follow the model; none/global/diffusive: always that mode",
                      "model", std::vector<std::string>{"model", "none", "global", "diffusive"}),
           text_param("floor",
                      "mean: the seed's model (a global balance reaches the mean PE load); "
                      "granular: objects are indivisible (see cost_model.hpp)",
                      "mean", std::vector<std::string>{"mean", "granular"}),
           text_param("trial",
                      "on: at each evaluation run the global strategy on the instance and price "
                      "its measured time, its moves and the PE load it leaves (and time the "
                      "diffusive strategy once); off: the formulas of cost_model.hpp",
                      "off", std::vector<std::string>{"off", "on"})},
          [](const ParamValues& p) { return std::make_unique<CostModelPolicy>(p, nullptr); }};
}

}  // namespace policy_detail

std::unique_ptr<Policy> make_cost_model_policy(const ParamValues& params,
                                               CostModelObserver observer) {
  return std::make_unique<policy_detail::CostModelPolicy>(params, std::move(observer));
}

}  // namespace vela::lb
