// The runtime's internal state: messages, PEs, collections. Only src/rt sees it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
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

#include "pinning.hpp"
#include "vela/lb/policy.hpp"
#include "vela/lb/strategy.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::rt::trace {
class Timeline;
}

namespace vela::rt::detail {

using Clock = std::chrono::steady_clock;

enum class Kind : std::uint8_t {
  entry,          // an entry method of one element
  create,         // build this PE's elements of a new collection
  call,           // run a function on this PE (main, at start-up)
  migrate_order,  // LB root -> source PE: send these elements away
  migrate_in,     // source PE -> destination PE: an element's state
  location,       // an element now lives on a PE (to its home and to senders)
  at_sync,        // element -> LB root: reached a balancing point
  lb_collect,     // LB root -> every PE: report your measurements
  lb_report,      // PE -> LB root: measurements
  migrated,       // destination PE -> LB root: an element arrived
  resume,         // LB root -> every PE: call resume_from_sync
  contribution,   // element -> root: one reduction contribution
};

// Runtime messages overtake entry methods queued on the same PE, whatever their priority.
inline constexpr int system_priority = INT32_MIN;

struct Message {
  Kind kind = Kind::entry;
  int priority = 0;
  CollectionId collection = 0;
  std::uint64_t element = 0;  // linear index in the collection
  HandlerId handler = 0;
  PeId origin = -1;          // PE that first sent it, told where the element is if it moved
  std::int64_t sender = -1;  // sending element (same collection), for the communication graph
  std::uint32_t hops = 0;    // times forwarded
  std::vector<std::byte> payload;
  std::function<void()> call;  // Kind::call only
};
using MessagePtr = std::unique_ptr<Message>;

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

struct CommCount {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct EdgeKey {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  friend bool operator==(const EdgeKey&, const EdgeKey&) = default;
};
struct EdgeKeyHash {
  std::size_t operator()(const EdgeKey& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.from * 0x9E3779B97F4A7C15ull ^ k.to);
  }
};

struct RuntimeState;

struct PeState {
  PeId id = 0;
  RuntimeState* runtime = nullptr;

  // Filled by any thread, drained by this PE's thread.
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<MessagePtr> inbox;
  bool waiting = false;

  // Only this PE's thread touches what follows.
  struct Queued {
    int priority;
    std::uint64_t order;
    Message* message;
    bool operator<(const Queued& o) const {  // std::priority_queue pops the largest
      return priority != o.priority ? priority > o.priority : order > o.order;
    }
  };
  std::deque<MessagePtr> fifo;              // priority 0, the common case
  std::priority_queue<Queued> prioritized;  // any other priority (owns its messages)
  std::uint64_t arrivals = 0;

  std::unordered_map<ElementKey, std::unique_ptr<ElementBase>, ElementKeyHash> elements;
  std::unordered_map<ElementKey, Location, ElementKeyHash> locations;
  std::unordered_map<ElementKey, std::vector<MessagePtr>, ElementKeyHash> parked;
  ElementBase* current = nullptr;  // element whose entry method is running

  // Measurement since the last balancing step.
  double idle_seconds = 0.0;
  Clock::time_point period_start;
  std::unordered_map<CollectionId, std::unordered_map<EdgeKey, CommCount, EdgeKeyHash>> comm;

  RunStats stats;
  std::thread thread;
};

// State of one balancing step or reduction, kept by the root (PE 0) only.
struct LbRound {
  std::uint64_t arrived = 0;  // at_sync calls in this round
  std::uint64_t syncs = 0;    // completed balancing points
  PeId reports = 0;
  lb::Instance instance;
  std::uint64_t awaited_migrations = 0;
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

struct CollectionInfo {
  CollectionId id = 0;
  std::string name;
  Shape shape;
  std::vector<PeId> home;  // initial PE, which tracks where the element is
  ElementFactory factory;
  std::vector<std::byte> arguments;
  // Root (PE 0) only:
  LbRound lb;
  std::map<std::uint32_t, ReductionRound> reductions;
};

struct RuntimeState {
  Options options;
  PeId pes = 1;
  std::vector<std::unique_ptr<PeState>> pe;
  Clock::time_point start;

  // Appended by main (on PE 0) and read by every PE without a lock: a slot is written before
  // the count that publishes it.
  static constexpr std::size_t max_collections = 256;
  std::array<std::unique_ptr<CollectionInfo>, max_collections> collections;
  std::atomic<std::size_t> collection_count{0};

  std::vector<std::function<void(const std::vector<double>&)>> callbacks;  // PE 0 only
  std::vector<std::function<void(std::vector<double>&, const std::vector<double>&)>>
      reducers;  // PE 0 only

  std::atomic<std::int64_t> outstanding{0};  // messages queued, in flight or running
  std::atomic<bool> stopping{false};
  int exit_code = 0;
  std::mutex error_mutex;
  std::exception_ptr error;

  std::unique_ptr<Pinning> pinning;  // with --no-pin: none
  lb::RawParams lb_params;
  Clock::time_point next_periodic_lb;  // PE 0 only
  std::unique_ptr<trace::Timeline> timeline;
  RunStats stats;

  CollectionInfo& collection(CollectionId id);
};

// The PE whose thread is running, or nullptr outside the PEs.
PeState* this_pe();

// Queues `message` for `to` (locally without a lock when `to` is the calling PE).
void post(RuntimeState& state, PeId to, MessagePtr message);
void post_system(RuntimeState& state, PeId to, Kind kind, CollectionId collection,
                 std::uint64_t element, std::vector<std::byte> payload);

// Handlers by message kind (delivery.cpp, lb_manager.cpp, reduction.cpp).
void deliver_entry(PeState& pe, MessagePtr message);
void create_elements(PeState& pe, const Message& message);
void migrate_out(PeState& pe, const Message& message);
void migrate_in(PeState& pe, const Message& message);
void update_location(PeState& pe, const Message& message);
void on_at_sync(PeState& pe, const Message& message);
void on_lb_collect(PeState& pe, const Message& message);
void on_lb_report(PeState& pe, const Message& message);
void on_migrated(PeState& pe, const Message& message);
void on_resume(PeState& pe, const Message& message);
void on_contribution(PeState& pe, const Message& message);
// On PE 0: starts a step for every collection balanced periodically whose turn has come.
void balance_periodic_collections(PeState& pe);

// Sets a new element's collection, index and PE from the construction under way on this thread.
void fill_from_construction(ElementBase& element);

// What an entry method's measurement starts from.
struct EntryStart {
  Clock::time_point wall;
  double cpu = 0.0;
};
EntryStart begin_entry(PeState& pe, ElementBase& element);
void end_entry(PeState& pe, ElementBase& element, const char* name, const EntryStart& start);

// Runs `work` as element `element`'s entry method: measured and traced. A template, so the
// call costs no std::function (and no allocation).
template <class Work>
void run_entry(PeState& pe, ElementBase& element, const char* name, Work&& work) {
  const EntryStart start = begin_entry(pe, element);
  work();
  end_entry(pe, element, name, start);
}

struct ElementAccess {
  static CollectionId& collection(ElementBase& e) { return e.collection_; }
  static Index& index(ElementBase& e) { return e.index_; }
  static std::uint64_t& linear(ElementBase& e) { return e.linear_; }
  static std::uint32_t& reductions(ElementBase& e) { return e.reductions_; }
  static std::uint32_t& migrations(ElementBase& e) { return e.migrations_; }
  static double& cpu_seconds(ElementBase& e) { return e.cpu_seconds_; }
  static double& wall_seconds(ElementBase& e) { return e.wall_seconds_; }
  static PeState*& pe(ElementBase& e) { return e.pe_; }
};

}  // namespace vela::rt::detail
