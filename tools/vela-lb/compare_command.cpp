// vela-lb compare: several strategies on one instance, as a table, CSV or JSON.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "strategy_options.hpp"
#include "vela/lb/evaluate.hpp"
#include "vela/lb/io.hpp"
#include "vela/lb/registry.hpp"

namespace vela::tools {

namespace {

struct CompareOptions {
  std::vector<std::string> strategies;
  std::vector<std::string> params;
  std::string input;
  std::string format = "table";
};

void print_table(const lb::Instance& instance, const std::vector<lb::StrategyReport>& reports) {
  fmt::print("{} objects, {} PEs, {} edges\n\n", instance.objects.size(), instance.pes.size(),
             instance.edges.size());
  fmt::print("{:<16} {:>10} {:>10} {:>8} {:>10} {:>14} {:>14} {:>10}\n", "strategy", "λ before",
             "λ after", "max/avg", "migrations", "bytes moved", "comm cut B", "time ms");
  for (const lb::StrategyReport& r : reports) {
    fmt::print("{:<16} {:>9.2f}% {:>9.2f}% {:>8.4f} {:>10} {:>14} {:>14} {:>10.3f}\n", r.strategy,
               100.0 * r.before.imbalance, 100.0 * r.after.imbalance, r.after.max_over_avg,
               r.moved.count, r.moved.bytes, r.cut_after.bytes, r.time_ms);
  }
}

void print_csv(const std::vector<lb::StrategyReport>& reports) {
  fmt::print(
      "strategy,lambda_before,lambda_after,max_avg_after,migrations,bytes_moved,comm_cut_bytes,"
      "time_ms\n");
  for (const lb::StrategyReport& r : reports) {
    fmt::print("{},{:.6f},{:.6f},{:.6f},{},{},{},{:.3f}\n", r.strategy, r.before.imbalance,
               r.after.imbalance, r.after.max_over_avg, r.moved.count, r.moved.bytes,
               r.cut_after.bytes, r.time_ms);
  }
}

void print_json(const std::vector<lb::StrategyReport>& reports) {
  nlohmann::json rows = nlohmann::json::array();
  for (const lb::StrategyReport& r : reports) {
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
                    {"time_ms", r.time_ms},
                    {"stats", stats}});
  }
  fmt::print("{}\n", rows.dump(2));
}

void compare(CompareOptions o) {
  if (o.strategies.empty()) {
    for (const lb::StrategyInfo& info : lb::strategies()) o.strategies.push_back(info.name);
  }
  const auto params = parse_scoped_params(o.params, o.strategies);
  // Build every strategy first, so a bad name or parameter fails before any work.
  std::vector<std::unique_ptr<lb::Strategy>> chosen;
  for (const std::string& name : o.strategies) {
    const auto it = params.find(name);
    chosen.push_back(lb::make_strategy(name, it == params.end() ? lb::RawParams{} : it->second));
  }
  const lb::Instance instance = lb::read_instance(o.input);
  std::vector<lb::StrategyReport> reports;
  for (std::size_t s = 0; s < chosen.size(); ++s) {
    reports.push_back(lb::run_strategy(*chosen[s], o.strategies[s], instance));
  }
  if (o.format == "csv") {
    print_csv(reports);
  } else if (o.format == "json") {
    print_json(reports);
  } else {
    print_table(instance, reports);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Run several strategies on one instance");
  cmd->add_option("--strategies,-s", options->strategies,
                  "Comma-separated strategy names (default: all)")
      ->delimiter(',');
  cmd->add_option("--param,-p", options->params,
                  "Parameter of one strategy, STRATEGY:key=value (repeatable)");
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("input", options->input, "Instance file (JSON)")->required();
  cmd->callback([options] { compare(*options); });
}

}  // namespace vela::tools
