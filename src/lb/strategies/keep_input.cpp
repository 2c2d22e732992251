// A partitioning strategy's answer against the placement it started from (keep_input.hpp).
#include "keep_input.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "vela/lb/model/metrics.hpp"

namespace vela::lb::builtin {

namespace {

// Relative slack for the same loads summed in another order.
constexpr double kRoundOff = 1e-12;

bool on_valid_pes(const Instance& instance, const Assignment& a) {
  return std::all_of(a.pe.begin(), a.pe.end(), [&](PeId pe) {
    return pe >= 0 && static_cast<std::size_t>(pe) < instance.pes.size();
  });
}

double max_load(const Instance& instance, const Assignment& a) {
  const std::vector<double> loads = pe_loads(instance, a);
  return loads.empty() ? 0.0 : *std::max_element(loads.begin(), loads.end());
}

class KeepInputWhenWorse final : public Strategy {
 public:
  KeepInputWhenWorse(std::unique_ptr<Strategy> inner, double allowance)
      : inner_(std::move(inner)), allowance_(allowance) {}

  Solution solve(const Instance& instance) override {
    Solution s = inner_->solve(instance);
    const bool keep = worse_than_input(instance, s.assignment, allowance_);
    if (keep) s.assignment = current_assignment(instance);
    s.stats.emplace_back("kept_input", keep ? 1.0 : 0.0);
    return s;
  }

 private:
  std::unique_ptr<Strategy> inner_;
  double allowance_;
};

}  // namespace

bool worse_than_input(const Instance& instance, const Assignment& answer, double allowance) {
  // A broken answer is not judged here: run_strategy's contract check names it.
  const Assignment current = current_assignment(instance);
  if (answer.pe.size() != instance.objects.size() || !on_valid_pes(instance, answer) ||
      !on_valid_pes(instance, current)) {
    return false;
  }
  const double input = max_load(instance, current);
  const double bound = std::max(input, allowance * ideal_time(instance));
  return max_load(instance, answer) > bound * (1.0 + kRoundOff);
}

StrategyInfo keep_input_when_worse(StrategyInfo info, Allowance allowance) {
  info.make = [make = std::move(info.make),
               allowance = std::move(allowance)](const ParamValues& params) {
    return std::unique_ptr<Strategy>(
        std::make_unique<KeepInputWhenWorse>(make(params), allowance(params)));
  };
  return info;
}

}  // namespace vela::lb::builtin
