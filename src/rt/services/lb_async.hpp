// Asynchronous balancing (docs/architecture.md, "Asynchronous balancing"): the balancing
// thread that runs strategies beside the application, and what its answers carry back to the
// root (PE 0).
//
// Invariants: one thread per process, started on the first job and only in PE 0's process (the
// root submits); jobs run one at a time in the order submitted; a job's strategy object is used
// by this thread alone while the job is queued or running (the root sends no second job for a
// collection before the first one's answer came back). The answer travels to PE 0 as a runtime
// message (Kind::lb_answer), so the root takes it in its own thread, like any other. Once
// closed (after the PEs stopped), an answer still being computed is dropped: counted, never
// posted.
//
// Costs: the strategy's own time on this thread, not on a PE; one message per answer holding
// one PE number per object.
#pragma once

#include <sched.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/message.hpp"
#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/strategy.hpp"
#include "vela/rt/index.hpp"

namespace vela::rt::detail {

struct RuntimeState;

// What the root hands the balancing thread: the step's instance (objects in element order) and
// the strategy to run on it.
struct AsyncJob {
  CollectionId collection = 0;
  std::uint64_t step = 0;  // the collection's sync point it was decided at
  std::string name;        // the strategy's name (the timeline's and the policy's)
  lb::Strategy* strategy = nullptr;
  lb::Instance instance;
  std::uint64_t elements = 0;  // the collection's shape's size (the answer is indexed by it)
};

// A strategy's answer (solve(): an inline step's, or the balancing thread's, sent to the root):
// where each element goes (indexed by element), or the error the strategy threw; with what the
// root tells the policy and the statistics.
struct StrategyAnswer {
  std::uint64_t step = 0;
  std::string name;
  std::string error;            // non-empty: the strategy failed with this message
  std::vector<PeId> placement;  // by element (linear index); -1: not in the instance
  double seconds = 0.0;         // the strategy's time (and what --lb-strategy-time added)
  std::uint64_t moved = 0;      // objects it moves, and their bytes (against the instance)
  std::uint64_t moved_bytes = 0;
  double imbalance_before = 0.0;
  double imbalance_after = 0.0;
  std::int64_t from_ns = 0;  // when it ran, on the runtime's clock (for the timeline)
  std::int64_t to_ns = 0;
  void pup(pup::Archive& ar) {
    ar | step | name | error | placement | seconds | moved | moved_bytes | imbalance_before |
        imbalance_after | from_ns | to_ns;
  }
};

// Runs `strategy` on `instance` (lb::run_strategy), then, while the calling thread's CPU time
// since the start is under `at_least` seconds, keeps computing (--lb-strategy-time: a slower
// strategy). Inline steps and the balancing thread both run strategies through it. The answer's
// fields from the report, its placement by element for a collection of `elements` (the
// instance's objects are elements by id); its error stays empty (exceptions propagate).
StrategyAnswer solve(lb::Strategy& strategy, const std::string& name, const lb::Instance& instance,
                     double at_least, std::uint64_t elements);

class AsyncBalancer {
 public:
  explicit AsyncBalancer(RuntimeState& state);
  ~AsyncBalancer();  // close()
  AsyncBalancer(const AsyncBalancer&) = delete;
  AsyncBalancer& operator=(const AsyncBalancer&) = delete;

  // On PE 0: queues `job`; its answer comes to PE 0 as a Kind::lb_answer message.
  void submit(AsyncJob job);
  // After the PEs stopped: no answer is posted any more; waits for the job running (if any) and
  // drops the queued ones. Returns how many answers were dropped. Idempotent.
  std::uint64_t close();
  // Answers posted to PE 0 (after close(): all there will be).
  std::uint64_t posted();

 private:
  void work();

  RuntimeState& state_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<AsyncJob> jobs_;
  bool closed_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t posted_ = 0;
  std::thread thread_;
};

// The cores the process may use, taken before any PE is pinned: the balancing thread runs on
// any of them (it is not pinned to a PE's core).
void remember_process_cores(RuntimeState& state);

}  // namespace vela::rt::detail
