// Shared by the predictor, policy and replay tests: small traces built in memory, and a policy
// that balances at chosen steps and records what it saw.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/policy/policy.hpp"
#include "vela/lb/trace/trace.hpp"

namespace vela::testing {

inline lb::Object object_at(lb::ObjectId id, double load, lb::PeId pe, std::uint64_t size = 0) {
  lb::Object o;
  o.id = id;
  o.load = load;
  o.pe = pe;
  o.size = size;
  o.coords = {static_cast<double>(id), 0.0, 0.0};
  return o;
}

// `pes` PEs of speed 1; the objects as given (their loads are the initial instance's); then one
// step per row of `loads` (one load per object, same objects throughout).
inline lb::Trace static_objects_trace(std::size_t pes, std::vector<lb::Object> objects,
                                      std::vector<lb::Edge> edges,
                                      const std::vector<std::vector<double>>& loads) {
  lb::Trace t;
  t.initial.dims = 1;
  t.initial.pes.assign(pes, lb::Pe{});
  t.initial.objects = std::move(objects);
  t.initial.edges = std::move(edges);
  for (const auto& row : loads) {
    lb::TraceStep s;
    s.loads = row;
    t.steps.push_back(s);
  }
  lb::validate(t);
  return t;
}

// Balances with `strategy` at the end of the listed steps; records, for every step, the PE of
// each object (by id) as the step ran, and every outcome.
class ScriptedPolicy final : public lb::Policy {
 public:
  ScriptedPolicy(std::string strategy, std::set<std::size_t> at)
      : strategy_(std::move(strategy)), at_(std::move(at)) {}

  lb::Decision decide(const lb::PolicyInput& input) override {
    std::vector<std::pair<lb::ObjectId, lb::PeId>> seen;
    for (const lb::Object& o : input.instance->objects) seen.emplace_back(o.id, o.pe);
    placements.push_back(std::move(seen));
    costs.push_back(input.costs);
    if (at_.count(input.step) == 0) return {};
    return {strategy_, {}};
  }

  void balanced(const lb::BalanceOutcome& outcome) override { outcomes.push_back(outcome); }

  // The PE of object `id` during `step`, or -1 when it was not alive.
  lb::PeId pe_of(std::size_t step, lb::ObjectId id) const {
    for (const auto& [i, pe] : placements.at(step)) {
      if (i == id) return pe;
    }
    return -1;
  }

  std::vector<std::vector<std::pair<lb::ObjectId, lb::PeId>>> placements;
  std::vector<lb::CostParameters> costs;
  std::vector<lb::BalanceOutcome> outcomes;

 private:
  std::string strategy_;
  std::set<std::size_t> at_;
};

}  // namespace vela::testing
