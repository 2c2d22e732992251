// vela-lb replay: an application run simulated from a load trace under one policy, or several
// policies compared (--compare). Also adds predict and policies (policy_commands.hpp).
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_rules.hpp"
#include "policy_commands.hpp"
#include "strategy_options.hpp"
#include "vela/lb/policy/replay.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/progress/reporter.hpp"

namespace vela::tools {

namespace {

struct ReplayCommandOptions {
  std::string input;
  std::string policy;
  std::vector<std::string> policy_params;
  std::vector<std::string> compare;
  double startup = 0.0;
  double per_byte = 0.0;
  double migration_startup = -1.0;  // -1: as --startup
  double migration_per_byte = -1.0;
  std::vector<std::string> strategy_times;
  std::string migration_cost = "total";
  std::string predictor;
  std::vector<std::string> predictor_params;
  bool async = false;
  std::string series;
  std::string format = "table";
  bool quiet = false;
};

// A policy to run: its label (as the user wrote it), name and parameters.
struct PolicyRun : LabeledPolicy {
  lb::ReplayResult result;
};

std::string describe(const lb::ReplayOptions& o, const std::string& predictor) {
  std::string times =
      o.strategy_seconds ? fmt::format("{} s per call", *o.strategy_seconds) : "measured";
  for (const auto& [name, seconds] : o.strategy_seconds_by_name) {
    times += fmt::format(", {} {} s", name, seconds);
  }
  return fmt::format("{} balancing, strategy time {}, predictor {}",
                     o.asynchronous ? "asynchronous" : "inline", times,
                     predictor.empty() ? "none" : predictor);
}

void print_one(const PolicyRun& run, const lb::ReplayOptions& o, const std::string& predictor) {
  const lb::ReplayResult& r = run.result;
  const lb::ReplayTotals& t = r.totals;
  fmt::print("policy:        {}\n", run.label);
  fmt::print("replay:        {} steps; {}\n", r.steps, describe(o, predictor));
  fmt::print("total:         {:.6f} s\n", t.total);
  fmt::print("  compute:     {:.6f} s\n", t.compute);
  fmt::print("  comm:        {:.6f} s\n", t.communication);
  fmt::print("  strategy:    {:.6f} s\n", t.strategy);
  fmt::print("  migration:   {:.6f} s\n", t.migration);
  if (o.asynchronous) fmt::print("overlapped:    {:.6f} s of strategy time\n", t.overlapped);
  fmt::print("balances:      {} applied, {} started, {} dropped\n", r.balances, r.started,
             r.dropped);
  fmt::print("migrations:    {} objects, {} bytes\n", r.migrations, r.bytes_moved);
}

void print_table(const std::vector<PolicyRun>& runs, double never) {
  std::size_t width = 6;
  for (const PolicyRun& run : runs) width = std::max(width, run.label.size());
  fmt::print("{:<{}} {:>14} {:>9} {:>14} {:>12} {:>12} {:>12} {:>9} {:>11}\n", "policy", width,
             "total s", "× never", "compute s", "comm s", "strategy s", "migration s", "balances",
             "migrations");
  for (const PolicyRun& run : runs) {
    const lb::ReplayTotals& t = run.result.totals;
    fmt::print("{:<{}} {:>14.4f} {:>9.4f} {:>14.4f} {:>12.4f} {:>12.4f} {:>12.4f} {:>9} {:>11}\n",
               run.label, width, t.total, never > 0.0 ? t.total / never : 0.0, t.compute,
               t.communication, t.strategy, t.migration, run.result.balances,
               run.result.migrations);
  }
}

void print_csv(const std::vector<PolicyRun>& runs, double never) {
  fmt::print(
      "policy,total,relative_to_never,compute,communication,strategy,migration,overlapped,"
      "balances,started,dropped,migrations,bytes_moved\n");
  for (const PolicyRun& run : runs) {
    const lb::ReplayResult& r = run.result;
    const lb::ReplayTotals& t = r.totals;
    std::string label = run.label;  // one cell: the parameters' commas become semicolons
    std::replace(label.begin(), label.end(), ',', ';');
    fmt::print("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{}\n", label,
               t.total, never > 0.0 ? t.total / never : 0.0, t.compute, t.communication, t.strategy,
               t.migration, t.overlapped, r.balances, r.started, r.dropped, r.migrations,
               r.bytes_moved);
  }
}

// One document: the trace's size and, per policy, the totals and the per-step series (columns,
// as in the instance files), which `vela-lb report` plots (docs/user-guide.md, "Reports").
void print_json(const std::vector<PolicyRun>& runs, double never, const ReplayCommandOptions& o,
                const lb::Trace& trace) {
  nlohmann::json policies = nlohmann::json::array();
  for (const PolicyRun& run : runs) {
    const lb::ReplayResult& r = run.result;
    const lb::ReplayTotals& t = r.totals;
    nlohmann::json series = {{"time", nlohmann::json::array()},
                             {"compute", nlohmann::json::array()},
                             {"communication", nlohmann::json::array()},
                             {"imbalance", nlohmann::json::array()},
                             {"started", nlohmann::json::array()},
                             {"applied", nlohmann::json::array()},
                             {"strategy", nlohmann::json::array()},
                             {"migrations", nlohmann::json::array()},
                             {"bytes_moved", nlohmann::json::array()},
                             {"strategy_seconds", nlohmann::json::array()},
                             {"migration_seconds", nlohmann::json::array()}};
    for (const lb::ReplayStep& step : r.series) {
      series["time"].push_back(step.time);
      series["compute"].push_back(step.compute);
      series["communication"].push_back(step.communication);
      series["imbalance"].push_back(step.imbalance);
      series["started"].push_back(step.started);
      series["applied"].push_back(step.applied);
      series["strategy"].push_back(step.strategy);
      series["migrations"].push_back(step.migrations);
      series["bytes_moved"].push_back(step.bytes_moved);
      series["strategy_seconds"].push_back(step.strategy_seconds);
      series["migration_seconds"].push_back(step.migration_seconds);
    }
    policies.push_back({{"policy", run.label},
                        {"total", t.total},
                        {"relative_to_never",
                         never > 0.0 ? nlohmann::json(t.total / never) : nlohmann::json(nullptr)},
                        {"compute", t.compute},
                        {"communication", t.communication},
                        {"strategy", t.strategy},
                        {"migration", t.migration},
                        {"overlapped", t.overlapped},
                        {"balances", r.balances},
                        {"started", r.started},
                        {"dropped", r.dropped},
                        {"migrations", r.migrations},
                        {"bytes_moved", r.bytes_moved},
                        {"series", std::move(series)}});
  }
  const nlohmann::json document = {{"format", "vela-replay"},
                                   {"version", 1},
                                   {"trace", o.input},
                                   {"steps", trace.steps.size()},
                                   {"objects", trace.initial.objects.size()},
                                   {"pes", trace.initial.pes.size()},
                                   {"asynchronous", o.async},
                                   {"policies", std::move(policies)}};
  fmt::print("{}\n", document.dump(1));
}

void replay_command(const ReplayCommandOptions& o) {
  if (!o.series.empty() && !o.compare.empty()) {
    throw std::invalid_argument("--series needs a single --policy, not --compare");
  }
  if (o.predictor.empty() && !o.predictor_params.empty()) {
    throw std::invalid_argument("--predictor-param needs --predictor");
  }
  lb::ReplayOptions options;
  options.communication = {o.startup, o.per_byte};
  options.migration = {o.migration_startup >= 0.0 ? o.migration_startup : o.startup,
                       o.migration_per_byte >= 0.0 ? o.migration_per_byte : o.per_byte};
  StrategyTimes times = parse_strategy_times(o.strategy_times);
  options.strategy_seconds = times.all;
  options.strategy_seconds_by_name = std::move(times.by_name);
  options.migration_cost =
      o.migration_cost == "busiest-pe" ? lb::MigrationCost::busiest_pe : lb::MigrationCost::total;
  options.asynchronous = o.async;

  std::vector<PolicyRun> runs;
  for (LabeledPolicy& p : policies_to_run(o.policy, o.policy_params, o.compare)) {
    runs.push_back({std::move(p), {}});
  }
  // Everything named is built before the trace is read, so a bad name or parameter fails fast.
  std::vector<std::unique_ptr<lb::Policy>> policies;
  for (const PolicyRun& run : runs) policies.push_back(lb::make_policy(run.name, run.params));
  if (!o.predictor.empty()) lb::make_predictor(o.predictor, parse_params(o.predictor_params));
  const bool has_never = std::any_of(runs.begin(), runs.end(), [](const PolicyRun& r) {
    return r.name == "never" && r.params.empty();
  });
  const lb::Trace trace = lb::read_trace(o.input);
  const bool replay_never = !has_never && !o.compare.empty();  // the baseline of the table
  progress::Reporter progress(
      {"replay", "steps", (runs.size() + (replay_never ? 1 : 0)) * trace.steps.size()}, o.quiet);
  options.after_step = [&progress](std::size_t) { progress.advance(); };

  double never = 0.0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::unique_ptr<lb::Predictor> predictor;
    if (!o.predictor.empty())
      predictor = lb::make_predictor(o.predictor, parse_params(o.predictor_params));
    options.predictor = predictor.get();
    options.keep_series = !o.series.empty() || o.format == "json";
    runs[k].result = lb::replay(trace, *policies[k], options);
    if (runs[k].name == "never" && runs[k].params.empty()) never = runs[k].result.totals.total;
  }
  if (replay_never) {
    auto baseline = lb::make_policy("never");
    options.predictor = nullptr;
    options.keep_series = false;
    never = lb::replay(trace, *baseline, options).totals.total;
  }
  progress.finish();
  if (!o.series.empty()) lb::write_series_csv(runs.front().result, o.series);

  if (o.format == "csv") {
    print_csv(runs, never);
  } else if (o.format == "json") {
    print_json(runs, never, o, trace);
  } else if (o.compare.empty()) {
    print_one(runs.front(), options, o.predictor);
    if (!o.series.empty()) fmt::print("series:        {}\n", o.series);
  } else {
    fmt::print("{}: {} steps, {} objects at the start, {} PEs; {}\n\n", o.input, trace.steps.size(),
               trace.initial.objects.size(), trace.initial.pes.size(),
               describe(options, o.predictor));
    print_table(runs, never);
  }
}

}  // namespace

void add_replay_commands(CLI::App& app) {
  auto o = std::make_shared<ReplayCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Simulate a run from a load trace under a policy (or compare several policies)");
  cmd->add_option("trace", o->input, "Trace file (JSON or binary, docs/trace-format.md)")
      ->required();
  cmd->add_option("--policy", o->policy, "Policy name (see 'vela-lb policies') [default: never]");
  cmd->add_option("-P,--policy-param", o->policy_params, "Policy parameter key=value (repeatable)");
  cmd->add_option("--compare", o->compare,
                  "Compare policies: POLICY or POLICY:key=value,... (repeatable); prints a table "
                  "with each total relative to never")
      ->allow_extra_args(false);
  cmd->add_option("--startup", o->startup,
                  "Seconds per message (T_s): the step's communication, and per object migrated")
      ->check(non_negative_seconds());
  cmd->add_option("--per-byte", o->per_byte,
                  "Seconds per byte (t_w): the step's communication, and migrated bytes")
      ->check(non_negative_seconds());
  cmd->add_option("--migration-startup", o->migration_startup,
                  "Seconds per object migrated [default: --startup]")
      ->check(non_negative_seconds());
  cmd->add_option("--migration-per-byte", o->migration_per_byte,
                  "Seconds per byte migrated [default: --per-byte]")
      ->check(non_negative_seconds());
  cmd->add_option("--migration-cost", o->migration_cost,
                  "total: every migrated object and byte in turn; busiest-pe: PEs send and "
                  "receive at once, the busiest one sets the time [default: total]")
      ->check(CLI::IsMember({"total", "busiest-pe"}));
  cmd->add_option("--strategy-time", o->strategy_times,
                  "Seconds charged per strategy call, 'measured' (wall time), or STRATEGY=SECONDS "
                  "for one strategy (repeatable) [default: measured]")
      ->allow_extra_args(false);
  cmd->add_option("--predictor", o->predictor,
                  "Give strategies the loads this predictor expects (see 'vela-lb policies')");
  cmd->add_option("--predictor-param", o->predictor_params,
                  "Predictor parameter key=value (repeatable)");
  cmd->add_flag("--async", o->async,
                "Asynchronous balancing: the strategy runs beside the application and its "
                "answer is applied max(1, ceil(strategy time / step time)) steps later");
  cmd->add_option("--series", o->series, "Write the per-step series to this CSV file");
  cmd->add_option("--format,-f", o->format,
                  "Output format: table, csv, or json (totals and per-step series, for "
                  "'vela-lb report')")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  add_quiet_flag(*cmd, o->quiet);
  cmd->callback([o] { replay_command(*o); });
  add_predict_command(app);
  add_policies_command(app);
}

}  // namespace vela::tools
