// The balancing manager's state and handlers (services/lb_manager.cpp): the run's balancing
// settings, parsed once from the options; each PE's part of a step under way (measurements
// gathered up the tree, a distributed strategy's agent); the root's round per collection.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/message.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/model/strategy.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/distributed.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/rt/element.hpp"
#include "vela/rt/index.hpp"
#include "vela/rt/options.hpp"

namespace vela::rt::detail {

struct PeState;
struct RuntimeState;
struct CollectionInfo;

// --lb, --lb-param, --lb-policy and --lb-policy-param, checked and parsed once
// (parse_balancing, core/options.cpp) and carried to where strategies and policies are made.
struct BalancingSettings {
  const lb::StrategyInfo* strategy = nullptr;  // --lb's registry entry; null: no --lb
  lb::RawParams strategy_params;               // --lb-param, by name
  lb::ParamValues strategy_values;             // the same, typed and checked against the entry
  lb::RawParams policy_params;                 // --lb-policy-param (and its default strategy)
  // The strategy and the policy made from them when they were checked (a factory may refuse
  // values that are each in range but not together): the first collection balanced takes
  // them, later ones get their own.
  std::unique_ptr<lb::Strategy> strategy_made;
  std::unique_ptr<lb::Policy> policy_made;
  // --lb-async, or the policy parameter async=true: balancing steps run on the balancing
  // thread (services/lb_async.hpp) while the elements go on.
  bool asynchronous = false;
};
// Checks every option as rt::validate does (it runs this) and returns the balancing settings
// parsed. Throws std::invalid_argument naming the option for an unknown strategy or policy, a
// malformed or out-of-range parameter, parameters without the option they belong to, or any
// other option out of its range.
BalancingSettings parse_balancing(const Options& options);

// The run's balancing service.
struct Balancing {
  BalancingSettings settings;
  Ticks next_periodic = 0;  // PE 0 only: when the next periodic step is due
};

// What an element's arrival at a sync point says when it says anything (ElementBase::at_sync):
// the move it asked for (to < 0: none) and how the point balances (a SyncBalance).
struct SyncArrival {
  PeId from = 0;
  PeId to = -1;
  std::uint8_t how = 0;
  void pup(pup::Archive& ar) { ar | from | to | how; }
};

// A PE's measurements of one collection since the last balancing step (sent up the
// measurement tree to the root, which makes the instance from them).
struct ObjectRecord {
  std::uint64_t linear = 0;
  double load = 0.0;  // work on a PE of speed 1
  std::uint64_t size = 0;
  void pup(pup::Archive& ar) { ar | linear | load | size; }
};
struct EdgeRecord {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  void pup(pup::Archive& ar) { ar | from | to | messages | bytes; }
};
struct Report {
  PeId pe = 0;
  double background = 0.0;  // seconds neither idle nor in this collection's entry methods
  std::vector<ObjectRecord> objects;
  std::vector<EdgeRecord> edges;
  void pup(pup::Archive& ar) { ar | pe | background | objects | edges; }
};
// Reports gathered by a PE of the tree: its own and its subtrees'.
struct ReportGather {
  std::vector<Report> reports;
  int parts = 0;  // its own report and one bundle per child, when complete
};
// A PE's part in a step balanced by a distributed strategy (one collection): its agent, made
// from its own measurements, and what other PEs' agents sent before it had measured.
struct AgentStep {
  std::uint64_t step = 0;                       // the collection's sync count it belongs to
  std::unique_ptr<lb::DistributedAgent> agent;  // null until this PE has measured
  std::vector<lb::AgentMessage> early;
  bool ready_sent = false;
};
// A PE's part of the balancing steps under way, by collection. Only its thread touches it.
struct PeBalancing {
  std::map<CollectionId, ReportGather> gathers;
  std::map<CollectionId, AgentStep> agents;  // distributed strategies
};

// State of one collection's balancing steps, kept by the root (PE 0) only.
struct LbRound {
  std::uint64_t arrived = 0;  // at_sync calls in this round
  std::uint64_t syncs = 0;    // completed balancing points
  lb::Instance instance;
  Shape geometry;  // the collection's geometry when the step started (its objects' coordinates)
  // Migrations ordered minus those arrived; the step ends when the moves are decided and this
  // is 0 (with a distributed strategy, PEs report their counts while elements already arrive).
  std::int64_t awaited_migrations = 0;
  bool decided = false;
  Ticks collect_start = 0;  // when the root asked for measurements
  Clock::time_point strategy_from;
  Clock::time_point migrate_from;  // when the central strategy's moves were ordered
  // A step of a distributed strategy (no policy): nothing is gathered but for --lb-dump; each
  // PE's agent decides with its peers, and the PEs report at their barrier and when done.
  bool distributed = false;
  PeId ready = 0;
  PeId done = 0;
  bool dump_pending = false;  // --lb-dump's gather has not reached the root yet
  std::unique_ptr<lb::Strategy> strategy;
  // With --lb-policy: asked at every sync point; the strategies it names, made on first use
  // (keyed by name and parameters); the last strategy's time, for its cost estimates.
  std::unique_ptr<lb::Policy> policy;
  std::map<std::string, std::unique_ptr<lb::Strategy>> named;
  double last_strategy_seconds = 0.0;
  bool periodic = false;     // balanced every --lb-interval, without sync points
  bool at_point = false;     // a sync point is complete and its elements not yet resumed
  bool in_progress = false;  // a periodic step is under way
  // Moves the elements asked for at this sync point (ElementBase::request_pe): element, from, to.
  struct Request {
    std::uint64_t element = 0;
    PeId from = 0;
    PeId to = 0;
  };
  std::vector<Request> requested;
  // How the elements asked this sync point to balance (ElementBase::at_sync's argument), and
  // so how it does: inline, or asynchronously (services/lb_async.hpp).
  SyncBalance how = SyncBalance::as_run;
  std::uint64_t how_given = 0;  // arrivals that named it, this point
  bool async_point = false;
  // Asynchronous balancing: a job is on the balancing thread; an answer waits for the next
  // sync point (by element: its PE); PEs that ordered their part of the answer being applied.
  bool in_flight = false;
  std::optional<std::vector<PeId>> answer;
  std::string answer_name;
  bool applying = false;
  PeId applied = 0;
  Clock::time_point apply_from;
  // The strategies the balancing thread runs, made on first use and used by it alone (an
  // inline step at a later point may run --lb's own object while a job is out).
  std::map<std::string, std::unique_ptr<lb::Strategy>> async_named;
};

// Handlers (services/lb_manager.cpp), each taking its message's payload.
SystemHandler on_at_sync;     // an element reached its sync point (to the root)
SystemHandler on_lb_collect;  // the root asks for this PE's measurements
SystemHandler on_lb_report;   // measurements up the tree
SystemHandler on_migrated;    // an element arrived where the strategy sent it (to the root)
SystemHandler on_resume;      // the step is over: this PE's elements go on
SystemHandler on_lb_agent;    // a distributed strategy's agents talk
SystemHandler on_lb_ready, on_lb_proceed, on_lb_done;  // a distributed step's barriers
SystemHandler on_lb_answer;   // the balancing thread's answer (to the root)
SystemHandler on_lb_apply;    // the root -> every PE: move your elements as the answer says
SystemHandler on_lb_applied;  // a PE ordered its part of the answer's moves (to the root)
// The rest of a sync point: balance, or resume the elements.
void continue_sync(RuntimeState& state, CollectionInfo& info);
// The root: the sync point under way is complete if every element there now is has reached it
// (an element of a dynamic collection left: services/membership.hpp).
void sync_point_if_complete(PeState& pe, CollectionInfo& info);
// On PE 0: starts a step for every collection balanced periodically whose turn has come.
void balance_periodic_collections(PeState& pe);
// Tests: called on the sending PE for every message a distributed strategy's agent sends to
// another PE (tag: lb::AgentTag); null: none.
using AgentObserver = void (*)(PeId from, PeId to, std::uint32_t tag);
inline std::atomic<AgentObserver> agent_observer{nullptr};

}  // namespace vela::rt::detail
