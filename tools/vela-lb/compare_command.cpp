// vela-lb compare: several strategies on one instance, as a table, CSV or JSON.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "strategy_options.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/progress/reporter.hpp"

namespace vela::tools {

namespace {

struct CompareOptions {
  std::vector<std::string> strategies;
  std::vector<std::string> params;
  std::string input;
  std::string format = "table";
  bool optimal = false;  // also solve exactly and show each strategy's distance from it
  bool quiet = false;
};

// Each report's max PE load over the optimum's; empty without --optimal.
using Distances = std::vector<double>;

// With hyperedges (a version-2 instance) the table and the CSV also show the hypergraph cut.
void print_table(const lb::Instance& instance, const std::vector<lb::StrategyReport>& reports,
                 const Distances& distances) {
  const bool hyper = !instance.hyperedges.empty();
  fmt::print("{} objects, {} PEs, {} edges", instance.objects.size(), instance.pes.size(),
             instance.edges.size());
  if (hyper) fmt::print(", {} hyperedges", instance.hyperedges.size());
  fmt::print("\n\n");
  fmt::print("{:<20} {:>10} {:>10} {:>8} {:>10} {:>14} {:>14}{} {:>10}{}\n", "strategy", "λ before",
             "λ after", "max/avg", "migrations", "bytes moved", "comm cut B",
             hyper ? fmt::format(" {:>14}", "hyper cut B") : "", "time ms",
             distances.empty() ? "" : "    × optimum");
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const lb::StrategyReport& r = reports[i];
    fmt::print("{:<20} {:>9.2f}% {:>9.2f}% {:>8.4f} {:>10} {:>14} {:>14}{} {:>10.3f}", r.strategy,
               100.0 * r.before.imbalance, 100.0 * r.after.imbalance, r.after.max_over_avg,
               r.moved.count, r.moved.bytes, r.cut_after.bytes,
               hyper ? fmt::format(" {:>14}", r.hypergraph_cut_after) : "", r.time_ms);
    if (!distances.empty()) fmt::print(" {:>12.4f}", distances[i]);
    fmt::print("\n");
  }
}

void print_csv(const lb::Instance& instance, const std::vector<lb::StrategyReport>& reports,
               const Distances& distances) {
  const bool hyper = !instance.hyperedges.empty();
  fmt::print(
      "strategy,lambda_before,lambda_after,max_avg_after,migrations,bytes_moved,comm_cut_bytes,"
      "time_ms{}{}\n",
      distances.empty() ? "" : ",max_over_optimal", hyper ? ",hypergraph_cut_bytes" : "");
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const lb::StrategyReport& r = reports[i];
    fmt::print("{},{:.6f},{:.6f},{:.6f},{},{},{},{:.3f}", r.strategy, r.before.imbalance,
               r.after.imbalance, r.after.max_over_avg, r.moved.count, r.moved.bytes,
               r.cut_after.bytes, r.time_ms);
    if (!distances.empty()) fmt::print(",{:.6f}", distances[i]);
    if (hyper) fmt::print(",{}", r.hypergraph_cut_after);
    fmt::print("\n");
  }
}

void print_json(const std::vector<lb::StrategyReport>& reports, const Distances& distances) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const lb::StrategyReport& r = reports[i];
    nlohmann::json stats = nlohmann::json::object();
    for (const auto& [key, value] : r.stats) stats[key] = value;
    rows.push_back({{"strategy", r.strategy},
                    {"lambda_before", r.before.imbalance},
                    {"lambda_after", r.after.imbalance},
                    {"max_avg_after", r.after.max_over_avg},
                    {"migrations", r.moved.count},
                    {"bytes_moved", r.moved.bytes},
                    {"comm_cut_bytes", r.cut_after.bytes},
                    {"comm_cut_messages", r.cut_after.messages},
                    {"cluster_cut_bytes", r.cut_after.cluster_bytes},
                    {"hypergraph_cut_bytes", r.hypergraph_cut_after},
                    {"time_ms", r.time_ms},
                    {"stats", stats}});
    if (!distances.empty()) rows.back()["max_over_optimal"] = distances[i];
  }
  fmt::print("{}\n", rows.dump(2));
}

void compare(CompareOptions o) {
  if (o.strategies.empty()) {
    for (const lb::StrategyInfo& info : lb::strategies()) {
      if (!info.reference_only) o.strategies.push_back(info.name);
    }
  }
  std::vector<std::string> named = o.strategies;
  if (o.optimal) named.push_back("optimal");
  const auto params = parse_scoped_params(o.params, named);
  // Build every strategy first, so a bad name or parameter fails before any work.
  std::vector<std::unique_ptr<lb::Strategy>> chosen;
  for (const std::string& name : o.strategies) {
    const auto it = params.find(name);
    chosen.push_back(lb::make_strategy(name, it == params.end() ? lb::RawParams{} : it->second));
  }
  const lb::Instance instance = lb::read_instance(o.input);
  // Counted in strategies: each one is a single call (at 10^6 objects, seconds each).
  progress::Reporter progress({"compare", "strategies", chosen.size() + (o.optimal ? 1 : 0)},
                              o.quiet);
  std::vector<lb::StrategyReport> reports;
  for (std::size_t s = 0; s < chosen.size(); ++s) {
    reports.push_back(lb::run_strategy(*chosen[s], o.strategies[s], instance));
    progress.advance();
  }
  Distances distances;
  if (o.optimal) {
    const auto it = params.find("optimal");
    auto exact = lb::make_strategy("optimal", it == params.end() ? lb::RawParams{} : it->second);
    const double optimum = lb::run_strategy(*exact, "optimal", instance).after.max;
    progress.advance();
    for (const lb::StrategyReport& r : reports) {
      distances.push_back(optimum > 0.0 ? r.after.max / optimum : 1.0);
    }
  }
  progress.finish();
  if (o.format == "csv") {
    print_csv(instance, reports, distances);
  } else if (o.format == "json") {
    print_json(reports, distances);
  } else {
    print_table(instance, reports, distances);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Run several strategies on one instance");
  cmd->add_option("--strategies,-s", options->strategies,
                  "Comma-separated strategy names (default: all)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--param,-p", options->params,
                  "Parameter of one strategy, STRATEGY:key=value (repeatable)");
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_flag("--optimal", options->optimal,
                "Also solve exactly (small instances) and show each strategy's max PE load over "
                "the optimum");
  add_quiet_flag(*cmd, options->quiet);
  cmd->add_option("input", options->input, "Instance file (JSON)")->required();
  cmd->callback([options] { compare(*options); });
}

}  // namespace vela::tools
