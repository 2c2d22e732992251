// vela-lb simulate: a load trace run on a simulated platform (SimGrid) under one policy, or
// several compared (--compare); docs/simulation.md.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_rules.hpp"
#include "strategy_options.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/sim/simulate.hpp"

namespace vela::tools {

namespace fs = std::filesystem;

namespace {

struct SimulateCommandOptions {
  std::string input;
  std::string platform;
  std::string policy;
  std::vector<std::string> policy_params;
  std::vector<std::string> compare;
  std::vector<std::string> strategy_times;
  std::string strategy_loads = "period";
  double reference_speed = 0.0;
  int pes_per_host = 0;
  double object_overhead = 0.0;
  double message_overhead = 0.0;
  double migration_startup = 0.0;
  double migration_per_byte = 0.0;
  std::vector<std::string> config;
  std::vector<std::string> link_latencies;
  std::int64_t step_reduction = -1;  // -1: none
  std::vector<std::string> phases;
  int grid_queue = 0;
  bool async = false;
  std::string series;
  std::string format = "table";
};

struct Run : LabeledPolicy {
  sim::SimulationResult result;
};

// The folders holding the platforms shipped with Vela: beside the program (the build tree) and
// the install's share/vela.
std::vector<fs::path> platform_folders() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {self.parent_path() / "platforms",
          self.parent_path().parent_path() / "share" / "vela" / "platforms"};
}

std::vector<std::string> shipped_platforms() {
  std::vector<std::string> names;
  for (const fs::path& folder : platform_folders()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (entry.path().extension() == ".xml") names.push_back(entry.path().stem().string());
    }
    if (!names.empty()) break;
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A file path as given, or the name of a shipped platform (docs/simulation.md, "Platforms").
std::string resolve_platform(const std::string& given) {
  std::error_code ec;
  if (fs::is_regular_file(given, ec)) return given;
  if (given.find('/') == std::string::npos && fs::path(given).extension() != ".xml") {
    for (const fs::path& folder : platform_folders()) {
      const fs::path candidate = folder / (given + ".xml");
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  std::string known;
  for (const std::string& name : shipped_platforms()) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument(
      fmt::format("--platform '{}': no such file, nor a platform shipped with Vela ({})", given,
                  known.empty() ? "none found beside vela-lb or in share/vela/platforms" : known));
}

void write_series(const sim::SimulationResult& r, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write the series to '" + path + "'");
  out.precision(17);
  out << "step,end,time,compute,balanced,strategy,migrations,bytes_moved,strategy_seconds,"
         "balance_seconds\n";
  for (std::size_t s = 0; s < r.series.size(); ++s) {
    const sim::SimulatedStep& x = r.series[s];
    out << s << ',' << x.end << ',' << x.time << ',' << x.compute << ',' << (x.balanced ? 1 : 0)
        << ',' << x.strategy << ',' << x.migrations << ',' << x.bytes_moved << ','
        << x.strategy_seconds << ',' << x.balance_seconds << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write the series to '" + path + "'");
}

void print_one(const Run& run, const std::string& platform) {
  const sim::SimulationResult& r = run.result;
  fmt::print("policy:        {}\n", run.label);
  fmt::print("platform:      {} ({} PEs on {} hosts)\n", platform, r.pes, r.hosts);
  fmt::print("simulated:     {} steps\n", r.steps);
  fmt::print("total:         {:.6f} s\n", r.total);
  fmt::print("  compute:     {:.6f} s (busiest PE of each step, summed)\n", r.compute);
  fmt::print("  balancing:   {:.6f} s ({:.6f} s of strategy)\n", r.balancing, r.strategy);
  if (r.strategy_overlapped > 0.0 || r.answers_unapplied > 0) {
    fmt::print("  asynchronous: {:.6f} s of strategy beside the run, {} answer(s) too late\n",
               r.strategy_overlapped, r.answers_unapplied);
  }
  if (r.overhead > 0.0)
    fmt::print("  overhead:    {:.6f} s (the runtime's own, all PEs)\n", r.overhead);
  fmt::print("efficiency:    {:.4f} (compute of all PEs / (PEs × total))\n", r.efficiency);
  fmt::print("balances:      {}\n", r.balances);
  fmt::print("migrations:    {} objects, {} bytes\n", r.migrations, r.bytes_moved);
  fmt::print("messages:      {} across the network, {} bytes\n", r.messages, r.bytes_sent);
  if (r.cluster_bytes > 0) {
    fmt::print("  between clusters: {} bytes\n", r.cluster_bytes);
  }
  fmt::print("simulator:     {:.1f} MiB peak memory\n",
             static_cast<double>(r.peak_memory) / (1 << 20));
}

void print_table(const std::vector<Run>& runs, double never) {
  std::size_t width = 6;
  for (const Run& run : runs) width = std::max(width, run.label.size());
  fmt::print("{:<{}} {:>14} {:>9} {:>14} {:>12} {:>10} {:>9} {:>11}\n", "policy", width, "total s",
             "× never", "compute s", "balancing s", "efficiency", "balances", "migrations");
  for (const Run& run : runs) {
    const sim::SimulationResult& r = run.result;
    fmt::print("{:<{}} {:>14.4f} {:>9.4f} {:>14.4f} {:>12.4f} {:>10.4f} {:>9} {:>11}\n", run.label,
               width, r.total, never > 0.0 ? r.total / never : 0.0, r.compute, r.balancing,
               r.efficiency, r.balances, r.migrations);
  }
}

void print_csv(const std::vector<Run>& runs, double never) {
  fmt::print(
      "policy,total,relative_to_never,compute,balancing,strategy,efficiency,balances,migrations,"
      "bytes_moved,messages,bytes_sent,cluster_bytes\n");
  for (const Run& run : runs) {
    const sim::SimulationResult& r = run.result;
    std::string label = run.label;  // one cell: the parameters' commas become semicolons
    std::replace(label.begin(), label.end(), ',', ';');
    fmt::print("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{},{}\n", label, r.total,
               never > 0.0 ? r.total / never : 0.0, r.compute, r.balancing, r.strategy,
               r.efficiency, r.balances, r.migrations, r.bytes_moved, r.messages, r.bytes_sent,
               r.cluster_bytes);
  }
}

void print_json(const std::vector<Run>& runs, double never, const SimulateCommandOptions& o,
                const std::string& platform, const lb::Trace& trace) {
  nlohmann::json policies = nlohmann::json::array();
  for (const Run& run : runs) {
    const sim::SimulationResult& r = run.result;
    nlohmann::json series = {{"end", nlohmann::json::array()},
                             {"time", nlohmann::json::array()},
                             {"compute", nlohmann::json::array()},
                             {"balanced", nlohmann::json::array()},
                             {"strategy", nlohmann::json::array()},
                             {"migrations", nlohmann::json::array()},
                             {"balance_seconds", nlohmann::json::array()}};
    for (const sim::SimulatedStep& s : r.series) {
      series["end"].push_back(s.end);
      series["time"].push_back(s.time);
      series["compute"].push_back(s.compute);
      series["balanced"].push_back(s.balanced);
      series["strategy"].push_back(s.strategy);
      series["migrations"].push_back(s.migrations);
      series["balance_seconds"].push_back(s.balance_seconds);
    }
    policies.push_back({{"policy", run.label},
                        {"total", r.total},
                        {"relative_to_never",
                         never > 0.0 ? nlohmann::json(r.total / never) : nlohmann::json(nullptr)},
                        {"compute", r.compute},
                        {"balancing", r.balancing},
                        {"strategy", r.strategy},
                        {"efficiency", r.efficiency},
                        {"balances", r.balances},
                        {"migrations", r.migrations},
                        {"bytes_moved", r.bytes_moved},
                        {"messages", r.messages},
                        {"bytes_sent", r.bytes_sent},
                        {"cluster_bytes", r.cluster_bytes},
                        {"strategy_overlapped", r.strategy_overlapped},
                        {"answers_unapplied", r.answers_unapplied},
                        {"peak_memory", r.peak_memory},
                        {"series", std::move(series)}});
  }
  const nlohmann::json document = {{"format", "vela-simulation"},
                                   {"version", 1},
                                   {"trace", o.input},
                                   {"platform", platform},
                                   {"steps", trace.steps.size()},
                                   {"objects", trace.initial.objects.size()},
                                   {"pes", trace.initial.pes.size()},
                                   {"policies", std::move(policies)}};
  fmt::print("{}\n", document.dump(1));
}

// "NAME=SECONDS" each.
std::map<std::string, double> parse_link_latencies(const std::vector<std::string>& values) {
  std::map<std::string, double> latencies;
  for (const std::string& text : values) {
    const auto eq = text.find('=');
    const std::optional<double> seconds =
        eq == std::string::npos ? std::nullopt : non_negative_number(text.substr(eq + 1));
    if (eq == 0 || !seconds) {
      throw std::invalid_argument("--link-latency: expected LINK=SECONDS (seconds >= 0), got '" +
                                  text + "'");
    }
    latencies[text.substr(0, eq)] = *seconds;
  }
  return latencies;
}

// "ID=K" or "FIRST-LAST=K" each (object ids, inclusive; phase K in 0..255): each object's
// phase by position in the trace's initial objects, or none when no --phase is given.
std::vector<std::uint8_t> parse_phases(const std::vector<std::string>& values,
                                       const lb::Trace& trace) {
  if (values.empty()) return {};
  const std::vector<lb::Object>& objects = trace.initial.objects;
  std::vector<std::uint8_t> phases(objects.size(), 0);
  std::vector<char> given(objects.size(), 0);
  for (const std::string& text : values) {
    const auto bad = [&text](const std::string& why) {
      return std::invalid_argument("--phase '" + text + "': " + why);
    };
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) throw bad("expected ID=PHASE or FIRST-LAST=PHASE");
    const std::optional<double> phase = non_negative_number(text.substr(eq + 1));
    if (!phase || *phase > 255 || *phase != std::floor(*phase)) {
      throw bad("expected a phase from 0 to 255 after '='");
    }
    const std::string ids = text.substr(0, eq);
    const auto dash = ids.find('-', 1);  // a first id may be negative
    long long first = 0;
    long long last = 0;
    try {
      std::size_t used = 0;
      first = std::stoll(ids.substr(0, dash), &used);
      if (used != ids.substr(0, dash).size()) throw std::invalid_argument(ids);
      last = first;
      if (dash != std::string::npos) {
        last = std::stoll(ids.substr(dash + 1), &used);
        if (used != ids.size() - dash - 1) throw std::invalid_argument(ids);
      }
    } catch (const std::exception&) {
      throw bad("expected object ids as ID or FIRST-LAST before '='");
    }
    if (last < first) throw bad("the last id is below the first");
    std::size_t matched = 0;
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (objects[i].id < first || objects[i].id > last) continue;
      if (given[i] != 0)
        throw bad(fmt::format("object {} was given a phase already", objects[i].id));
      given[i] = 1;
      phases[i] = static_cast<std::uint8_t>(*phase);
      ++matched;
    }
    if (matched == 0) throw bad("no object of the trace has such an id");
  }
  return phases;
}

void simulate_command(const SimulateCommandOptions& o) {
  if (!sim::available()) sim::simulate({}, {});  // says that SimGrid is missing
  if (!o.series.empty() && !o.compare.empty()) {
    throw std::invalid_argument("--series needs a single --policy, not --compare");
  }
  std::vector<Run> runs;
  for (LabeledPolicy& p : policies_to_run(o.policy, o.policy_params, o.compare)) {
    runs.push_back({std::move(p), {}});
  }
  // Everything named is checked before the trace is read, so a bad name fails fast.
  for (const Run& run : runs) lb::make_policy(run.name, run.params);
  const StrategyTimes times = parse_strategy_times(o.strategy_times);
  const std::map<std::string, double> link_latencies = parse_link_latencies(o.link_latencies);
  const std::string platform = resolve_platform(o.platform);
  const lb::Trace trace = lb::read_trace(o.input);

  sim::SimulateOptions options;
  options.platform = platform;
  options.strategy_seconds = times.all;
  options.strategy_seconds_by_name = times.by_name;
  options.strategy_loads =
      o.strategy_loads == "step" ? sim::StrategyLoads::step : sim::StrategyLoads::period;
  options.reference_speed = o.reference_speed;
  options.pes_per_host = o.pes_per_host;
  options.object_overhead = o.object_overhead;
  options.message_overhead = o.message_overhead;
  options.migration_startup = o.migration_startup;
  options.migration_per_byte = o.migration_per_byte;
  options.config = o.config;
  options.link_latencies = link_latencies;
  if (o.step_reduction >= 0) options.step_reduction = static_cast<std::uint64_t>(o.step_reduction);
  options.phases = parse_phases(o.phases, trace);
  options.grid_queue_period = o.grid_queue;
  options.async_balancing = o.async;
  options.keep_series = !o.series.empty() || o.format == "json";
  double never = 0.0;
  for (Run& run : runs) {
    options.policy = run.name;
    options.policy_params = run.params;
    run.result = sim::simulate(trace, options);
    if (run.name == "never" && run.params.empty()) never = run.result.total;
  }
  const bool has_never = std::any_of(
      runs.begin(), runs.end(), [](const Run& r) { return r.name == "never" && r.params.empty(); });
  if (!has_never && !o.compare.empty()) {  // the baseline of the table
    options.policy = "never";
    options.policy_params.clear();
    options.keep_series = false;
    never = sim::simulate(trace, options).total;
  }
  if (!o.series.empty()) write_series(runs.front().result, o.series);

  if (o.format == "csv") {
    print_csv(runs, never);
  } else if (o.format == "json") {
    print_json(runs, never, o, platform, trace);
  } else if (o.compare.empty()) {
    print_one(runs.front(), platform);
    if (!o.series.empty()) fmt::print("series:        {}\n", o.series);
  } else {
    fmt::print("{}: {} steps, {} objects, {} PEs; platform {}\n\n", o.input, trace.steps.size(),
               trace.initial.objects.size(), trace.initial.pes.size(), platform);
    print_table(runs, never);
  }
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Simulate a run from a load trace on a SimGrid platform under a policy (or compare several)");
  cmd->add_option("trace", o->input, "Trace file (JSON or binary, docs/trace-format.md)")
      ->required();
  cmd->add_option(
         "--platform", o->platform,
         "SimGrid platform file, or the name of one shipped with Vela (docs/simulation.md)")
      ->required();
  cmd->add_option("--policy", o->policy, "Policy name (see 'vela-lb policies') [default: never]");
  cmd->add_option("-P,--policy-param", o->policy_params, "Policy parameter key=value (repeatable)");
  cmd->add_option("--compare", o->compare,
                  "Compare policies: POLICY or POLICY:key=value,... (repeatable); prints a table "
                  "with each total relative to never")
      ->allow_extra_args(false);
  cmd->add_option("--strategy-time", o->strategy_times,
                  "Seconds charged per strategy call, 'measured' (wall time), or STRATEGY=SECONDS "
                  "for one strategy (repeatable) [default: measured]")
      ->allow_extra_args(false);
  cmd->add_option("--strategy-loads", o->strategy_loads,
                  "period: strategies see each object's mean load since the last balance (as the "
                  "runtime measures it); step: the balancing step's load (as replay) "
                  "[default: period]")
      ->check(CLI::IsMember({"period", "step"}));
  cmd->add_option("--reference-speed", o->reference_speed,
                  "Flop/s of the PE the trace's loads were measured on [default: PE 0's host's "
                  "speed, so loads are seconds on the platform]")
      ->check(non_negative_seconds());
  cmd->add_option("--pes-per-host", o->pes_per_host,
                  "PEs laid on each host [default: the host's cores]")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--object-overhead", o->object_overhead,
                  "Seconds of the runtime's own time per object step (scheduling it), at the "
                  "reference speed [default: 0]")
      ->check(non_negative_seconds());
  cmd->add_option("--message-overhead", o->message_overhead,
                  "Seconds of the runtime's own time per message, on the PE that sends it and on "
                  "the one that receives it [default: 0]")
      ->check(non_negative_seconds());
  cmd->add_option("--migration-startup", o->migration_startup,
                  "Seconds per object moved, as the policy is told (its cost model) [default: 0]")
      ->check(non_negative_seconds());
  cmd->add_option("--migration-per-byte", o->migration_per_byte,
                  "Seconds per byte moved, as the policy is told [default: 0]")
      ->check(non_negative_seconds());
  cmd->add_option("--cfg", o->config,
                  "SimGrid configuration NAME:VALUE, such as network/model:CM02 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--link-latency", o->link_latencies,
                  "LINK=SECONDS: the latency of the platform's link of that name for this run, "
                  "such as wan=0.064 on two-clusters (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--step-reduction", o->step_reduction,
                  "BYTES: every step ends with an all-reduction of this size over all objects "
                  "(an MPI_Allreduce per step, as the BRAMS proxy's) [default: none]")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--phase", o->phases,
                  "ID=K or FIRST-LAST=K: these objects (by id) run in phase K of each step (0 to "
                  "255): an object waits for the step's messages of lower phases and the previous "
                  "step's of the others, as LeanMD's computes (1) after its cells (0) "
                  "(repeatable) [default: all in phase 0]")
      ->allow_extra_args(false);
  cmd->add_option("--grid-queue", o->grid_queue,
                  "PERIOD: border prioritization, as the runtime's --grid-queue-period: objects "
                  "that send to another cluster run first, one other after PERIOD of them in a "
                  "row [default: 0, none]")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--async", o->async,
                "Asynchronous balancing (seed 001's): the strategy runs beside the PEs on the "
                "loads through the decision step, and each object it moves goes between two of "
                "its steps, no PE stopping; its time is not charged");
  cmd->add_option("--series", o->series, "Write the per-step series to this CSV file");
  cmd->add_option("--format,-f", o->format, "Output format: table, csv, or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([o] { simulate_command(*o); });
}

}  // namespace vela::tools
