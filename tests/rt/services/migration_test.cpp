// Messages are neither lost nor duplicated while elements migrate every step, and migration
// keeps the state of elements with non-trivial members.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}

// One counter per message ever sent, indexed by (round, sender, k): each must end at exactly 1.
struct Ledger {
  std::int32_t elements = 0, rounds = 0, per_round = 0;
  std::vector<std::atomic<std::uint8_t>> received;
  std::atomic<std::uint64_t> misdelivered{0};

  Ledger(std::int32_t n, std::int32_t r, std::int32_t m)
      : elements(n),
        rounds(r),
        per_round(m),
        received(static_cast<std::size_t>(n) * static_cast<std::size_t>(r) *
                 static_cast<std::size_t>(m)) {}
  std::size_t slot(std::int32_t round, std::int32_t sender, std::int32_t k) const {
    return (static_cast<std::size_t>(round) * static_cast<std::size_t>(elements) +
            static_cast<std::size_t>(sender)) *
               static_cast<std::size_t>(per_round) +
           static_cast<std::size_t>(k);
  }
  std::int32_t target(std::int32_t round, std::int32_t sender, std::int32_t k) const {
    return static_cast<std::int32_t>(mix(slot(round, sender, k)) %
                                     static_cast<std::uint64_t>(elements));
  }
};

Ledger* ledger = nullptr;  // the test's own bookkeeping, shared with its elements

class Chatter : public vela::rt::ElementBase {
 public:
  Chatter() = default;
  explicit Chatter(std::int32_t) {}

  void pup(vela::pup::Archive& ar) override { ar | round_ | received_; }

  void start() { talk(); }

  void note(std::int32_t round, std::int32_t sender, std::int32_t k) {
    if (ledger->target(round, sender, k) != index().x) ++ledger->misdelivered;
    ++ledger->received[ledger->slot(round, sender, k)];
    ++received_;
  }

  void resume_from_sync() override {
    if (++round_ < ledger->rounds) talk();
  }

 private:
  void talk() {
    for (std::int32_t k = 0; k < ledger->per_round; ++k) {
      send<&Chatter::note>(Index{ledger->target(round_, index().x, k), 0, 0}, round_, index().x, k);
    }
    at_sync();
  }

  std::int32_t round_ = 0;
  std::uint64_t received_ = 0;
};

void expect_every_message_once(const std::string& strategy, int pes,
                               vela::rt::IdleMode idle = vela::rt::IdleMode::adaptive,
                               std::int32_t rounds = 40) {
  Ledger book(64, rounds, 400);  // 25,600 messages a round: 1,024,000 in 40
  ledger = &book;
  vela::rt::Options options;
  options.pes = pes;
  options.idle = idle;
  options.lb = strategy;
  vela::rt::Runtime runtime(options);
  const int code = runtime.run([](vela::rt::Context& ctx) {
    auto chatters = ctx.create<Chatter>("chatter", vela::rt::Shape::line(ledger->elements),
                                        vela::rt::InitialMap::block, 0);
    chatters.broadcast<&Chatter::start>();
  });
  EXPECT_EQ(code, 0);
  std::size_t lost = 0, duplicated = 0;
  for (const auto& r : book.received) {
    lost += r.load() == 0;
    duplicated += r.load() > 1;
  }
  EXPECT_EQ(lost, 0u) << strategy;
  EXPECT_EQ(duplicated, 0u) << strategy;
  EXPECT_EQ(book.misdelivered.load(), 0u) << strategy;
  const auto steps = static_cast<std::uint64_t>(rounds);
  EXPECT_EQ(runtime.stats().lb_steps, steps) << strategy;
  // rotate moves every element each step; random about (P - 1) / P of them.
  EXPECT_GE(runtime.stats().migrations, steps * 64u * (pes - 1) / pes / 2) << strategy;
  ledger = nullptr;
}

TEST(Migration, NoMessageLostOrDuplicatedUnderRandomMigration) {
  expect_every_message_once("random", 4);
}

TEST(Migration, NoMessageLostOrDuplicatedUnderRotation) {
  expect_every_message_once("rotate", 3);
}

// More PEs than this machine has cores: idle PEs yield their core instead of spinning on it.
TEST(Migration, NoMessageLostOrDuplicatedWithSixteenPes) {
  expect_every_message_once("random", 16);
}

TEST(Migration, NoMessageLostOrDuplicatedWhenIdlePesParkAtOnce) {
  expect_every_message_once("random", 4, vela::rt::IdleMode::park);
}

// The soak of the long mode (scripts/test.sh --long): 10,240,000 messages, every element
// migrating at every one of 400 steps.
TEST(Migration, SoakTenMillionMessagesWithMigrationEveryStep) {
  const char* long_mode = std::getenv("VELA_LONG");
  if (long_mode == nullptr || std::string(long_mode) != "1") {
    GTEST_SKIP() << "the long mode only (VELA_LONG=1, scripts/test.sh --long)";
  }
  expect_every_message_once("rotate", 4, vela::rt::IdleMode::adaptive, 400);
}

// ---- State of non-trivial elements survives every move ----

struct Inner {
  std::string label;
  std::map<int, std::vector<double>> series;
  void pup(vela::pup::Archive& ar) { ar | label | series; }
  friend bool operator==(const Inner&, const Inner&) = default;
};

Inner expected_state(std::int32_t who, std::int32_t round) {
  Inner s;
  s.label = "element-" + std::to_string(who) + "-round-" + std::to_string(round);
  for (int k = 0; k <= round % 5; ++k) {
    s.series[k * who] = std::vector<double>(static_cast<std::size_t>(k + round), 0.5 * who + k);
  }
  return s;
}

std::atomic<int> state_mismatches{0};
std::atomic<int> state_checks{0};
std::atomic<int> pes_visited_mask{0};

class Keeper : public vela::rt::ElementBase {
 public:
  Keeper() = default;
  explicit Keeper(std::int32_t rounds) : rounds_(rounds) {
    inner_ = expected_state(index().x, 0);
    owned_ = std::make_unique<Inner>(expected_state(index().x + 1000, 0));
  }
  void pup(vela::pup::Archive& ar) override { ar | rounds_ | round_ | inner_ | owned_ | names_; }
  void start() { at_sync(); }
  void resume_from_sync() override {
    pes_visited_mask |= 1 << pe();
    ++state_checks;
    if (!(inner_ == expected_state(index().x, round_)) || !owned_ ||
        !(*owned_ == expected_state(index().x + 1000, round_)) ||
        names_.size() != static_cast<std::size_t>(round_)) {
      ++state_mismatches;
    }
    if (++round_ == rounds_) return;
    inner_ = expected_state(index().x, round_);
    *owned_ = expected_state(index().x + 1000, round_);
    names_.push_back(inner_.label);
    at_sync();
  }

 private:
  std::int32_t rounds_ = 0, round_ = 0;
  Inner inner_;
  std::unique_ptr<Inner> owned_;
  std::vector<std::string> names_;
};

TEST(Migration, PreservesStateOfNonTrivialElements) {
  state_mismatches = 0;
  state_checks = 0;
  pes_visited_mask = 0;
  vela::rt::Options options;
  options.pes = 3;
  options.lb = "rotate";
  vela::rt::Runtime runtime(options);
  runtime.run([](vela::rt::Context& ctx) {
    auto keepers = ctx.create<Keeper>("keeper", vela::rt::Shape::grid(5, 4),
                                      vela::rt::InitialMap::round_robin, 12);
    keepers.broadcast<&Keeper::start>();
  });
  EXPECT_EQ(state_checks.load(), 20 * 12);
  EXPECT_EQ(state_mismatches.load(), 0);
  EXPECT_EQ(pes_visited_mask.load(), 0b111);
  EXPECT_EQ(runtime.stats().migrations, 20u * 12u);
}

}  // namespace

// ---- Periodic balancing, no sync point: elements move while they run ----

namespace periodic {

std::atomic<int> finished{0};
std::atomic<std::uint64_t> pokes{0};
std::atomic<int> wrong_state{0};

class Worker : public vela::rt::ElementBase {
 public:
  Worker() = default;
  explicit Worker(std::int32_t elements) : elements_(elements) {}
  void pup(vela::pup::Archive& ar) override { ar | elements_ | done_ | sum_; }

  void tick(std::int32_t remaining) {
    // The first quarter of the elements (all on PE 0 at first) works 20 times harder.
    const int work = index().x < elements_ / 4 ? 20000 : 1000;
    // Seeded by the element's state, so the compiler cannot fold the loop away.
    double x = 1.0 + 1e-9 * done_;
    for (int k = 0; k < work; ++k) x = x * 0.999999 + 1e-6;
    sum_ += x > 0.0 ? 1 : 0;
    ++done_;
    send<&Worker::poke>(Index{(index().x + 1) % elements_, 0, 0}, done_);
    if (remaining > 0) {
      send<&Worker::tick>(index(), remaining - 1);
    } else {
      if (sum_ != done_) ++wrong_state;
      ++finished;
    }
  }
  void poke(std::int32_t) { ++pokes; }

 private:
  std::int32_t elements_ = 0, done_ = 0, sum_ = 0;
};

}  // namespace periodic

// 32 workers poking each other for 300 rounds on 2 PEs, balanced every 2 ms with `strategy`
// (and the policy, when one is named); every worker must finish with its own state intact.
vela::rt::RunStats run_periodic(const std::string& policy = "", const std::string& param = "",
                                const std::string& strategy = "greedy", bool async = false) {
  periodic::finished = 0;
  periodic::pokes = 0;
  periodic::wrong_state = 0;
  vela::rt::Options options;
  options.pes = 2;
  options.lb = strategy;
  options.lb_interval = 0.002;
  options.lb_async = async;
  options.lb_async_nice = 0;  // the idle class could wait without bound while the workers run
  options.lb_policy = policy;
  if (!param.empty()) options.lb_policy_params = {param};
  static constexpr std::int32_t elements = 32, rounds = 300;
  vela::rt::Runtime runtime(options);
  runtime.run([](vela::rt::Context& ctx) {
    auto workers = ctx.create<periodic::Worker>("workers", vela::rt::Shape::line(elements),
                                                vela::rt::InitialMap::block, elements);
    ctx.balance_periodically(workers);
    workers.broadcast<&periodic::Worker::tick>(rounds - 1);
  });
  EXPECT_EQ(periodic::finished.load(), elements) << policy;
  EXPECT_EQ(periodic::pokes.load(), static_cast<std::uint64_t>(elements) * rounds) << policy;
  EXPECT_EQ(periodic::wrong_state.load(), 0) << policy;
  return runtime.stats();
}

TEST(Migration, PeriodicBalancingMovesElementsWhileTheyRun) {
  const vela::rt::RunStats stats = run_periodic();
  EXPECT_GT(stats.lb_steps, 0u);
  EXPECT_GT(stats.migrations, 0u);
}

// The distributed strategies' PEs decide while the elements run (the workers talk in a ring,
// so diffusion has neighbours to give to).
TEST(Migration, PeriodicBalancingRunsTheDistributedStrategies) {
  for (const std::string strategy : {"hilbert-distributed", "diffusion"}) {
    const vela::rt::RunStats stats = run_periodic("", "", strategy);
    EXPECT_GT(stats.lb_steps, 0u) << strategy;
    EXPECT_GT(stats.migrations, 0u) << strategy;
  }
}

// --lb-async: the balancing thread's answers move the workers as they come, while they run.
TEST(Migration, PeriodicBalancingAsynchronously) {
  for (const std::string strategy : {"greedy", "hilbert-distributed"}) {
    const vela::rt::RunStats stats = run_periodic("", "", strategy, true);
    EXPECT_GT(stats.lb_async_applied, 0u) << strategy;
    EXPECT_GT(stats.migrations, 0u) << strategy;
    EXPECT_EQ(stats.lb_async_applied + stats.lb_async_unapplied, stats.lb_async_started);
  }
}

TEST(Migration, PeriodicBalancingAsksThePolicy) {
  // An unreachable threshold never lets the strategy run; periodic every=1 lets it run at
  // each tick.
  const vela::rt::RunStats never = run_periodic("threshold", "threshold=1e6");
  EXPECT_EQ(never.lb_steps, 0u);
  EXPECT_EQ(never.migrations, 0u);
  const vela::rt::RunStats always = run_periodic("periodic", "every=1");
  EXPECT_GT(always.lb_steps, 0u);
}
