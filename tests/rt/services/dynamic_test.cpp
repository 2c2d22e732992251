// Dynamic collections (Context::create_dynamic): inserted elements take the messages sent before
// they existed; reductions and sync points wait for the elements there are; an index is
// inserted again after its element left; balancing, inline or asynchronous, moves the elements
// there are and leaves those inserted after its measurements where they are; misuse is refused
// with the collection and index named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;
using vela::rt::PeId;

// What the elements saw, by index.
struct Seen {
  std::mutex mutex;
  std::map<std::int32_t, std::vector<std::int32_t>> hellos;  // index -> values taken
  std::map<std::int32_t, PeId> built_on;                     // index -> PE it was built on
  std::map<std::int32_t, std::int32_t> arguments;            // index -> constructor argument
  std::vector<double> sums;                                  // reduction results, in order
  std::map<std::int32_t, std::vector<std::int32_t>> moved;   // index -> rounds it moved at
  std::map<std::int32_t, std::int32_t> rounds_done;          // index -> rounds it finished
};
Seen* seen = nullptr;

class Greeter : public vela::rt::ElementBase {
 public:
  Greeter() = default;
  explicit Greeter(std::int32_t argument) {
    const std::lock_guard lock(seen->mutex);
    seen->built_on[index().x] = pe();
    seen->arguments[index().x] = argument;
  }
  void hello(std::int32_t value) {
    const std::lock_guard lock(seen->mutex);
    seen->hellos[index().x].push_back(value);
  }
  void leave() { destroy(); }
  // Destroys itself and asks for a new element at its own index at once: the insertion reaches
  // PE 0 before the departure does, and waits for it.
  void leave_and_come_back(std::int32_t argument) {
    destroy();
    proxy.insert(index(), argument);
    proxy[index()].send<&Greeter::hello>(argument);
  }
  void leave_twice() {
    destroy();
    destroy();
  }
  void sync_then_leave() {
    at_sync();
    destroy();
  }
  static vela::rt::Proxy<Greeter> proxy;
};
vela::rt::Proxy<Greeter> Greeter::proxy;

int run(const std::function<void(vela::rt::Context&)>& main, int pes = 3) {
  vela::rt::Options options;
  options.pes = pes;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  return runtime.run(main);
}

// Messages sent to an element before it exists (at its home or on the PE named) wait for it;
// each is built on the PE asked for, from its arguments.
TEST(Dynamic, InsertedElementsTakeTheMessagesSentBeforeTheyExisted) {
  Seen s;
  seen = &s;
  EXPECT_EQ(run([](vela::rt::Context& ctx) {
              Greeter::proxy = ctx.create_dynamic<Greeter>("greeters", vela::rt::Shape::line(16),
                                                           vela::rt::InitialMap::round_robin);
              for (std::int32_t i = 0; i < 12; ++i) {
                if (i % 2 == 0) {
                  Greeter::proxy.insert(Index{i, 0, 0}, 100 + i);
                } else {
                  Greeter::proxy.insert_on(Index{i, 0, 0}, (i * 2) % 3, 100 + i);
                }
                Greeter::proxy[i].send<&Greeter::hello>(i);
              }
            }),
            0);
  ASSERT_EQ(s.built_on.size(), 12u);
  for (std::int32_t i = 0; i < 12; ++i) {
    EXPECT_EQ(s.built_on[i], i % 2 == 0 ? i % 3 : (i * 2) % 3) << i;
    EXPECT_EQ(s.arguments[i], 100 + i) << i;
    EXPECT_EQ(s.hellos[i], std::vector<std::int32_t>{i}) << i;
  }
  seen = nullptr;
}

// An element destroyed and inserted again at once (the insertion overtaking the departure):
// the new one is built, takes the message sent after the insertion, and a broadcast reaches
// the elements there are.
TEST(Dynamic, AnIndexIsInsertedAgainAfterItsElementLeft) {
  Seen s;
  seen = &s;
  EXPECT_EQ(run([](vela::rt::Context& ctx) {
              Greeter::proxy = ctx.create_dynamic<Greeter>("greeters", vela::rt::Shape::line(6),
                                                           vela::rt::InitialMap::block);
              for (std::int32_t i = 0; i < 4; ++i) Greeter::proxy.insert(Index{i, 0, 0}, i);
              Greeter::proxy[2].send<&Greeter::leave_and_come_back>(7);
              Greeter::proxy[3].send<&Greeter::leave>();
              Greeter::proxy.broadcast<&Greeter::hello>(-1);
            }),
            0);
  EXPECT_EQ(s.arguments[2], 7);  // the second incarnation's
  // Elements 0 and 1 took the broadcast; 2 took its own message (and the broadcast if it reached
  // PE 0 while an element was there); 3 took it only if it came before its departure.
  EXPECT_EQ(s.hellos[0], std::vector<std::int32_t>{-1});
  EXPECT_EQ(s.hellos[1], std::vector<std::int32_t>{-1});
  EXPECT_EQ(std::count(s.hellos[2].begin(), s.hellos[2].end(), 7), 1);
  EXPECT_LE(s.hellos[3].size(), 1u);
  seen = nullptr;
}

// Elements that go round by round: each contributes (its index + 1) per round; the root's
// callback starts the next round. Element 3 leaves at round 2 without contributing; element 0
// inserts element 8 at round 3, which contributes from round 3 on.
class Rounder : public vela::rt::ElementBase {
 public:
  Rounder() = default;
  explicit Rounder(std::int32_t) {}
  void go(std::int32_t round) {
    if (round == 2 && index().x == 3) {
      destroy();
      return;
    }
    if (round == 3 && index().x == 0) {
      proxy.insert(Index{8, 0, 0}, 0);
      proxy[8].send<&Rounder::go>(3);
    }
    contribute({static_cast<double>(index().x + 1)}, vela::rt::ReduceOp::sum, done);
  }
  static vela::rt::Proxy<Rounder> proxy;
  static vela::rt::Callback done;
};
vela::rt::Proxy<Rounder> Rounder::proxy;
vela::rt::Callback Rounder::done;

TEST(Dynamic, ReductionsWaitForTheElementsThatTakePart) {
  Seen s;
  seen = &s;
  EXPECT_EQ(
      run([](vela::rt::Context& ctx) {
        Rounder::proxy = ctx.create_dynamic<Rounder>("rounders", vela::rt::Shape::line(9),
                                                     vela::rt::InitialMap::block);
        Rounder::done = ctx.callback([](const std::vector<double>& sum) {
          seen->sums.push_back(sum.at(0));
          // The broadcast reaches the elements there are (element 3 left before round 2's
          // result: its departure completed it).
          if (seen->sums.size() < 6) {
            Rounder::proxy.broadcast<&Rounder::go>(static_cast<std::int32_t>(seen->sums.size()));
          }
        });
        for (std::int32_t i = 0; i < 8; ++i) Rounder::proxy.insert(Index{i, 0, 0}, 0);
        Rounder::proxy.broadcast<&Rounder::go>(0);
      }),
      0);
  EXPECT_EQ(s.sums, (std::vector<double>{36, 36, 32, 41, 41, 41}));
  seen = nullptr;
}

// Rounds with a sync point each, balanced by rotate (every element measured moves): element 3
// leaves at round 2, element 0 inserts element 8 at round 3. Every element there is finishes
// every round it took part in; an element inserted after the measurements an answer came from
// stays where it is when that answer is applied.
constexpr std::int32_t kRounds = 120;
class Mover : public vela::rt::ElementBase {
 public:
  Mover() = default;
  explicit Mover(std::int32_t round) : round_(round) {}
  void pup(vela::pup::Archive& ar) override { ar | round_ | pe_; }
  void start() {
    pe_ = pe();
    step();
  }
  void resume_from_sync() override {
    if (pe() != pe_) {
      const std::lock_guard lock(seen->mutex);
      seen->moved[index().x].push_back(round_);
    }
    pe_ = pe();
    ++round_;
    if (round_ == 2 && index().x == 3) {
      destroy();
      return;
    }
    if (round_ == 3 && index().x == 0) {
      proxy.insert(Index{8, 0, 0}, 3);
      proxy[8].send<&Mover::start>();
    }
    if (round_ < kRounds) {
      step();
    } else {
      const std::lock_guard lock(seen->mutex);
      seen->rounds_done[index().x] = round_;
    }
  }
  static vela::rt::Proxy<Mover> proxy;

 private:
  void step() {
    // Uneven work, so that a measuring strategy has something to balance.
    volatile double x = 0;
    for (int i = 0; i < (index().x % 3 == 0 ? 200000 : 20000); ++i) x = x + i;
    at_sync();
  }
  std::int32_t round_ = 0;
  PeId pe_ = -1;
};
vela::rt::Proxy<Mover> Mover::proxy;

vela::rt::RunStats run_movers(vela::rt::Options options) {
  options.pes = 2;
  options.pin = false;
  options.lb_period = 1;
  vela::rt::Runtime runtime(options);
  EXPECT_EQ(runtime.run([](vela::rt::Context& ctx) {
    Mover::proxy =
        ctx.create_dynamic<Mover>("movers", vela::rt::Shape::line(9), vela::rt::InitialMap::block);
    for (std::int32_t i = 0; i < 8; ++i) Mover::proxy.insert(Index{i, 0, 0}, 0);
    Mover::proxy.broadcast<&Mover::start>();
  }),
            0);
  return runtime.stats();
}

TEST(Dynamic, InlineBalancingMovesTheElementsThereAre) {
  for (const std::string strategy : {"rotate", "greedy", "hilbert-distributed"}) {
    Seen s;
    seen = &s;
    vela::rt::Options options;
    options.lb = strategy;
    const vela::rt::RunStats stats = run_movers(options);
    EXPECT_EQ(s.rounds_done.size(), 8u) << strategy;
    for (const auto& [index, rounds] : s.rounds_done) {
      EXPECT_NE(index, 3) << strategy;
      EXPECT_EQ(rounds, kRounds) << strategy << " element " << index;
    }
    if (strategy == "rotate") {
      // Every point moves every element at it: the new one from its first point on.
      EXPECT_EQ(s.moved[0].size(), static_cast<std::size_t>(kRounds)) << strategy;
      EXPECT_EQ(s.moved[8].size(), static_cast<std::size_t>(kRounds - 3)) << strategy;
      EXPECT_GT(stats.migrations, 0u);
    }
    seen = nullptr;
  }
}

TEST(Dynamic, AnAsynchronousAnswerIsAppliedToTheElementsStillThere) {
  Seen s;
  seen = &s;
  vela::rt::Options options;
  options.lb = "rotate";
  options.lb_async = true;
  options.lb_async_nice = 0;
  options.lb_strategy_time = 0.01;
  const vela::rt::RunStats stats = run_movers(options);
  EXPECT_EQ(s.rounds_done.size(), 8u);
  for (const auto& [index, rounds] : s.rounds_done) EXPECT_EQ(rounds, kRounds) << index;
  ASSERT_GE(stats.lb_async_applied, 2u);
  ASSERT_FALSE(s.moved[0].empty());
  ASSERT_FALSE(s.moved[8].empty());
  const std::int32_t first_answer = s.moved[0].front();
  // The first answer came from point 1's measurements (elements 0 to 7) and was applied after
  // element 3 had left and element 8 arrived: 3's move was skipped, 8 stayed.
  EXPECT_GT(first_answer, 3);
  EXPECT_GT(s.moved[8].front(), first_answer);
  EXPECT_EQ(s.moved.count(3), 0u);
  seen = nullptr;
}

std::string failure(const std::function<void(vela::rt::Context&)>& main) {
  try {
    run(main);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// A dynamic collection "greeters" of 2 indices, none inserted yet.
void two_greeters(vela::rt::Context& ctx) {
  Greeter::proxy = ctx.create_dynamic<Greeter>("greeters", vela::rt::Shape::line(2),
                                               vela::rt::InitialMap::block);
}

TEST(Dynamic, MisuseIsRefusedNamingTheCollectionAndIndex) {
  Seen s;
  seen = &s;
  // Inserting into a collection made with create().
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              auto fixed = ctx.create<Greeter>("fixed", vela::rt::Shape::line(4),
                                               vela::rt::InitialMap::block, 0);
              fixed.insert(Index{1, 0, 0}, 0);
            }).find("insert: collection fixed is not dynamic"),
            std::string::npos);
  // Outside the shape, or on a PE the run does not have.
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              ctx.create_dynamic<Greeter>("greeters", vela::rt::Shape::line(4),
                                          vela::rt::InitialMap::block)
                  .insert(Index{4, 0, 0}, 0);
            }).find("index (4) is outside its shape (4)"),
            std::string::npos);
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              ctx.create_dynamic<Greeter>("greeters", vela::rt::Shape::line(4),
                                          vela::rt::InitialMap::block)
                  .insert_on(Index{1, 0, 0}, 3, 0);
            }).find("PE 3 is outside 0..2"),
            std::string::npos);
  // destroy() in a fixed collection, twice, or at a balancing point.
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              auto fixed = ctx.create<Greeter>("fixed", vela::rt::Shape::line(2),
                                               vela::rt::InitialMap::block, 0);
              fixed[1].send<&Greeter::leave>();
            }).find("destroy: element (1) of collection fixed: the collection is not dynamic"),
            std::string::npos);
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              two_greeters(ctx);
              Greeter::proxy.insert(Index{0, 0, 0}, 0);
              Greeter::proxy[0].send<&Greeter::leave_twice>();
            }).find("destroy: element (0) of collection greeters: destroyed twice"),
            std::string::npos);
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              two_greeters(ctx);
              Greeter::proxy.insert(Index{0, 0, 0}, 0);
              Greeter::proxy[0].send<&Greeter::sync_then_leave>();
            }).find("destroy: element (0) of collection greeters: it is at a balancing point"),
            std::string::npos);
  // A message to an element that left, with none inserted after it, is never lost silently.
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              two_greeters(ctx);
              Greeter::proxy.insert(Index{1, 0, 0}, 0);
              Greeter::proxy[1].send<&Greeter::leave>();
              Greeter::proxy[1].send<&Greeter::hello>(5);
            }).find("message(s) held for elements"),
            std::string::npos);
  // An insertion where an element lives on to the end.
  EXPECT_NE(failure([](vela::rt::Context& ctx) {
              two_greeters(ctx);
              Greeter::proxy.insert(Index{1, 0, 0}, 0);
              Greeter::proxy.insert(Index{1, 0, 0}, 1);
            })
                .find("collection greeters: element (1) was inserted while the element there still "
                      "existed"),
            std::string::npos);
  seen = nullptr;
}

// A checkpoint of a dynamic collection holds the elements there are (element 2 left at step 3);
// a restart on another PE count restores exactly those, with the reductions they had reached,
// and the last step's sum comes out to the bit.
class Saver : public vela::rt::ElementBase {
 public:
  Saver() = default;
  Saver(std::int32_t steps, vela::rt::Callback each) : steps_(steps), each_(each) {
    value_ = 1.0 + 0.25 * index().x;
  }
  void pup(vela::pup::Archive& ar) override { ar | steps_ | each_ | step_ | value_; }
  void start() { advance(); }
  void resume_from_sync() override { advance(); }

 private:
  void advance() {
    if (step_ == 2 && index().x == 2) {
      destroy();
      return;
    }
    value_ = value_ * 1.0625 + 0.001 * (index().x + 1);
    ++step_;
    contribute({value_}, vela::rt::ReduceOp::sum, each_);
    if (step_ < steps_) at_sync();
  }
  std::int32_t steps_ = 0;
  vela::rt::Callback each_;
  std::int32_t step_ = 0;
  double value_ = 0.0;
};

std::vector<double> run_savers(vela::rt::Options o, vela::rt::RunStats* stats) {
  o.pin = false;
  std::vector<double> sums;
  vela::rt::Runtime runtime(o);
  runtime.run([&](vela::rt::Context& ctx) {
    auto each = ctx.callback([&](const std::vector<double>& v) { sums.push_back(v.at(0)); });
    auto savers =
        ctx.create_dynamic<Saver>("savers", vela::rt::Shape::line(10), vela::rt::InitialMap::block);
    if (ctx.restarted()) return;
    for (std::int32_t i = 0; i < 6; ++i) savers.insert(Index{i, 0, 0}, 7, each);
    savers.broadcast<&Saver::start>();
  });
  *stats = runtime.stats();
  return sums;
}

TEST(Dynamic, ACheckpointHoldsTheElementsThereAreAndARestartRestoresThem) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("vela-dynamic-checkpoint-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  vela::rt::RunStats stats;
  vela::rt::Options w;
  w.pes = 3;
  w.lb = "rotate";
  w.checkpoint = dir.string();
  w.checkpoint_every = 2;
  const std::vector<double> whole = run_savers(w, &stats);
  ASSERT_EQ(whole.size(), 7u);
  EXPECT_EQ(stats.checkpoints, 3u);
  vela::rt::Options r;
  r.pes = 2;
  r.restart = dir.string();
  const std::vector<double> again = run_savers(r, &stats);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(stats.restored, 5u);
  EXPECT_EQ(stats.restored_sync, 6u);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0], whole.back());
}

}  // namespace
