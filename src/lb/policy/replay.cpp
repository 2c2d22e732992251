// The replay simulator: a trace stepped under a policy, inline or with asynchronous balancing.
#include "vela/lb/policy/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {

namespace {

// An answer computed asynchronously, waiting to be applied after step `due`.
struct InFlight {
  std::size_t due = 0;
  std::string strategy;
  double seconds = 0.0;
  std::vector<std::pair<ObjectId, PeId>> placement;
};

class Replayer {
 public:
  Replayer(const Trace& trace, Policy& policy, const ReplayOptions& options)
      : cursor_(trace),
        total_steps_(trace.steps.size()),
        policy_(policy),
        options_(options),
        last_seconds_(options.strategy_seconds.value_or(0.0)) {}

  ReplayResult run() {
    while (cursor_.next()) {
      step(cursor_.steps_done() - 1);
      if (options_.after_step) options_.after_step(cursor_.steps_done());
    }
    r_.totals.total =
        r_.totals.compute + r_.totals.communication + r_.totals.strategy + r_.totals.migration;
    return std::move(r_);
  }

 private:
  void step(std::size_t s) {
    const Instance& instance = cursor_.instance();
    const Assignment placement = current_assignment(instance);
    const LoadStats stats = load_stats(pe_loads(instance, placement));
    ReplayStep row;
    row.time = predicted_step_time(instance, placement, options_.communication);
    row.compute = stats.max;
    row.communication = row.time - row.compute;
    row.imbalance = stats.imbalance;
    r_.totals.compute += row.compute;
    r_.totals.communication += row.communication;
    ++r_.steps;
    if (options_.predictor != nullptr) options_.predictor->observe(instance);

    const CostParameters costs{options_.migration.startup, options_.migration.per_byte,
                               last_seconds_};
    const Decision decision = policy_.decide({s, &instance, costs});
    if (decision.balance()) {
      if (in_flight_) {
        ++r_.dropped;
      } else {
        start(s, decision, placement, row);
      }
    }
    if (in_flight_ && in_flight_->due == s) apply_in_flight(s, row);
    if (options_.keep_series) r_.series.push_back(std::move(row));
  }

  void start(std::size_t s, const Decision& decision, const Assignment& placement,
             ReplayStep& row) {
    const Instance& instance = cursor_.instance();
    Strategy& strategy = strategy_for(decision);
    std::optional<Instance> predicted;
    if (options_.predictor != nullptr) {
      predicted = instance;
      const std::vector<double> loads = options_.predictor->predict(instance);
      for (std::size_t i = 0; i < loads.size(); ++i) predicted->objects[i].load = loads[i];
    }
    const Instance& given = predicted ? *predicted : instance;
    const auto t0 = std::chrono::steady_clock::now();
    Solution solution = strategy.solve(given);
    const auto t1 = std::chrono::steady_clock::now();
    check_strategy_contract(decision.strategy, instance, solution.assignment);
    const auto named = options_.strategy_seconds_by_name.find(decision.strategy);
    const double seconds =
        named != options_.strategy_seconds_by_name.end()
            ? named->second
            : options_.strategy_seconds.value_or(std::chrono::duration<double>(t1 - t0).count());
    last_seconds_ = seconds;
    ++r_.started;
    row.started = true;
    row.strategy = decision.strategy;

    if (!options_.asynchronous) {
      row.strategy_seconds = seconds;
      r_.totals.strategy += seconds;
      const double before = load_stats(pe_loads(instance, placement)).imbalance;
      const MigrationStats moved = migrations(instance, placement, solution.assignment);
      const double cost = migration_seconds(instance, placement, solution.assignment, moved);
      const double after = load_stats(pe_loads(instance, solution.assignment)).imbalance;
      cursor_.assign(solution.assignment);
      account(s, decision.strategy, seconds, moved, cost, before, after, row);
      return;
    }
    // The answer arrives once the strategy's time has passed, counted in steps of this length.
    const double steps_needed = row.time > 0.0 ? std::ceil(seconds / row.time) : 1.0;
    const double bound = static_cast<double>(total_steps_) + 1.0;  // later than any step
    InFlight f;
    f.due = s + static_cast<std::size_t>(std::clamp(steps_needed, 1.0, bound));
    f.strategy = decision.strategy;
    f.seconds = seconds;
    f.placement.reserve(instance.objects.size());
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      f.placement.emplace_back(instance.objects[i].id, solution.assignment.pe[i]);
    }
    r_.totals.overlapped += seconds;
    in_flight_ = std::move(f);
  }

  void apply_in_flight(std::size_t s, ReplayStep& row) {
    const Instance& instance = cursor_.instance();
    const Assignment before = current_assignment(instance);
    const double lambda_before = load_stats(pe_loads(instance, before)).imbalance;
    cursor_.assign_by_id(in_flight_->placement);
    const Assignment after = current_assignment(instance);
    const MigrationStats moved = migrations(instance, before, after);
    const double cost = migration_seconds(instance, before, after, moved);
    const double lambda_after = load_stats(pe_loads(instance, after)).imbalance;
    if (!row.started) row.strategy = in_flight_->strategy;
    account(s, in_flight_->strategy, in_flight_->seconds, moved, cost, lambda_before, lambda_after,
            row);
    in_flight_.reset();
  }

  // Serial (every byte through one link) or parallel (each PE sends and receives at once, so
  // the busiest PE's objects and bytes, in or out, set the time).
  double migration_seconds(const Instance& instance, const Assignment& from, const Assignment& to,
                           const MigrationStats& moved) const {
    if (options_.migration_cost == MigrationCost::total) {
      return migration_time(moved, options_.migration);
    }
    const std::size_t pes = instance.pes.size();
    std::vector<MigrationStats> out(pes);
    std::vector<MigrationStats> in(pes);
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      if (from.pe[i] == to.pe[i]) continue;
      for (MigrationStats* end :
           {&out[static_cast<std::size_t>(from.pe[i])], &in[static_cast<std::size_t>(to.pe[i])]}) {
        ++end->count;
        end->bytes += instance.objects[i].size;
      }
    }
    double busiest = 0.0;
    for (std::size_t p = 0; p < pes; ++p) {
      busiest = std::max({busiest, migration_time(out[p], options_.migration),
                          migration_time(in[p], options_.migration)});
    }
    return busiest;
  }

  // A placement was applied after step s: charge the migration and tell the policy.
  void account(std::size_t s, const std::string& strategy, double seconds,
               const MigrationStats& moved, double cost, double before, double after,
               ReplayStep& row) {
    row.applied = true;
    row.migrations = moved.count;
    row.bytes_moved = moved.bytes;
    row.migration_seconds = cost;
    r_.totals.migration += cost;
    ++r_.balances;
    r_.migrations += moved.count;
    r_.bytes_moved += moved.bytes;
    BalanceOutcome outcome;
    outcome.step = s;
    outcome.strategy = strategy;
    outcome.strategy_seconds = seconds;
    outcome.migration_seconds = cost;
    outcome.migrations = moved.count;
    outcome.imbalance_before = before;
    outcome.imbalance_after = after;
    policy_.balanced(outcome);
  }

  Strategy& strategy_for(const Decision& d) {
    std::string key = d.strategy;
    for (const auto& [k, v] : d.params) key += "\n" + k + "=" + v;
    auto it = strategies_.find(key);
    if (it == strategies_.end()) {
      it = strategies_.emplace(key, make_strategy(d.strategy, d.params)).first;
    }
    return *it->second;
  }

  TraceCursor cursor_;
  std::size_t total_steps_;
  Policy& policy_;
  const ReplayOptions& options_;
  double last_seconds_;
  std::optional<InFlight> in_flight_;
  std::map<std::string, std::unique_ptr<Strategy>> strategies_;
  ReplayResult r_;
};

}  // namespace

ReplayResult replay(const Trace& trace, Policy& policy, const ReplayOptions& options) {
  return Replayer(trace, policy, options).run();
}

void write_series_csv(const ReplayResult& result, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write the series to '" + path + "'");
  out.precision(17);
  out << "step,time,compute,communication,imbalance,started,applied,strategy,migrations,"
         "strategy_seconds,migration_seconds\n";
  for (std::size_t s = 0; s < result.series.size(); ++s) {
    const ReplayStep& r = result.series[s];
    out << s << ',' << r.time << ',' << r.compute << ',' << r.communication << ',' << r.imbalance
        << ',' << (r.started ? 1 : 0) << ',' << (r.applied ? 1 : 0) << ',' << r.strategy << ','
        << r.migrations << ',' << r.strategy_seconds << ',' << r.migration_seconds << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write the series to '" + path + "'");
}

}  // namespace vela::lb
