// The runtime's internal state: PEs, collections, balancing rounds. Only src/rt sees it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "clock.hpp"
#include "inbox.hpp"
#include "message.hpp"
#include "pinning.hpp"
#include "topology.hpp"
#include "transport/transport.hpp"
#include "vela/lb/model/strategy.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/distributed.hpp"
#include "vela/rt/rank_seam.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::rt::trace {
class Timeline;
}

namespace vela::rt::detail {

using Clock = std::chrono::steady_clock;

struct ElementKey {
  CollectionId collection = 0;
  std::uint64_t linear = 0;
  friend bool operator==(const ElementKey&, const ElementKey&) = default;
};

struct ElementKeyHash {
  std::size_t operator()(const ElementKey& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.linear * 0x9E3779B97F4A7C15ull ^ k.collection);
  }
};

// Where an element was last known to be; `migrations` orders updates that cross.
struct Location {
  PeId pe = -1;
  std::uint32_t migrations = 0;
  void pup(pup::Archive& ar) { ar | pe | migrations; }
};

// What a PE knows of one element of a collection: the element itself when it lives here, else
// where it was last known to be (pe < 0: never told, so ask its home).
struct Slot {
  ElementBase* element = nullptr;  // owned (deleted by the PE when it leaves or at the end)
  Location location;
};

// A PE's dense table of one collection, indexed by linear index: finding an element is one
// array access whatever the collection's size.
struct CollectionTable {
  std::vector<Slot> slots;
  std::uint64_t local = 0;  // elements living here
  // Entry messages to the collection sent from this PE and delivered to its elements here:
  // over every PE, their difference is what is in flight (a checkpoint needs none).
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  // With a Grid Queue (else empty): per element, its messages waiting in this PE's ordinary
  // queues, whether or not the element is here yet. Its messages go to the Grid Queue only when
  // none wait there, so that they keep their order when it becomes a border element.
  std::vector<std::uint32_t> ordinary_queued;
};

struct RuntimeState;

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

struct PeState {
  PeState() = default;
  PeState(const PeState&) = delete;
  PeState& operator=(const PeState&) = delete;
  ~PeState();

  PeId id = 0;
  RuntimeState* runtime = nullptr;

  // Written by other threads: messages in, message blocks back.
  Inbox<Message> inbox;
  MessagePool pool;

  // Quiescence detection: written by this PE only, read by any PE looking for quiescence.
  alignas(64) std::atomic<bool> passive{false};
  std::atomic<std::uint64_t> sent{0};      // messages posted to other PEs
  std::atomic<std::uint64_t> received{0};  // messages taken from the inbox
  std::atomic<std::uint64_t> parked_count{0};

  // Only this PE's thread touches what follows.
  alignas(64) MessageList system;  // runtime messages, first
  MessageList fifo;                // priority 0, the common case
  struct Queued {
    int priority;
    std::uint64_t order;
    Message* message;
    bool operator<(const Queued& o) const {  // std::priority_queue pops the largest
      return priority != o.priority ? priority > o.priority : order > o.order;
    }
  };
  std::priority_queue<Queued> prioritized;  // any other priority
  std::uint64_t arrivals = 0;
  // Border prioritization: messages to this PE's border elements, served before the queues
  // above (by priority, then order), at most grid_period in a row while others wait.
  std::priority_queue<Queued> grid;
  int grid_run = 0;
  // The delay device: messages from other clusters with their release time, in arrival order
  // (the same latency for all, so release order too).
  std::deque<std::pair<Ticks, Message*>> delayed;
  std::int32_t cluster = 0;
  double stretch = 0.0;  // an emulated slow PE's entries take (1 + stretch) times as long

  std::array<CollectionTable, 256> tables;
  std::unordered_map<ElementKey, std::vector<Message*>, ElementKeyHash> parked;
  std::map<CollectionId, ReportGather> gathers;  // balancing steps under way, by collection
  std::map<CollectionId, AgentStep> agents;      // distributed ones, by collection
  ElementBase* current = nullptr;                // element whose entry method is running
  // While the scheduler's loop runs one queued entry message (and nothing else of the loop's
  // waits on it): an entry may then wait in place (wait_in_place). Not while the runtime runs
  // several elements' entries in one pass (resuming them after a sync point).
  bool delivering = false;
  // While an element migrating to a PE of another process is sized and packed (an element
  // whose state is only valid in its own process packs it whole then).
  bool migrating_out_of_process = false;
  // While elements are packed for a checkpoint (an element whose state is only valid in its
  // own process refuses, or packs it whole).
  bool checkpointing = false;

  // Measurement, in clock ticks: `mark` is the last entry boundary (the end of one entry is
  // the start of the next); idle and the period since the last balancing step.
  Ticks mark = 0;
  double cpu_mark = 0.0;             // thread CPU seconds at the start of the running entry
  const char* entry_name = nullptr;  // the running entry's trace name (when tracing)
  Ticks idle_ticks = 0;
  Ticks period_start = 0;

  RunStats stats;
  std::thread thread;

  // This PE's table of `collection`, made on first use.
  CollectionTable& table(CollectionId collection) {
    CollectionTable& t = tables[collection];
    if (t.slots.empty()) [[unlikely]]
      make_table(collection);
    return t;
  }
  void make_table(CollectionId collection);
};

// State of one balancing step or reduction, kept by the root (PE 0) only.
struct LbRound {
  std::uint64_t arrived = 0;  // at_sync calls in this round
  std::uint64_t syncs = 0;    // completed balancing points
  lb::Instance instance;
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
  bool in_progress = false;  // a periodic step is under way
};

struct Contribution {
  std::uint32_t number = 0;  // the element's contribution count: which reduction
  ReduceOp op = ReduceOp::sum;
  std::uint32_t reducer = 0;  // with ReduceOp::custom
  Order order = Order::deterministic;
  Callback callback;
  std::vector<double> values;
  void pup(pup::Archive& ar) { ar | number | op | reducer | order | callback | values; }
};

struct ReductionRound {
  std::uint64_t count = 0;
  ReduceOp op = ReduceOp::sum;
  std::uint32_t reducer = 0;
  Order order = Order::deterministic;
  Callback callback;
  std::map<std::uint64_t, std::vector<double>> by_element;  // deterministic order
  std::vector<double> combined;                             // arrival order
};

// One element in a checkpoint: what the runtime keeps of it, then its own state (its pup()).
struct SavedElement {
  std::uint64_t linear = 0;
  std::uint32_t reductions = 0;
  std::vector<std::byte> state;
  void pup(pup::Archive& ar) { ar | linear | reductions | state; }
};
// A PE's part of a checkpoint: its elements and its message counts for the collection.
struct CheckpointPart {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::vector<SavedElement> elements;
  void pup(pup::Archive& ar) { ar | sent | delivered | elements; }
};
// A checkpoint under way, kept by the root (PE 0).
struct CheckpointRound {
  bool active = false;
  PeId parts = 0;
  CheckpointPart all;
  Clock::time_point from;
};

struct CollectionInfo {
  CollectionId id = 0;
  std::string name;
  Shape shape;
  std::vector<PeId> home;  // initial PE, which tracks where the element is
  FactoryId factory = 0;
  std::vector<std::byte> arguments;
  // Every process: the elements' places on the Hilbert curve (hilbert-distributed's agents),
  // made once, by the first of its PEs to need them.
  std::once_flag curve_once;
  std::shared_ptr<const lb::CurvePositions> curve;
  // Root (PE 0) only:
  LbRound lb;
  CheckpointRound checkpoint;
  std::map<std::uint32_t, ReductionRound> reductions;
};

struct RuntimeState {
  Options options;
  PeId pes = 1;  // of the whole run
  ProcessLayout layout;
  std::uint64_t code_layout = 0;  // where the code sat when the runtime was made (a hash)
  std::vector<std::unique_ptr<PeState>> pe;  // this process's, by PE id - layout.first_pe
  std::unique_ptr<Transport> transport;      // several processes; null: one
  Clock::time_point start;
  bool oversubscribed = false;  // more PEs than cores: idle PEs yield instead of pausing
  // An idle PE's windows (options.spin_us; scheduler.cpp's pause_seconds), in ticks, worked
  // out once rather than at every wait.
  Ticks spin_ticks = 0;
  Ticks pause_ticks = 0;

  // Appended by main (on PE 0) and read by every PE without a lock: a slot is written before
  // the count that publishes it.
  static constexpr std::size_t max_collections = 256;
  std::array<std::unique_ptr<CollectionInfo>, max_collections> collections;
  std::atomic<std::size_t> collection_count{0};

  std::vector<std::function<void(const std::vector<double>&)>> callbacks;  // PE 0 only
  std::vector<std::function<void(std::vector<double>&, const std::vector<double>&)>>
      reducers;  // PE 0 only

  std::atomic<std::uint64_t> external_sent{0};  // messages posted by threads that are not PEs
  std::atomic<bool> stopping{false};
  int exit_code = 0;
  std::mutex error_mutex;
  std::exception_ptr error;

  // Clusters and speeds, of every PE of the run (DS-2, DS-5).
  std::vector<std::int32_t> cluster;
  std::int32_t clusters = 1;
  std::vector<double> speed;
  Ticks wan_ticks = 0;      // the delay device's latency; 0: none
  bool grid_queue = false;  // several clusters and --grid-queue-period > 0

  std::unique_ptr<Pinning> pinning;  // with --no-pin: none
  lb::RawParams lb_params;
  Ticks next_periodic_lb = 0;  // PE 0 only
  std::unique_ptr<trace::Timeline> timeline;
  RunStats stats;

  CollectionInfo& collection(CollectionId id);
  // Records the first error and stops every PE.
  void fail(std::exception_ptr e);
};

// Queues `message` for `to` (locally, without an atomic, when `to` is the calling PE).
void post(RuntimeState& state, PeId to, Message* message);
void post_system(RuntimeState& state, PeId to, Kind kind, CollectionId collection,
                 std::uint64_t element, std::vector<std::byte> payload);
// Sends an entry message whose arguments are already packed (a reduction's result).
void send_packed_entry(CollectionId collection, std::uint64_t linear, HandlerId handler,
                       int priority, std::vector<std::byte> payload);
// Ends the run on every PE (of every process).
void stop_all(RuntimeState& state);
// Ends the run on this process's PEs.
void stop_locally(RuntimeState& state);

// wait_in_place: declared in the rank seam (vela/rt/rank_seam.hpp), defined in scheduler.cpp.

// Sums of this process's PE counts, and whether every one was idle when read (quiescence).
struct Wave {
  bool all_passive = true;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t parked = 0;
};
Wave read_wave(const RuntimeState& state);

// Handlers by message kind (delivery.cpp, lb_manager.cpp, reduction.cpp).
// Takes the message. `separate`: measured as an entry of its own; else (an entry run in place
// of the element's own entry, wait_in_place) its time falls in the running entry's segment.
void deliver_entry(PeState& pe, Message* message, bool separate = true);
void create_elements(PeState& pe, Message& message);
void migrate_out(PeState& pe, Message& message);
void migrate_in(PeState& pe, Message& message);
void update_location(PeState& pe, Message& message);
void on_at_sync(PeState& pe, Message& message);
void on_lb_collect(PeState& pe, Message& message);
void on_lb_report(PeState& pe, Message& message);
void on_migrated(PeState& pe, Message& message);
void on_resume(PeState& pe, Message& message);
void on_contribution(PeState& pe, Message& message);
void on_lb_agent(PeState& pe, Message& message);
void on_lb_ready(PeState& pe, Message& message);
void on_lb_proceed(PeState& pe, Message& message);
void on_lb_done(PeState& pe, Message& message);
// Checkpoint/restart (checkpoint.cpp).
void on_checkpoint_collect(PeState& pe, Message& message);
void on_checkpoint_part(PeState& pe, Message& message);
void restore_elements(PeState& pe, Message& message);
// On the root, once every element of `info` reached a sync point: whether a checkpoint is due
// there; if so it is started, and continue_sync() runs once it is written.
bool start_checkpoint(RuntimeState& state, CollectionInfo& info);
// The rest of a sync point: balance, or resume the elements (lb_manager.cpp).
void continue_sync(RuntimeState& state, CollectionInfo& info);
// With --restart: instead of building the new collection's elements, restores them from the
// checkpoint and resumes them (called by create_collection, on the root).
void restore_collection(RuntimeState& state, CollectionInfo& info);
// Tests: called on the sending PE for every message a distributed strategy's agent sends to
// another PE (tag: lb::AgentTag); null: none.
using AgentObserver = void (*)(PeId from, PeId to, std::uint32_t tag);
inline std::atomic<AgentObserver> agent_observer{nullptr};
// On PE 0: starts a step for every collection balanced periodically whose turn has come.
void balance_periodic_collections(PeState& pe);

// Sets a new element's collection, index and PE from the construction under way on this thread.
void fill_from_construction(ElementBase& element);

// Entry-method measurement: one clock read per boundary. An entry starts at the PE's mark (the
// end of what ran before) and its end becomes the next mark.
double thread_cpu_seconds();
void trace_entry(PeState& pe, ElementBase& element, const char* name, Ticks from, Ticks to);

// Runs `work` as element `element`'s entry method: measured and traced. A template, so the
// call costs no std::function (and no allocation). `name()` gives the entry's name for the trace
// (only called when tracing).
// `separate` false: `work` continues the entry under way (it measures nothing of its own).
template <class Name, class Work>
void run_entry(PeState& pe, ElementBase& element, Name&& name, Work&& work, bool separate = true);

struct ElementAccess {
  static CollectionId& collection(ElementBase& e) { return e.collection_; }
  static Index& index(ElementBase& e) { return e.index_; }
  static std::uint64_t& linear(ElementBase& e) { return e.linear_; }
  static std::uint32_t& reductions(ElementBase& e) { return e.reductions_; }
  static std::uint32_t& migrations(ElementBase& e) { return e.migrations_; }
  static bool& border(ElementBase& e) { return e.border_; }
  static bool& at_sync(ElementBase& e) { return e.at_sync_; }
  static double& cpu_seconds(ElementBase& e) { return e.cpu_seconds_; }
  static Ticks& wall_ticks(ElementBase& e) { return e.wall_ticks_; }
  static CommTable& comm(ElementBase& e) { return e.comm_; }
  static PeState*& pe(ElementBase& e) { return e.pe_; }
  static const Shape*& shape(ElementBase& e) { return e.shape_; }
};

// On an emulated slow PE, busy-waits until the segment [from, now) has taken 1 + stretch times
// as long (as the same work would on a PE that much slower); returns the segment's new end.
inline Ticks stretch(const PeState& pe, Ticks from, Ticks now) {
  if (pe.stretch <= 0.0) [[likely]]
    return now;
  const Ticks until = now + static_cast<Ticks>(static_cast<double>(now - from) * pe.stretch);
  while (now < until) {
    cpu_pause();
    now = tick_clock::now();
  }
  return now;
}

template <class Name, class Work>
void run_entry(PeState& pe, ElementBase& element, Name&& name, Work&& work, bool separate) {
  const RuntimeState& state = *pe.runtime;
  const bool measured =
      separate && (state.options.instrument || state.timeline != nullptr || pe.stretch > 0.0);
  const bool cpu = measured && state.options.measure_cpu && state.options.instrument;
  pe.current = &element;
  if (cpu) pe.cpu_mark = thread_cpu_seconds();
  if (measured && state.timeline != nullptr) [[unlikely]]
    pe.entry_name = name();
  work();
  // continue_as() may have handed the rest of the entry to another element: the last segment
  // (from pe.mark) is charged to whoever runs now.
  ElementBase& last = *pe.current;
  pe.current = nullptr;
  if (!measured) return;
  const Ticks from = pe.mark;
  const Ticks to = stretch(pe, from, tick_clock::now());
  ElementAccess::wall_ticks(last) += to - from;
  pe.mark = to;
  if (cpu) ElementAccess::cpu_seconds(last) += thread_cpu_seconds() - pe.cpu_mark;
  if (state.timeline != nullptr) [[unlikely]]
    trace_entry(pe, last, pe.entry_name, from, to);
}

}  // namespace vela::rt::detail
