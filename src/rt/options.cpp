#include "vela/rt/options.hpp"

#include <map>
#include <stdexcept>

#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::rt {

void add_runtime_options(CLI::App& app, Options& options) {
  const std::string group = "Runtime";
  app.add_option("--pes", options.pes, "Processing elements (worker threads); 0: one per core")
      ->check(CLI::Range(0, 4096))
      ->group(group);
  app.add_option("--pes-per-process", options.pes_per_process,
                 "Under mpirun: PE threads per process (default 1); the run has processes x T PEs")
      ->check(CLI::Range(1, 4096))
      ->group(group);
  app.add_option("--mpi-progress", options.mpi_progress,
                 "Under mpirun: who calls MPI: pe (the PEs, between messages and while idle) or "
                 "thread (a communication thread per process)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, MpiProgress>{{"pe", MpiProgress::pe},
                                             {"thread", MpiProgress::thread}},
          CLI::ignore_case))
      ->group(group);
  app.add_flag("!--no-shm", options.mpi_shm,
               "Under mpirun: send messages between processes of one machine by MPI, not "
               "through shared-memory rings")
      ->group(group);
  app.add_option("--clusters", options.clusters,
                 "Clusters of PEs: K1,K2,... (PE counts in PE order), a map FILE (lines 'PE "
                 "CLUSTER'), probe (by latency between processes) or node (one per machine; "
                 "the default under mpirun)")
      ->group(group);
  app.add_option("--cluster-threshold-us", options.cluster_threshold_us,
                 "--clusters probe: one-way latency (microseconds) above which processes are in "
                 "different clusters")
      ->check(CLI::Range(0.0, 1e7))
      ->group(group);
  app.add_option("--wan-latency", options.wan_latency_ms,
                 "Milliseconds added to every message between clusters (the delay device)")
      ->check(CLI::Range(0.0, 1e5))
      ->group(group);
  app.add_option("--grid-queue-period", options.grid_queue_period,
                 "Border prioritization: at most this many Grid Queue messages in a row before "
                 "an ordinary one (0: no Grid Queue)")
      ->check(CLI::Range(0, 1 << 30))
      ->group(group);
  app.add_option("--pe-speed", options.pe_speed,
                 "PE speeds: measure, or S (every PE), S1,S2,... (one per cluster or per PE); "
                 "slower PEs are emulated by stretching their entry methods")
      ->group(group);
  app.add_flag("!--no-pin", options.pin, "Do not bind PE threads to cores")->group(group);
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
          "STRATEGY"))
      ->group(group);
  app.add_option("--lb-period", options.lb_period, "Balance at every K-th sync point")
      ->check(CLI::Range(1, 1 << 30))
      ->group(group);
  app.add_option("--lb-param", options.lb_params, "Strategy parameter key=value (repeatable)")
      ->group(group);
  app.add_option("--lb-policy", options.lb_policy,
                 "When to balance: a policy asked at every sync point (see 'vela-lb policies'); "
                 "its strategy defaults to --lb")
      ->group(group);
  app.add_option("--lb-policy-param", options.lb_policy_params,
                 "Policy parameter key=value (repeatable)")
      ->group(group);
  app.add_option("--lb-startup", options.lb_startup,
                 "Seconds per migrated object (T_s), for the policy's cost estimates")
      ->check(CLI::Range(0.0, 1e6))
      ->group(group);
  app.add_option("--lb-per-byte", options.lb_per_byte,
                 "Seconds per migrated byte (t_w), for the policy's cost estimates")
      ->check(CLI::Range(0.0, 1e6))
      ->group(group);
  app.add_option("--trace", options.trace, "Write a Chrome trace (opens in Perfetto) to FILE")
      ->group(group);
  app.add_option("--lb-interval", options.lb_interval,
                 "Seconds between balancing steps of collections that allow balancing at any "
                 "time (no sync point)")
      ->check(CLI::Range(0.0, 1e6))
      ->group(group);
  app.add_option("--lb-dump", options.lb_dump,
                 "Write each balancing step's instance to DIR (replay with vela-lb)")
      ->group(group);
  app.add_option("--checkpoint", options.checkpoint,
                 "Write each collection's elements to DIR/<collection>.ckpt at every "
                 "--checkpoint-every-th sync point (replaced atomically)")
      ->group(group);
  app.add_option("--checkpoint-every", options.checkpoint_every,
                 "With --checkpoint: sync points of a collection between its checkpoints")
      ->check(CLI::Range(1, 1 << 30))
      ->group(group);
  app.add_option("--restart", options.restart,
                 "Resume from the checkpoint in DIR (written by --checkpoint, on any PE count)")
      ->group(group);
  app.add_option("--lb-fan-in", options.lb_fan_in,
                 "Measurements travel to the balancing root up a tree of this fan-in (0: every PE "
                 "reports to PE 0)")
      ->check(CLI::Range(0, 1 << 20))
      ->group(group);
  app.add_flag("--lb-cpu-time", options.measure_cpu,
               "Measure object load by thread CPU time (a system call per entry method) instead "
               "of wall time")
      ->group(group);
  app.add_flag("!--no-instrument", options.instrument,
               "Measure nothing (no load, no communication graph): balancing sees zero loads")
      ->group(group);
  app.add_option("--idle", options.idle,
                 "What an idle PE does: adaptive (poll up to --spin-us, then park), spin (poll "
                 "only), park (sleep at once)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, IdleMode>{
              {"adaptive", IdleMode::adaptive}, {"spin", IdleMode::spin}, {"park", IdleMode::park}},
          CLI::ignore_case))
      ->group(group);
  app.add_option("--spin-us", options.spin_us,
                 "Microseconds an idle PE polls its inbox before parking (--idle adaptive)")
      ->check(CLI::Range(0.0, 1e6))
      ->group(group);
}

void validate(const Options& options) {
  if (options.pes < 0 || options.pes > 4096) {
    throw std::invalid_argument("--pes " + std::to_string(options.pes) +
                                ": expected 0 (one per core) to 4096");
  }
  if (options.pes_per_process < 0 || options.pes_per_process > 4096) {
    throw std::invalid_argument("--pes-per-process " + std::to_string(options.pes_per_process) +
                                ": expected 1 to 4096 PE threads per process");
  }
  if (!(options.cluster_threshold_us >= 0.0 && options.cluster_threshold_us <= 1e7)) {
    throw std::invalid_argument("--cluster-threshold-us " +
                                std::to_string(options.cluster_threshold_us) +
                                ": expected microseconds in [0, 1e7]");
  }
  if (!(options.wan_latency_ms >= 0.0 && options.wan_latency_ms <= 1e5)) {
    throw std::invalid_argument("--wan-latency " + std::to_string(options.wan_latency_ms) +
                                ": expected milliseconds in [0, 1e5]");
  }
  if (options.grid_queue_period < 0) {
    throw std::invalid_argument("--grid-queue-period " + std::to_string(options.grid_queue_period) +
                                ": expected an integer >= 0 (0: no Grid Queue)");
  }
  if (options.lb_fan_in < 0) {
    throw std::invalid_argument("--lb-fan-in " + std::to_string(options.lb_fan_in) +
                                ": expected an integer >= 0 (0: every PE reports to PE 0)");
  }
  if (options.lb_period < 1) {
    throw std::invalid_argument("--lb-period " + std::to_string(options.lb_period) +
                                ": expected an integer >= 1");
  }
  if (!(options.lb_interval >= 0.0 && options.lb_interval <= 1e6)) {
    throw std::invalid_argument("--lb-interval " + std::to_string(options.lb_interval) +
                                ": expected seconds in [0, 1e6]");
  }
  if (!(options.spin_us >= 0.0 && options.spin_us <= 1e6)) {
    throw std::invalid_argument("--spin-us " + std::to_string(options.spin_us) +
                                ": expected microseconds in [0, 1e6]");
  }
  if (options.idle != IdleMode::adaptive && options.idle != IdleMode::spin &&
      options.idle != IdleMode::park) {
    throw std::invalid_argument("--idle: expected adaptive, spin or park");
  }
  if (options.checkpoint.empty() != (options.checkpoint_every == 0)) {
    throw std::invalid_argument(
        options.checkpoint.empty()
            ? "--checkpoint-every " + std::to_string(options.checkpoint_every) +
                  " given without --checkpoint DIR"
            : "--checkpoint " + options.checkpoint +
                  ": needs --checkpoint-every K (sync points between checkpoints)");
  }
  if (options.checkpoint_every < 0) {
    throw std::invalid_argument("--checkpoint-every " + std::to_string(options.checkpoint_every) +
                                ": expected an integer >= 1");
  }
  if (!options.lb.empty()) {
    try {
      lb::RawParams raw;
      for (const std::string& s : options.lb_params) lb::parse_param(s, raw);
      lb::make_strategy(options.lb, raw);
    } catch (const lb::ParamError& e) {
      throw std::invalid_argument(std::string("--lb: ") + e.what());
    }
  } else if (!options.lb_params.empty()) {
    throw std::invalid_argument("--lb-param given without --lb");
  }
  if (!(options.lb_startup >= 0.0 && options.lb_startup <= 1e6)) {
    throw std::invalid_argument("--lb-startup " + std::to_string(options.lb_startup) +
                                ": expected seconds in [0, 1e6]");
  }
  if (!(options.lb_per_byte >= 0.0 && options.lb_per_byte <= 1e6)) {
    throw std::invalid_argument("--lb-per-byte " + std::to_string(options.lb_per_byte) +
                                ": expected seconds in [0, 1e6]");
  }
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
    lb::make_policy(options.lb_policy, policy_params(options));
  } catch (const lb::ParamError& e) {
    throw std::invalid_argument(std::string("--lb-policy: ") + e.what());
  }
}

lb::RawParams policy_params(const Options& options) {
  lb::RawParams raw;
  for (const std::string& s : options.lb_policy_params) lb::parse_param(s, raw);
  for (const lb::PolicyInfo& info : lb::policies()) {
    if (info.name != options.lb_policy) continue;
    for (const lb::ParamSpec& spec : info.params) {
      if (spec.name == "strategy" && raw.count("strategy") == 0) raw["strategy"] = options.lb;
    }
  }
  return raw;
}

}  // namespace vela::rt
