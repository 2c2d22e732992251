// Runtime options, parsed once with the application's own (CLI11), so `--help` lists both.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "vela/lb/model/params.hpp"

namespace vela::rt {

// What a PE with nothing to run does.
enum class IdleMode {
  adaptive,  // polls its inbox for up to spin_us (yielding the core between polls when there are
             // more PEs than cores), then parks
  spin,      // polls until work comes (lowest latency; keeps its core busy)
  park,      // parks at once on a futex (frees the core; a sender's wake costs a system call)
};

// Who calls MPI in a run across processes.
enum class MpiProgress {
  pe,      // the PEs: a send goes out from the sending PE, PEs poll for arrivals between
           // messages and while idle (one at a time, under a lock)
  thread,  // a communication thread per process: PEs hand it their messages
};

struct Options {
  int pes = 0;  // 0: one per available core (one process); under mpirun: processes × per-process
  // Under mpirun (several processes): PE threads per process; 0: 1. A run spans K processes of
  // T PEs each, PE ids numbered process by process.
  int pes_per_process = 0;
  MpiProgress mpi_progress = MpiProgress::pe;
  // Under mpirun: processes of one machine exchange data messages through shared-memory rings
  // (false: through MPI, as between machines).
  bool mpi_shm = true;
  // Under mpirun: a process from which no heartbeat came for this many seconds (stopped, hung,
  // its machine lost) ends the job, naming it (0: never; src/rt/transport/peer_watch.hpp).
  double peer_timeout = 30;
  // Clusters of PEs: "K1,K2,..." (PE counts, in PE order), a cluster map file (one
  // "PE CLUSTER" line per PE), "probe" (processes measure their latency to each other: those
  // under cluster_threshold_us one-way share a cluster) or "node" (one cluster per machine).
  // Empty: one cluster in one process, "node" under mpirun.
  std::string clusters;
  double cluster_threshold_us = 500.0;  // "probe": one-way latency that separates clusters
  // The delay device: a message between PEs of different clusters is held on the
  // receiving side until its arrival plus this many milliseconds. 0: none.
  double wan_latency_ms = 0.0;
  // Border prioritization: with several clusters, messages to elements that send to
  // another cluster go to a Grid Queue served first, except that after this many in a row one
  // waiting ordinary message runs. 0: no Grid Queue.
  int grid_queue_period = 8;
  // PE speeds: empty (all 1), "measure" (a short calibrated kernel on every PE at
  // start), or numbers: one for every PE, one per cluster, or one per PE. Given numbers are
  // emulated: an entry on a PE of speed s (relative to the fastest) is stretched to 1/s of
  // its time. Strategies see the speeds either way.
  std::string pe_speed;
  bool pin = true;                     // bind each PE's thread to a core (hwloc)
  std::string lb;                      // strategy name; empty: no balancing at sync points
  int lb_period = 1;                   // balance at every K-th at_sync() of a collection
  std::vector<std::string> lb_params;  // strategy parameters, "key=value"
  // When to balance: a policy of vela-lb (see 'vela-lb policies'), asked at every sync point;
  // empty: every lb_period-th sync point. Its "strategy" parameter defaults to `lb`.
  std::string lb_policy;
  std::vector<std::string> lb_policy_params;  // policy parameters, "key=value"
  // Asynchronous balancing (also the policy parameter async=true): at a balancing step the
  // measurements go to a balancing thread and the elements resume at once; the answer is
  // applied at the first sync point after it is ready (a periodic collection: when it is). The
  // thread is not pinned; it runs at this nice value (0 to 19) or, lb_async_idle (the default),
  // in Linux's idle class: on a core it shares with a PE, only when the PE would idle
  // (docs/results/policies.md, section 5).
  bool lb_async = false;
  static constexpr int lb_async_idle = 20;
  int lb_async_nice = lb_async_idle;
  // Cores of PE 0's process set aside for the balancing thread (Pearce's balancing PEs): the
  // process's PEs are pinned to its first cores, the thread to its last lb_pes ones (with PEs
  // left unset, one per core that remains). 0: none, the thread shares the PEs' cores.
  int lb_pes = 0;
  // Every strategy run takes at least this many seconds of its thread's CPU time: it computes,
  // then keeps working until then (a slower strategy, to study when balancing pays). 0: none.
  double lb_strategy_time = 0.0;
  double lb_startup = 0.0;   // seconds per object migrated (T_s), for policies' cost estimates
  double lb_per_byte = 0.0;  // seconds per byte migrated (t_w), likewise
  std::string trace;         // Chrome trace file to write, empty: none
  double lb_interval = 0.0;  // seconds between balancing of collections balanced periodically
  std::string lb_dump;       // directory for one instance file per LB step, empty: none
  // Checkpoint/restart: every checkpoint_every-th sync point of a collection, its elements are
  // written to DIR/<collection>.ckpt (replaced atomically); a run with `restart` restores them
  // from there, on any PE count. Empty: none.
  std::string checkpoint;
  int checkpoint_every = 0;  // with `checkpoint`: sync points between checkpoints (>= 1)
  std::string restart;
  // Measurements travel up a tree of this fan-in over the PE ids (PE p reports to (p - 1) / K);
  // 0: every PE reports straight to PE 0.
  int lb_fan_in = 4;
  bool measure_cpu = false;  // charge entry methods by thread CPU time (else wall time)
  bool instrument = true;    // measure entry methods and communication (balancing needs it)
  IdleMode idle = IdleMode::adaptive;
  double spin_us = 50.0;  // adaptive: how long an idle PE polls before it parks
};

// Adds --pes, --pes-per-process, --mpi-progress, --clusters, --cluster-threshold-us,
// --wan-latency, --grid-queue-period, --pe-speed, --no-pin, --lb, --lb-period, --lb-param,
// --lb-policy, --lb-policy-param, --lb-async, --lb-async-priority, --lb-pes, --lb-strategy-time,
// --lb-startup, --lb-per-byte, --trace, --lb-dump, --checkpoint, --checkpoint-every,
// --restart, --lb-fan-in, --lb-cpu-time, --no-instrument,
// --idle and
// --spin-us to
// `app`, writing into `options`; values are checked as they are parsed (an unknown strategy or a
// malformed parameter is an error naming the option).
void add_runtime_options(CLI::App& app, Options& options);

// Checks options set from code the way the command line checks them; throws
// std::invalid_argument naming the option.
void validate(const Options& options);

// The policy parameters `options` give, with "strategy" set to options.lb when the policy has
// such a parameter and the user did not set it, and without async (the runtime's: every policy
// takes it). Throws lb::ParamError on a malformed one.
lb::RawParams policy_params(const Options& options);

// The policy parameter every policy takes in the runtime: async=true is --lb-async.
inline constexpr std::string_view async_param = "async";
// Whether --lb-policy-param async=... asks for asynchronous balancing. Throws
// std::invalid_argument for a value other than true, false, 1 or 0, lb::ParamError for a
// malformed parameter.
bool policy_async(const Options& options);

}  // namespace vela::rt
