// The graph benchmark (seed 001 Alg. 1): a weighted graph of work units, each a
// migratable element. Every step each unit sends one message along each of its edges, and when
// it holds all its neighbours' messages of the step it does its weight of calibrated work
// (do_work), folds the messages into its value in a fixed order and, when drifting, changes its
// weight. Balancing points come every --sync-every steps; with --lb-policy cost-model the
// model's pick and predicted step time are printed beside the measured step times. The
// checksum hashes every unit's value, so it is the same for any PE count and balancer if and
// only if every message of every step arrived once. How to run it: docs/user-guide.md,
// *The graph benchmark*.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "graph.hpp"
#include "migration_cost.hpp"
#include "unit.hpp"
#include "vela/lb/policy/cost_model.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/progress/reporter.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using graph_bench::Graph;
using graph_bench::Problem;
using graph_bench::step_progress;
using graph_bench::the_graph;
using graph_bench::Unit;
using Clock = std::chrono::steady_clock;

// A message naming the option when a value is out of range, else empty.
std::string check(const Problem& p, double ns_per_unit) {
  if (p.steps < 1) return fmt::format("--steps {}: expected at least 1 step", p.steps);
  if (p.sync_every < 0) {
    return fmt::format("--sync-every {}: expected 0 (no balancing points) or more", p.sync_every);
  }
  if (!(ns_per_unit > 0.0 && ns_per_unit <= 1e9)) {
    return fmt::format("--ns-per-unit {}: expected nanoseconds in (0, 1e9]", ns_per_unit);
  }
  if (p.unit_bytes < 0 || p.unit_bytes > (1 << 26)) {
    return fmt::format("--unit-bytes {}: expected bytes in [0, 67108864]", p.unit_bytes);
  }
  if (p.message_bytes < 0 || p.message_bytes > (1 << 20)) {
    return fmt::format("--message-bytes {}: expected bytes in [0, 1048576]", p.message_bytes);
  }
  return {};
}

// λ of the start placement by weight: max PE weight / mean - 1.
double start_imbalance(const Graph& g, int pes) {
  std::vector<double> load(static_cast<std::size_t>(pes), 0.0);
  for (std::size_t i = 0; i < g.weight.size(); ++i) {
    load[std::min(static_cast<std::size_t>(g.start[i] * pes), load.size() - 1)] += g.weight[i];
  }
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / pes;
  return mean > 0.0 ? *std::max_element(load.begin(), load.end()) / mean - 1.0 : 0.0;
}

// --lb-policy cost-model runs the runtime's "cost-model" policy under a name of this program's,
// with an observer that records every evaluation. Units reach a first balancing point before
// step 0, which this policy lets pass without asking the model: its measurements hold the
// runtime's start-up, not a step. The model's step k is then the k-th balancing point after it.
constexpr const char* logged_cost_model = "graph-bench-cost-model";

class AfterWarmup final : public vela::lb::Policy {
 public:
  explicit AfterWarmup(std::unique_ptr<vela::lb::Policy> model) : model_(std::move(model)) {}
  vela::lb::Decision decide(const vela::lb::PolicyInput& input) override {
    if (input.step == 0) return {};
    vela::lb::PolicyInput shifted = input;
    shifted.step -= 1;
    return model_->decide(shifted);
  }
  void balanced(const vela::lb::BalanceOutcome& outcome) override {
    vela::lb::BalanceOutcome shifted = outcome;
    shifted.step -= 1;
    model_->balanced(shifted);
  }

 private:
  std::unique_ptr<vela::lb::Policy> model_;
};

void register_logged_cost_model(std::vector<vela::lb::CostModelEvaluation>& log) {
  for (vela::lb::PolicyInfo info : vela::lb::policies()) {
    if (info.name != "cost-model") continue;
    info.name = logged_cost_model;
    info.summary = "cost-model after a start-up balancing point, its evaluations printed";
    info.make = [&log](const vela::lb::ParamValues& p) {
      return std::make_unique<AfterWarmup>(vela::lb::make_cost_model_policy(
          p, [&log](const vela::lb::CostModelEvaluation& e) { log.push_back(e); }));
    };
    vela::lb::register_policy(std::move(info));
  }
}

double mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
  to = std::min(to, v.size());
  if (from >= to) return 0.0;
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(from),
                         v.begin() + static_cast<std::ptrdiff_t>(to), 0.0) /
         static_cast<double>(to - from);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "graph-bench: a weighted graph of work units exchanging one message per edge per step "
      "(Pearce's benchmark, seed 001 Alg. 1)"};
  graph_bench::GraphOptions g;
  Problem p;
  double ns_per_unit = 20000.0;
  vela::rt::Options options;
  app.add_option("--gen", g.gen,
                 "Generator: gamma (gamma-distributed weights) or cluster (a "
                 "heavier region)");
  app.add_option("--instance", g.instance,
                 "An instance file (docs/instance-format.md) instead of a generator: its objects, "
                 "loads (relative), edges and placement");
  app.add_option("--units", g.units, "Work units (generators; on a near-square mesh)");
  app.add_option("--shape", g.shape, "gamma: shape k of the weight distribution");
  app.add_option("--scale", g.scale, "gamma: scale θ (mean weight k θ)");
  app.add_option("--overload", g.overload, "cluster: weight multiplier of the heavy region");
  app.add_option("--region", g.region, "cluster: percent of the units in the heavy region");
  app.add_option("--drift", g.drift,
                 "Percent: half the units change weight by up to this much per step (0..50)");
  app.add_option("--seed", g.seed, "Seed of the weights and the drift");
  app.add_option("--steps", p.steps, "Time steps");
  app.add_option("--sync-every", p.sync_every, "Steps between balancing points (0 = none)");
  app.add_option("--ns-per-unit", ns_per_unit,
                 "Nanoseconds of do_work per unit of weight (calibrated at start-up)");
  app.add_option("--unit-bytes", p.unit_bytes, "Bytes of data each unit carries (migrates)");
  app.add_option("--message-bytes", p.message_bytes, "Payload bytes of each edge's message");
  std::string record;
  app.add_option("--record", record,
                 "Write the units' loads at every step (their weights times --ns-per-unit) and "
                 "the run's start as a vela-lb trace (JSON) to FILE, for `vela-lb replay`");
  bool quiet = false;
  app.add_flag("--quiet", quiet, "No progress line on stderr");
  vela::rt::add_runtime_options(app, options);
  bool trial = true;
  app.add_option("--trial", trial,
                 "With --lb-policy cost-model: run the global strategy at each evaluation to "
                 "price its measured time, moves and resulting load (the policy's trial=on)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help: 0; every bad option: 1
  }
  std::string bad = graph_bench::check(g);
  if (bad.empty()) bad = check(p, ns_per_unit);
  if (!bad.empty()) {
    fmt::print(stderr, "graph-bench: {}\n", bad);
    return 1;
  }
  p.drift = g.drift;
  p.seed = g.seed;
  std::vector<vela::lb::CostModelEvaluation> evaluations;
  const bool given_startup = app.count("--lb-startup") > 0;
  const bool given_per_byte = app.count("--lb-per-byte") > 0;
  if (options.lb_policy == "cost-model") {
    register_logged_cost_model(evaluations);
    options.lb_policy = logged_cost_model;
    p.warmup_sync = p.sync_every > 0;
    if (options.lb.empty()) options.lb = "greedy";
    const bool trial_given =
        std::any_of(options.lb_policy_params.begin(), options.lb_policy_params.end(),
                    [](const std::string& kv) { return kv.starts_with("trial="); });
    if (!trial_given) options.lb_policy_params.push_back(trial ? "trial=on" : "trial=off");
  }
  try {
    if (options.lb_policy == logged_cost_model) {
      // The model's migration prices, unless given: measured on the runtime, not guessed.
      const graph_bench::MigrationCost migration =
          graph_bench::measure_migration(options, p.unit_bytes);
      if (!given_startup) options.lb_startup = migration.per_object;
      if (!given_per_byte) options.lb_per_byte = migration.per_byte;
    }
    const Graph graph = graph_bench::make_graph(g);
    if (graph.weight.size() > static_cast<std::size_t>(INT32_MAX)) {
      throw std::invalid_argument("the graph has more than 2^31 units");
    }
    the_graph = &graph;
    const graph_bench::Calibration cal = graph_bench::calibrate(ns_per_unit);
    p.iterations_per_unit = cal.iterations_per_unit;
    vela::rt::Runtime runtime(options);
    if (!record.empty() && runtime.process() == 0) {
      // Written before the run: the loads are the options' (a pure function of them), and a
      // file that cannot be written stops the run before it starts.
      try {
        vela::lb::write_trace_json(
            graph_bench::load_trace(graph, g, p.steps, static_cast<int>(runtime.pes()),
                                    ns_per_unit * 1e-9, static_cast<std::uint64_t>(p.unit_bytes),
                                    static_cast<std::uint64_t>(p.message_bytes)),
            record);
      } catch (const vela::lb::TraceError& e) {
        throw std::runtime_error(std::string("--record: ") + e.what());
      }
    }
    vela::progress::Reporter progress({"graph-bench", "steps", static_cast<std::uint64_t>(p.steps)},
                                      quiet || runtime.process() != 0);
    if (progress.active()) step_progress = &progress;
    Clock::time_point begin;
    std::vector<Clock::time_point> ends;
    std::vector<double> lanes;
    const auto units = static_cast<std::int32_t>(graph.weight.size());
    const int code = runtime.run([&](vela::rt::Context& ctx) {
      p.step_done = ctx.callback([&](const std::vector<double>&) { ends.push_back(Clock::now()); });
      p.done = ctx.callback([&](const std::vector<double>& r) { lanes = r; });
      const vela::rt::UserMap start = [&graph](const vela::rt::Index& i, const vela::rt::Shape&,
                                               vela::rt::PeId pes) {
        const auto pe =
            static_cast<vela::rt::PeId>(graph.start[static_cast<std::size_t>(i.x)] * pes);
        return std::min(pe, pes - 1);
      };
      auto collection = ctx.create<Unit>("units", vela::rt::Shape::line(units), start, p);
      begin = Clock::now();
      collection.broadcast<&Unit::start>();
    });
    step_progress = nullptr;
    progress.finish();
    the_graph = nullptr;
    if (runtime.process() != 0) return code;
    if (lanes.size() != 4 || ends.size() != static_cast<std::size_t>(p.steps)) {
      fmt::print(stderr, "graph-bench: the run ended before the results were computed\n");
      return 1;
    }
    std::uint64_t sum = 0;
    for (const double l : lanes) sum = graph_bench::mix(sum ^ static_cast<std::uint64_t>(l));
    std::vector<double> step_seconds;
    for (std::size_t s = 0; s < ends.size(); ++s) {
      step_seconds.push_back(
          std::chrono::duration<double>(ends[s] - (s == 0 ? begin : ends[s - 1])).count());
    }
    const double seconds = std::chrono::duration<double>(ends.back() - begin).count();
    const double mean_weight =
        std::accumulate(graph.weight.begin(), graph.weight.end(), 0.0) / units;
    fmt::print(
        "calibration: 1 unit of work = {:.1f} iterations of do_work ({:.3f} ns each; "
        "--ns-per-unit {})\n",
        cal.iterations_per_unit, cal.ns_per_iteration, ns_per_unit);
    fmt::print(
        "graph: {} units  {} edges  mean weight {:.4f}  max weight {:.4f}  start "
        "imbalance {:.2f}% on {} PEs\n",
        units, graph.edges, mean_weight,
        *std::max_element(graph.weight.begin(), graph.weight.end()),
        100.0 * start_imbalance(graph, runtime.pes()), runtime.pes());
    fmt::print("checksum: {:016x}\n", sum);
    fmt::print("time: {:.6f}\n", seconds);
    fmt::print("step: {:.6f}\n", seconds / p.steps);
    // Without step 0 (start-up, and the measurements the first decision is made on).
    fmt::print("after step 0: {:.6f}\n", seconds - step_seconds[0]);
    const auto& s = runtime.stats();
    fmt::print("pes: {}  lb steps: {}  migrations: {}  migrated bytes: {}\n", runtime.pes(),
               s.lb_steps, s.migrations, s.migrated_bytes);
    fmt::print("{}", s.balancing_line());
    if (options.lb_policy == logged_cost_model) {
      fmt::print(
          "migration cost: {:.3f} us per unit + {:.4f} ns per byte{}; measured {:.3f} ms "
          "migrating for {} units: {:.3f} us per unit\n",
          1e6 * options.lb_startup, 1e9 * options.lb_per_byte,
          given_startup || given_per_byte ? " (given)" : " (measured at start-up)",
          1e3 * s.lb_migrate_seconds, s.migrations,
          s.migrations > 0 ? 1e6 * s.lb_migrate_seconds / static_cast<double>(s.migrations) : 0.0);
    }
    // Each evaluation of the cost model, at balancing point k (after step (k + 1) K - 1 of
    // --sync-every K), and the measured step times from two steps after it (its balance runs at
    // the end of that step, the next one carries the migrations) to the next evaluation. The
    // model's times are per balancing period (K steps).
    const auto period = static_cast<std::size_t>(std::max(p.sync_every, 1));
    const auto step_of = [&](std::size_t k) { return (k + 1) * period - 1; };
    for (std::size_t k = 0; k < evaluations.size(); ++k) {
      const auto& e = evaluations[k];
      const auto h = static_cast<double>(e.estimate.diffusion.max_load.size());
      const std::size_t at = step_of(e.step);
      const std::size_t next =
          k + 1 < evaluations.size() ? step_of(evaluations[k + 1].step) + 1 : ends.size();
      using vela::lb::BalanceMode;
      fmt::print(
          "cost model at step {}: pick {}  follows {}  predicted step (ms): none {:.3f} "
          "global {:.3f} diffusive {:.3f}  predicted mean over {} steps (ms): none {:.3f} "
          "global {:.3f} diffusive {:.3f}\n",
          at, to_string(e.estimate.choice), to_string(e.mode),
          1e3 * predicted_step_time(e.estimate, BalanceMode::none),
          1e3 * predicted_step_time(e.estimate, BalanceMode::global),
          1e3 * predicted_step_time(e.estimate, BalanceMode::diffusive), h,
          1e3 * e.estimate.none / h, 1e3 * e.estimate.global / h, 1e3 * e.estimate.diffusive / h);
      fmt::print(
          "measured at step {}: step {} {:.3f} ms; steps {}-{} after: mean {:.3f} ms "
          "(predicted {:.3f} ms for {})\n",
          at, at, 1e3 * step_seconds[at] * static_cast<double>(period), at + 2, next - 1,
          1e3 * mean_of(step_seconds, at + 2, next) * static_cast<double>(period),
          1e3 * predicted_step_time(e.estimate, e.mode), to_string(e.mode));
    }
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "graph-bench: {}\n", e.what());
    return 1;
  }
}
