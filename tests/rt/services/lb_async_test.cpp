// Asynchronous balancing (--lb-async): the strategy runs on the balancing thread while the
// elements go on, its answer moves them at a later sync point, no message is lost, every answer
// is accounted for, and an answer the run no longer waits for is dropped cleanly.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;

// Elements that send to their neighbours each round and reach a sync point; each notes the
// rounds after which it resumed on another PE, and every message it took. With
// `stop_after_move`, the run ends 3 rounds after the first move (whenever the balancing thread
// got the time to answer): every element resumed from that move's point before any resumes from
// the next one, so all see the same last round.
struct Book {
  std::int32_t elements = 0;
  std::int32_t rounds = 0;
  bool stop_after_move = false;
  std::atomic<std::int32_t> stop_round{-1};
  std::vector<std::atomic<std::uint64_t>> received;  // per element, over the rounds
  std::mutex mutex;
  std::set<std::int32_t> move_rounds;  // rounds whose sync point moved an element
  Book(std::int32_t n, std::int32_t r)
      : elements(n), rounds(r), received(static_cast<std::size_t>(n)) {}
  // The rounds every element went through.
  std::int32_t done() const {
    const std::int32_t stop = stop_round.load();
    return stop < 0 ? rounds : std::min(stop, rounds);
  }
};
Book* book = nullptr;
vela::rt::SyncBalance point_how = vela::rt::SyncBalance::as_run;
int odd_one = -1;  // an element that asks for another way of balancing (refused)

class Stepper : public vela::rt::ElementBase {
 public:
  Stepper() = default;
  explicit Stepper(int) {}
  void pup(vela::pup::Archive& ar) override { ar | round_ | pe_; }

  void start() {
    pe_ = pe();
    step();
  }
  // Each element takes one message from each neighbour per round (whenever it arrives: a sync
  // point does not wait for messages in flight).
  void take(std::int32_t round, std::int32_t sender) {
    const std::int32_t n = book->elements;
    if (round >= 0 && round < book->rounds &&
        (sender == (index().x + 1) % n || sender == (index().x + n - 1) % n)) {
      ++book->received[static_cast<std::size_t>(index().x)];
    }
  }
  void resume_from_sync() override {
    if (pe() != pe_) {
      const std::lock_guard lock(book->mutex);
      book->move_rounds.insert(round_);
      std::int32_t none = -1;
      if (book->stop_after_move) book->stop_round.compare_exchange_strong(none, round_ + 3);
    }
    pe_ = pe();
    if (++round_ < book->done()) step();
  }

 private:
  void step() {
    const std::int32_t n = book->elements;
    for (const std::int32_t d : {1, n - 1}) {
      send<&Stepper::take>(Index{(index().x + d) % n, 0, 0}, round_, index().x);
    }
    at_sync(index().x == odd_one ? vela::rt::SyncBalance::inline_step : point_how);
  }
  std::int32_t round_ = 0;
  vela::rt::PeId pe_ = -1;
};

vela::rt::RunStats run_steps(vela::rt::Options options, std::int32_t elements, std::int32_t rounds,
                             std::set<std::int32_t>* moves = nullptr,
                             bool stop_after_move = false) {
  Book b(elements, rounds);
  b.stop_after_move = stop_after_move;
  book = &b;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  const int code = runtime.run([elements](vela::rt::Context& ctx) {
    auto steppers = ctx.create<Stepper>("steppers", vela::rt::Shape::line(elements),
                                        vela::rt::InitialMap::block, 0);
    steppers.broadcast<&Stepper::start>();
  });
  EXPECT_EQ(code, 0);
  std::size_t wrong = 0;
  for (const auto& r : b.received) wrong += r.load() != 2u * static_cast<std::uint64_t>(b.done());
  EXPECT_EQ(wrong, 0u) << "messages lost or duplicated";
  if (moves != nullptr) *moves = b.move_rounds;
  book = nullptr;
  return runtime.stats();
}

// The balancing thread at the PEs' priority: in the idle class (the default) a machine busy
// with other work could hold its answers back without bound, and these runs go on until an
// answer moved something.
vela::rt::Options async_options(const std::string& strategy, int pes) {
  vela::rt::Options options;
  options.pes = pes;
  options.lb = strategy;
  options.lb_async = true;
  options.lb_async_nice = 0;
  return options;
}

// Every answer handed over is applied or counted as never applied; every due step is handed
// over or skipped while the thread was busy; no message is lost. rotate and random move
// elements at every answer (the run goes on until they did); greedy and hilbert-distributed
// (its central form on the thread) may find the even ring balanced.
TEST(AsyncBalancing, EveryStepIsHandedOverOrSkippedAndEveryAnswerAccountedFor) {
  for (const std::string strategy : {"rotate", "random", "greedy", "hilbert-distributed"}) {
    const bool moves = strategy == "rotate" || strategy == "random";
    std::set<std::int32_t> moved;
    const vela::rt::RunStats stats =
        run_steps(async_options(strategy, 3), 48, moves ? 1 << 30 : 60, &moved, moves);
    const std::uint64_t points = moves && !moved.empty() ? *moved.begin() + 3 : 60;
    EXPECT_EQ(stats.lb_async_started + stats.lb_async_skipped, points) << strategy;
    EXPECT_EQ(stats.lb_async_applied + stats.lb_async_unapplied, stats.lb_async_started)
        << strategy;
    EXPECT_EQ(stats.lb_steps, stats.lb_async_answers) << strategy;
    if (moves) {
      EXPECT_FALSE(moved.empty()) << strategy;
      EXPECT_GT(stats.lb_async_applied, 0u) << strategy;
      EXPECT_GT(stats.migrations, 0u) << strategy;
    }
  }
}

// A strategy that takes 0.1 s of CPU time: the elements go on meanwhile, so the first moves come
// several sync points after the first hand-over, never at it; inline, at every point.
TEST(AsyncBalancing, MovesComeAfterTheStrategysTimeNotAtTheHandOver) {
  vela::rt::Options slow = async_options("rotate", 2);
  slow.lb_strategy_time = 0.1;
  std::set<std::int32_t> moved;
  const vela::rt::RunStats stats = run_steps(slow, 16, 1 << 30, &moved, true);
  ASSERT_FALSE(moved.empty());
  // Sync point 0 handed the first step over: rounds went on for 0.1 s of the thread's work.
  EXPECT_GE(*moved.begin(), 2);
  EXPECT_GT(stats.lb_async_skipped, 0u);
  vela::rt::Options inline_options = slow;
  inline_options.lb_async = false;
  inline_options.lb_strategy_time = 0.0;
  std::set<std::int32_t> at_once;
  run_steps(inline_options, 16, 3, &at_once);
  EXPECT_EQ(at_once, (std::set<std::int32_t>{0, 1, 2}));
}

// The run ends while the balancing thread still computes: the answer is dropped (counted), no
// element moves, nothing leaks (the sanitizer builds check) and the run's result stands.
TEST(AsyncBalancing, AnAnswerAfterTheRunsEndIsDroppedCleanly) {
  vela::rt::Options slow = async_options("rotate", 2);
  slow.lb_strategy_time = 0.3;
  std::set<std::int32_t> moved;
  const vela::rt::RunStats stats = run_steps(slow, 8, 2, &moved);
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(stats.lb_async_started, 1u);
  EXPECT_EQ(stats.lb_async_applied, 0u);
  EXPECT_EQ(stats.lb_async_unapplied, 1u);
  EXPECT_EQ(stats.migrations, 0u);
}

// A strategy that fails on the balancing thread (optimal takes at most 60 objects) ends the run
// with its message once the answer is back.
TEST(AsyncBalancing, AStrategysFailureEndsTheRunWithItsMessage) {
  Book b(64, 1 << 30);
  book = &b;
  vela::rt::Options options = async_options("optimal", 2);
  options.pin = false;
  vela::rt::Runtime runtime(options);
  try {
    runtime.run([](vela::rt::Context& ctx) {
      auto steppers = ctx.create<Stepper>("steppers", vela::rt::Shape::line(64),
                                          vela::rt::InitialMap::block, 0);
      steppers.broadcast<&Stepper::start>();
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("collection steppers: strategy optimal (on the balancing "
                                         "thread) failed: optimal: the instance has 64"),
              std::string::npos)
        << e.what();
  }
  book = nullptr;
}

// The trace (--trace): the balancing thread's strategy runs on a track of its own, named
// "balancer" after the PEs'; where an answer moved the elements, an "apply" span on PE 0.
TEST(AsyncBalancing, TheTraceShowsTheBalancingThreadOnItsOwnTrack) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("vela_lb_async_" + std::to_string(::getpid()) + ".json");
  vela::rt::Options options = async_options("rotate", 2);
  options.trace = file.string();
  std::set<std::int32_t> moved;
  run_steps(options, 16, 1 << 30, &moved, true);
  ASSERT_FALSE(moved.empty());
  std::ifstream in(file);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(file);
  int balancer_tid = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "balancer") {
      balancer_tid = e["tid"].get<int>();
    }
  }
  EXPECT_EQ(balancer_tid, 2);  // after PEs 0 and 1
  std::size_t computed = 0, applied = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "lb") continue;
    if (e["tid"] == balancer_tid && e["name"] == "rotate") ++computed;
    if (e["tid"] == 0 && e["name"] == "apply rotate") ++applied;
  }
  EXPECT_GT(computed, 0u);
  EXPECT_GT(applied, 0u);
  EXPECT_GE(computed, applied);
}

// The policy parameter async=true is --lb-async; the policy still decides at every point.
TEST(AsyncBalancing, ThePolicyParameterAsksForIt) {
  vela::rt::Options options;
  options.pes = 2;
  options.lb = "rotate";
  options.lb_policy = "periodic";
  options.lb_policy_params = {"every=2", "async=true"};
  options.lb_async_nice = 0;
  std::set<std::int32_t> moved;
  const vela::rt::RunStats stats = run_steps(options, 16, 1 << 30, &moved, true);
  ASSERT_FALSE(moved.empty());
  // Steps 1, 3, 5, ... of the run's points (3 after the first move) are due.
  EXPECT_EQ(stats.lb_async_started + stats.lb_async_skipped,
            static_cast<std::uint64_t>(*moved.begin() + 3) / 2);
  EXPECT_GT(stats.lb_async_applied, 0u);
}

// One element asking for an inline point while the others ask the run's way is refused, naming
// the collection.
TEST(AsyncBalancing, ElementsAskingForDifferentWaysAreRefused) {
  odd_one = 3;
  point_how = vela::rt::SyncBalance::asynchronous;
  vela::rt::Options options = async_options("rotate", 2);
  options.pin = false;
  Book b(8, 2);
  book = &b;
  vela::rt::Runtime runtime(options);
  try {
    runtime.run([](vela::rt::Context& ctx) {
      auto steppers =
          ctx.create<Stepper>("steppers", vela::rt::Shape::line(8), vela::rt::InitialMap::block, 0);
      steppers.broadcast<&Stepper::start>();
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("collection steppers"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("inline and asynchronously"), std::string::npos)
        << e.what();
  }
  odd_one = -1;
  point_how = vela::rt::SyncBalance::as_run;
  book = nullptr;
}

// Per point, without --lb-async: asynchronous points hand over, the answers apply later.
TEST(AsyncBalancing, ElementsCanAskForItPerPoint) {
  point_how = vela::rt::SyncBalance::asynchronous;
  vela::rt::Options options;
  options.pes = 2;
  options.lb = "rotate";
  options.lb_async_nice = 0;
  std::set<std::int32_t> moved;
  const vela::rt::RunStats stats = run_steps(options, 16, 1 << 30, &moved, true);
  point_how = vela::rt::SyncBalance::as_run;
  ASSERT_FALSE(moved.empty());
  EXPECT_GE(*moved.begin(), 1);
  EXPECT_EQ(stats.lb_async_started + stats.lb_async_skipped,
            static_cast<std::uint64_t>(*moved.begin() + 3));
  EXPECT_GT(stats.lb_async_applied, 0u);
}

TEST(AsyncBalancing, BadOptionsAreNamed) {
  const auto refused = [](const vela::rt::Options& o, const std::string& text) {
    try {
      vela::rt::validate(o);
      ADD_FAILURE() << "accepted; expected: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  vela::rt::Options no_lb;
  no_lb.lb_async = true;
  refused(no_lb, "--lb-async given without --lb");
  vela::rt::Options nice = async_options("greedy", 2);
  nice.lb_async_nice = 21;
  refused(nice, "--lb-async-priority 21: expected idle or a nice value from 0 to 19");
  vela::rt::Options time = async_options("greedy", 2);
  time.lb_strategy_time = -1;
  refused(time, "--lb-strategy-time");
  vela::rt::Options param;
  param.lb = "greedy";
  param.lb_policy = "periodic";
  param.lb_policy_params = {"async=maybe"};
  refused(param, "--lb-policy-param async=maybe: expected true, false, 1 or 0");
}

// --lb-pes 1: the balancing thread runs on the last core only, the PE on the first. Seen from
// an entry method while the thread lives: its name and CPU mask through /proc and
// sched_getaffinity.
struct ThreadMasks {
  std::set<int> balancer;  // CPUs the balancing thread may run on (empty: not found)
  std::set<int> pe;        // the PE's
};
ThreadMasks* masks = nullptr;

std::set<int> cpus_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::set<int> out;
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.insert(c);
  }
  return out;
}

class Looker : public vela::rt::ElementBase {
 public:
  Looker() = default;
  explicit Looker(int) {}
  void pup(vela::pup::Archive& ar) override { ar | round_; }
  void start() { at_sync(); }
  // Looks until the thread has set itself up (named and bound on its first job) or a while
  // has passed.
  void resume_from_sync() override {
    ++round_;
    if (masks->balancer.empty() || masks->balancer.size() > 1) look();
    const bool seen = masks->balancer.size() == 1;
    if (round_ < 20 || (!seen && round_ < 200000)) at_sync();
  }

 private:
  void look() {
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      if (name == "vela-balancer") {
        masks->balancer = cpus_of(static_cast<pid_t>(std::stoi(task.path().filename().string())));
      }
    }
    masks->pe = cpus_of(0);
  }
  int round_ = 0;
};

TEST(AsyncBalancing, ACoreSetAsideRunsTheBalancingThreadAlone) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  if (CPU_COUNT(&mine) < 2) GTEST_SKIP() << "needs 2 cores";
  ThreadMasks m;
  masks = &m;
  vela::rt::Options options;
  options.pes = 1;
  options.lb = "rotate";
  options.lb_async = true;
  options.lb_pes = 1;
  vela::rt::Runtime runtime(options);
  ASSERT_EQ(runtime.run([](vela::rt::Context& ctx) {
    ctx.create<Looker>("lookers", vela::rt::Shape::line(4), vela::rt::InitialMap::block, 0)
        .broadcast<&Looker::start>();
  }),
            0);
  masks = nullptr;
  ASSERT_FALSE(m.balancer.empty()) << "no thread named vela-balancer";
  if (m.pe.size() != 1) GTEST_SKIP() << "this system refused to pin the PE";
  EXPECT_TRUE(std::none_of(m.balancer.begin(), m.balancer.end(), [&](int c) {
    return m.pe.count(c) > 0;
  })) << "the balancing thread may run on the PE's core";
  EXPECT_GT(runtime.stats().lb_async_started, 0u);
}

// --lb-pes is refused without --lb, with --no-pin, and where the process has too few cores.
TEST(AsyncBalancing, CoresSetAsideAreCheckedAgainstThePEsAndTheMachine) {
  const auto refused = [](vela::rt::Options options) -> std::string {
    try {
      vela::rt::Runtime runtime(options);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  vela::rt::Options options;
  options.lb_pes = 1;
  EXPECT_EQ(refused(options),
            "--lb-pes 1 given without --lb (no strategy for the cores set aside)");
  options.lb = "greedy";
  options.pin = false;
  EXPECT_NE(refused(options).find("--lb-pes 1 given with --no-pin"), std::string::npos);
  options.pin = true;
  options.pes = 1;
  options.lb_pes = 4096;
  EXPECT_NE(refused(options).find("--lb-pes 4096: PE 0's process may use "), std::string::npos)
      << refused(options);
}

}  // namespace
