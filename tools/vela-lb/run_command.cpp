// vela-lb run: one strategy on one instance, with a report and optionally the new placement.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "commands.hpp"
#include "option_rules.hpp"
#include "strategy_options.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::tools {

namespace {

struct RunOptions {
  std::string strategy;
  std::vector<std::string> params;
  std::string input;
  std::string output;
  lb::CommModel model;
  int repeat = 1;
};

void run(const RunOptions& o) {
  auto strategy = lb::make_strategy(o.strategy, parse_params(o.params));
  const lb::Instance instance = lb::read_instance(o.input);
  lb::StrategyReport r = lb::run_strategy(*strategy, o.strategy, instance);
  if (o.repeat > 1) {
    // Invocation after invocation, each on the placement the previous one left (diffusion
    // shows its trapped load this way); the report below compares the first and the last.
    fmt::print("{:>10} {:>10} {:>10} {:>12}\n", "invocation", "λ after", "migrations", "time ms");
    lb::Instance current = instance;
    double total_ms = 0.0;
    for (int k = 1;; ++k) {
      fmt::print("{:>10} {:>9.2f}% {:>10} {:>12.3f}\n", k, 100.0 * r.after.imbalance, r.moved.count,
                 r.time_ms);
      total_ms += r.time_ms;
      current = lb::apply(std::move(current), r.assignment);
      if (k == o.repeat) break;
      r = lb::run_strategy(*strategy, o.strategy, current);
    }
    const lb::Assignment start = lb::current_assignment(instance);
    r.assignment = lb::current_assignment(current);
    r.before = lb::load_stats(lb::pe_loads(instance, start));
    r.after = lb::load_stats(lb::pe_loads(instance, r.assignment));
    r.moved = lb::migrations(instance, start, r.assignment);
    r.cut_before = lb::comm_cut(instance, start);
    r.cut_after = lb::comm_cut(instance, r.assignment);
    r.hypergraph_cut_before = lb::hypergraph_cut(instance, start);
    r.hypergraph_cut_after = lb::hypergraph_cut(instance, r.assignment);
    r.time_ms = total_ms;
    fmt::print("\n");
  }

  fmt::print("instance:      {} ({} objects, {} PEs, {} edges)\n", o.input, instance.objects.size(),
             instance.pes.size(), instance.edges.size());
  fmt::print("strategy:      {} ({:.3f} ms)\n", o.strategy, r.time_ms);
  fmt::print("imbalance:     {:.2f}% -> {:.2f}%\n", 100.0 * r.before.imbalance,
             100.0 * r.after.imbalance);
  fmt::print("max/avg:       {:.4f} -> {:.4f}\n", r.before.max_over_avg, r.after.max_over_avg);
  fmt::print("max PE load:   {:.6g} -> {:.6g} (ideal {:.6g})\n", r.before.max, r.after.max,
             lb::ideal_time(instance));
  fmt::print("σ:             {:.6g} -> {:.6g}\n", r.before.stddev, r.after.stddev);
  fmt::print("skewness:      {:.4f} -> {:.4f}\n", r.before.skewness, r.after.skewness);
  fmt::print("kurtosis:      {:.4f} -> {:.4f} (excess)\n", r.before.excess_kurtosis,
             r.after.excess_kurtosis);
  fmt::print("migrations:    {} objects, {} bytes\n", r.moved.count, r.moved.bytes);
  fmt::print("comm cut:      {} -> {} bytes ({} -> {} messages)\n", r.cut_before.bytes,
             r.cut_after.bytes, r.cut_before.messages, r.cut_after.messages);
  if (!instance.hyperedges.empty()) {
    fmt::print("hyperedge cut: {} -> {} bytes ({} hyperedges)\n", r.hypergraph_cut_before,
               r.hypergraph_cut_after, instance.hyperedges.size());
  }
  if (o.model.startup > 0.0 || o.model.per_byte > 0.0) {
    const lb::Assignment current = lb::current_assignment(instance);
    fmt::print("step time:     {:.6g} -> {:.6g} s predicted; migration {:.6g} s\n",
               lb::predicted_step_time(instance, current, o.model),
               lb::predicted_step_time(instance, r.assignment, o.model),
               lb::migration_time(r.moved, o.model));
  }
  for (const auto& [key, value] : r.stats) fmt::print("  {}: {}\n", key, value);
  if (!o.output.empty()) {
    lb::write_instance(lb::apply(instance, r.assignment), o.output);
    fmt::print("wrote:         {}\n", o.output);
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run one strategy on an instance and report");
  cmd->add_option("--strategy,-s", options->strategy, "Strategy name (see 'vela-lb strategies')")
      ->required();
  cmd->add_option("--param,-p", options->params, "Strategy parameter key=value (repeatable)");
  cmd->add_option("input", options->input, "Instance file (JSON)")->required();
  cmd->add_option("-o,--output", options->output,
                  "Write the instance with the new placement to this file");
  cmd->add_option("--repeat,-k", options->repeat,
                  "Invoke the strategy K times, each on the previous placement, printing λ after "
                  "each")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--startup", options->model.startup,
                  "Seconds per message or migration (T_s), for the predicted step time")
      ->check(non_negative_seconds());
  cmd->add_option("--per-byte", options->model.per_byte,
                  "Seconds per byte (t_w), for the predicted step time")
      ->check(non_negative_seconds());
  cmd->callback([options] { run(*options); });
}

}  // namespace vela::tools
