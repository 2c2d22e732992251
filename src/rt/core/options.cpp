#include "vela/rt/options.hpp"

#include <limits>
#include <map>
#include <stdexcept>

#include "services/lb_manager.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::rt {

namespace {

// An option whose value must lie in [lo, hi], checked as it is parsed.
template <class T>
CLI::Option* ranged(CLI::App& app, const std::string& name, T& value, T lo, T hi,
                    const std::string& help) {
  return app.add_option(name, value, help)->check(CLI::Range(lo, hi));
}

}  // namespace

void add_runtime_options(CLI::App& app, Options& options) {
  // Every option below in the help's "Runtime" group; the application's own keep theirs.
  CLI::OptionDefaults* defaults = app.option_defaults();
  const std::string before = defaults->get_group();
  defaults->group("Runtime");
  ranged(app, "--pes", options.pes, 0, 4096,
         "Processing elements (worker threads); 0: one per core");
  ranged(app, "--pes-per-process", options.pes_per_process, 1, 4096,
         "Under mpirun: PE threads per process (default 1); the run has processes x T PEs");
  app.add_option("--mpi-progress", options.mpi_progress,
                 "Under mpirun: who calls MPI: pe (the PEs, between messages and while idle) or "
                 "thread (a communication thread per process)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, MpiProgress>{{"pe", MpiProgress::pe},
                                             {"thread", MpiProgress::thread}},
          CLI::ignore_case));
  app.add_flag("!--no-shm", options.mpi_shm,
               "Under mpirun: send messages between processes of one machine by MPI, not "
               "through shared-memory rings");
  ranged(app, "--peer-timeout", options.peer_timeout, 0.0, 1e6,
         "Under mpirun: seconds without a heartbeat from another process (stopped, hung, its "
         "machine lost) before the job ends naming it, with status 143 (0: never)");
  app.add_option("--clusters", options.clusters,
                 "Clusters of PEs: K1,K2,... (PE counts in PE order), a map FILE (lines 'PE "
                 "CLUSTER'), probe (by latency between processes) or node (one per machine; "
                 "the default under mpirun)");
  ranged(app, "--cluster-threshold-us", options.cluster_threshold_us, 0.0, 1e7,
         "--clusters probe: one-way latency (microseconds) above which processes are in "
         "different clusters");
  ranged(app, "--wan-latency", options.wan_latency_ms, 0.0, 1e5,
         "Milliseconds added to every message between clusters (the delay device)");
  ranged(app, "--grid-queue-period", options.grid_queue_period, 0, 1 << 30,
         "Border prioritization: at most this many Grid Queue messages in a row before "
         "an ordinary one (0: no Grid Queue)");
  app.add_option("--pe-speed", options.pe_speed,
                 "PE speeds: measure, or S (every PE), S1,S2,... (one per cluster or per PE); "
                 "slower PEs are emulated by stretching their entry methods");
  app.add_flag("!--no-pin", options.pin, "Do not bind PE threads to cores");
  app.add_option("--lb", options.lb, "Strategy to run at sync points (see 'vela-lb strategies')")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            try {
              lb::find_strategy(name);
            } catch (const lb::ParamError& e) {
              return e.what();
            }
            return {};
          },
          "STRATEGY"));
  ranged(app, "--lb-period", options.lb_period, 1, 1 << 30, "Balance at every K-th sync point");
  app.add_option("--lb-param", options.lb_params, "Strategy parameter key=value (repeatable)");
  app.add_option("--lb-policy", options.lb_policy,
                 "When to balance: a policy asked at every sync point (see 'vela-lb policies'); "
                 "its strategy defaults to --lb");
  app.add_option("--lb-policy-param", options.lb_policy_params,
                 "Policy parameter key=value (repeatable)");
  app.add_flag("--lb-async", options.lb_async,
               "Balance asynchronously: the strategy runs on a balancing thread while the "
               "elements go on; its answer is applied at the next sync point after it is ready");
  app.add_option("--lb-async-priority", options.lb_async_nice,
                 "With --lb-async: the balancing thread's priority: idle (the default: it runs "
                 "only where a core would idle) or a nice value 0 to 19 (0: the PEs' own)")
      ->transform(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text == "idle") {
              text = std::to_string(Options::lb_async_idle);
              return {};
            }
            const bool digits = !text.empty() && text.size() <= 2 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || std::stoi(text) > 19) {
              return "expected idle or a nice value from 0 to 19, got " + text;
            }
            return {};
          },
          "idle|0..19"));
  ranged(app, "--lb-pes", options.lb_pes, 0, 1 << 16,
         "Cores of PE 0's process set aside for the balancing thread (asynchronous balancing): "
         "its PEs run on the others (0: the thread shares the PEs' cores)");
  ranged(app, "--lb-strategy-time", options.lb_strategy_time, 0.0, 1e6,
         "Every strategy run takes at least this many seconds of CPU time (a slower strategy, "
         "to study when balancing pays)");
  ranged(app, "--lb-startup", options.lb_startup, 0.0, 1e6,
         "Seconds per migrated object (T_s), for the policy's cost estimates");
  ranged(app, "--lb-per-byte", options.lb_per_byte, 0.0, 1e6,
         "Seconds per migrated byte (t_w), for the policy's cost estimates");
  app.add_option("--trace", options.trace, "Write a Chrome trace (opens in Perfetto) to FILE");
  ranged(app, "--lb-interval", options.lb_interval, 0.0, 1e6,
         "Seconds between balancing steps of collections that allow balancing at any "
         "time (no sync point)");
  app.add_option("--lb-dump", options.lb_dump,
                 "Write each balancing step's instance to DIR (replay with vela-lb)");
  app.add_option("--checkpoint", options.checkpoint,
                 "Write each collection's elements to DIR/<collection>.ckpt at every "
                 "--checkpoint-every-th sync point (replaced atomically)");
  ranged(app, "--checkpoint-every", options.checkpoint_every, 1, 1 << 30,
         "With --checkpoint: sync points of a collection between its checkpoints");
  app.add_option("--restart", options.restart,
                 "Resume from the checkpoint in DIR (written by --checkpoint, on any PE count)");
  ranged(app, "--lb-fan-in", options.lb_fan_in, 0, 1 << 20,
         "Measurements travel to the balancing root up a tree of this fan-in (0: every PE "
         "reports to PE 0)");
  app.add_flag("--lb-cpu-time", options.measure_cpu,
               "Measure object load by thread CPU time (a system call per entry method) instead "
               "of wall time");
  app.add_flag("!--no-instrument", options.instrument,
               "Measure nothing (no load, no communication graph): balancing sees zero loads");
  app.add_option("--idle", options.idle,
                 "What an idle PE does: adaptive (poll up to --spin-us, then park), spin (poll "
                 "only), park (sleep at once)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, IdleMode>{
              {"adaptive", IdleMode::adaptive}, {"spin", IdleMode::spin}, {"park", IdleMode::park}},
          CLI::ignore_case));
  ranged(app, "--spin-us", options.spin_us, 0.0, 1e6,
         "Microseconds an idle PE polls its inbox before parking (--idle adaptive)");
  defaults->group(before);
}

namespace {

// Throws std::invalid_argument "OPTION VALUE: expected EXPECTED" unless lo <= value <= hi (a
// NaN is out of every range).
template <class T>
void check_range(T value, T lo, T hi, const char* option, const char* expected) {
  if (!(value >= lo && value <= hi)) {
    throw std::invalid_argument(std::string(option) + " " + std::to_string(value) + ": expected " +
                                expected);
  }
}

constexpr int most = std::numeric_limits<int>::max();

// The options that are numbers in a range.
void check_ranges(const Options& o) {
  check_range(o.pes, 0, 4096, "--pes", "0 (one per core) to 4096");
  check_range(o.pes_per_process, 0, 4096, "--pes-per-process", "1 to 4096 PE threads per process");
  check_range(o.cluster_threshold_us, 0.0, 1e7, "--cluster-threshold-us",
              "microseconds in [0, 1e7]");
  check_range(o.wan_latency_ms, 0.0, 1e5, "--wan-latency", "milliseconds in [0, 1e5]");
  check_range(o.grid_queue_period, 0, most, "--grid-queue-period",
              "an integer >= 0 (0: no Grid Queue)");
  check_range(o.lb_fan_in, 0, most, "--lb-fan-in", "an integer >= 0 (0: every PE reports to PE 0)");
  check_range(o.lb_period, 1, most, "--lb-period", "an integer >= 1");
  check_range(o.lb_interval, 0.0, 1e6, "--lb-interval", "seconds in [0, 1e6]");
  check_range(o.spin_us, 0.0, 1e6, "--spin-us", "microseconds in [0, 1e6]");
  check_range(o.lb_startup, 0.0, 1e6, "--lb-startup", "seconds in [0, 1e6]");
  check_range(o.lb_per_byte, 0.0, 1e6, "--lb-per-byte", "seconds in [0, 1e6]");
  check_range(o.lb_async_nice, 0, Options::lb_async_idle, "--lb-async-priority",
              "idle or a nice value from 0 to 19");
  check_range(o.lb_strategy_time, 0.0, 1e6, "--lb-strategy-time", "seconds in [0, 1e6]");
  check_range(o.lb_pes, 0, 1 << 16, "--lb-pes", "an integer >= 0 (cores set aside)");
}

void check_checkpoint(const Options& options) {
  if (options.checkpoint.empty() != (options.checkpoint_every == 0)) {
    throw std::invalid_argument(
        options.checkpoint.empty()
            ? "--checkpoint-every " + std::to_string(options.checkpoint_every) +
                  " given without --checkpoint DIR"
            : "--checkpoint " + options.checkpoint +
                  ": needs --checkpoint-every K (sync points between checkpoints)");
  }
  check_range(options.checkpoint_every, 0, most, "--checkpoint-every", "an integer >= 1");
}

// --lb and --lb-param, parsed into `settings`.
void parse_strategy(const Options& options, detail::BalancingSettings& settings) {
  if (options.lb.empty()) {
    if (!options.lb_params.empty()) throw std::invalid_argument("--lb-param given without --lb");
    return;
  }
  try {
    settings.strategy = &lb::find_strategy(options.lb);
    for (const std::string& s : options.lb_params) lb::parse_param(s, settings.strategy_params);
    settings.strategy_values = lb::ParamValues(settings.strategy->name, settings.strategy->params,
                                               settings.strategy_params);
    settings.strategy_made = settings.strategy->make(settings.strategy_values);
  } catch (const lb::ParamError& e) {
    throw std::invalid_argument(std::string("--lb: ") + e.what());
  }
}

// --lb-policy and --lb-policy-param, parsed into `settings` (the policy is made once to check
// them: its parameters' names and ranges are the policy's to check).
void parse_policy(const Options& options, detail::BalancingSettings& settings) {
  if (options.lb_policy.empty()) {
    if (!options.lb_policy_params.empty()) {
      throw std::invalid_argument("--lb-policy-param given without --lb-policy");
    }
    return;
  }
  if (options.lb.empty()) {
    throw std::invalid_argument("--lb-policy " + options.lb_policy +
                                ": needs --lb (the strategy the policy runs by default)");
  }
  if (options.lb_period != 1) {
    throw std::invalid_argument(
        "--lb-period and --lb-policy: give one (the policy decides at every sync point; "
        "'--lb-policy periodic --lb-policy-param every=K' balances every K-th)");
  }
  try {
    settings.policy_params = policy_params(options);
    settings.policy_made = lb::make_policy(options.lb_policy, settings.policy_params);
  } catch (const lb::ParamError& e) {
    throw std::invalid_argument(std::string("--lb-policy: ") + e.what());
  }
  settings.asynchronous = settings.asynchronous || policy_async(options);
}

}  // namespace

detail::BalancingSettings detail::parse_balancing(const Options& options) {
  check_ranges(options);
  if (options.idle != IdleMode::adaptive && options.idle != IdleMode::spin &&
      options.idle != IdleMode::park) {
    throw std::invalid_argument("--idle: expected adaptive, spin or park");
  }
  check_checkpoint(options);
  BalancingSettings settings;
  settings.asynchronous = options.lb_async;
  if (options.lb_async && options.lb.empty()) {
    throw std::invalid_argument("--lb-async given without --lb (no strategy to run)");
  }
  if (options.lb_pes > 0 && options.lb.empty()) {
    throw std::invalid_argument("--lb-pes " + std::to_string(options.lb_pes) +
                                " given without --lb (no strategy for the cores set aside)");
  }
  if (options.lb_pes > 0 && !options.pin) {
    throw std::invalid_argument("--lb-pes " + std::to_string(options.lb_pes) +
                                " given with --no-pin (the cores are set aside by pinning the "
                                "PEs to the others)");
  }
  parse_strategy(options, settings);
  parse_policy(options, settings);
  return settings;
}

void validate(const Options& options) {
  detail::parse_balancing(options);
}

bool policy_async(const Options& options) {
  lb::RawParams raw;
  for (const std::string& s : options.lb_policy_params) lb::parse_param(s, raw);
  const auto it = raw.find(std::string(async_param));
  if (it == raw.end()) return false;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  throw std::invalid_argument("--lb-policy-param async=" + it->second +
                              ": expected true, false, 1 or 0");
}

lb::RawParams policy_params(const Options& options) {
  lb::RawParams raw;
  for (const std::string& s : options.lb_policy_params) lb::parse_param(s, raw);
  raw.erase(std::string(async_param));  // the runtime's, not the policy's
  for (const lb::PolicyInfo& info : lb::policies()) {
    if (info.name != options.lb_policy) continue;
    for (const lb::ParamSpec& spec : info.params) {
      if (spec.name == "strategy" && raw.count("strategy") == 0) raw["strategy"] = options.lb;
    }
  }
  return raw;
}

}  // namespace vela::rt
