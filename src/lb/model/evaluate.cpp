#include "vela/lb/model/evaluate.hpp"

#include <chrono>
#include <stdexcept>

namespace vela::lb {

void check_strategy_contract(const std::string& name, const Instance& instance,
                             const Assignment& a) {
  try {
    validate(instance, a);
  } catch (const InstanceError& e) {
    throw std::logic_error("strategy " + name + " returned a bad assignment: " + e.what());
  }
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (!instance.objects[i].migratable && a.pe[i] != instance.objects[i].pe) {
      throw std::logic_error("strategy " + name + " moved non-migratable object id " +
                             std::to_string(instance.objects[i].id));
    }
  }
}

StrategyReport run_strategy(Strategy& strategy, const std::string& name, const Instance& instance) {
  StrategyReport r;
  r.strategy = name;
  const auto start = std::chrono::steady_clock::now();
  Solution solution = strategy.solve(instance);
  const auto stop = std::chrono::steady_clock::now();
  r.time_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  check_strategy_contract(name, instance, solution.assignment);

  const Assignment current = current_assignment(instance);
  r.before = load_stats(pe_loads(instance, current));
  r.after = load_stats(pe_loads(instance, solution.assignment));
  r.moved = migrations(instance, current, solution.assignment);
  r.cut_before = comm_cut(instance, current);
  r.cut_after = comm_cut(instance, solution.assignment);
  r.hypergraph_cut_before = hypergraph_cut(instance, current);
  r.hypergraph_cut_after = hypergraph_cut(instance, solution.assignment);
  r.assignment = std::move(solution.assignment);
  r.stats = std::move(solution.stats);
  return r;
}

Instance apply(Instance instance, const Assignment& assignment) {
  validate(instance, assignment);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    instance.objects[i].pe = assignment.pe[i];
  }
  return instance;
}

}  // namespace vela::lb
