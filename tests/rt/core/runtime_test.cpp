// Scheduling, reductions, quiescence, errors and options of the runtime.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <mutex>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;

vela::rt::Options with_pes(int pes) {
  vela::rt::Options o;
  o.pes = pes;
  return o;
}

// ---- Reductions ----

class Contributor : public vela::rt::ElementBase {
 public:
  Contributor() = default;
  Contributor(vela::rt::Callback sum, vela::rt::Callback extremes, vela::rt::Callback arrival)
      : sum_(sum), extremes_(extremes), arrival_(arrival) {}
  void pup(vela::pup::Archive& ar) override { ar | sum_ | extremes_ | arrival_; }
  void go() {
    const double v = 0.1 * (index().x + 1) + 1e-7 * index().y;  // sums of these round
    contribute({v, 1.0}, vela::rt::ReduceOp::sum, sum_);
    contribute({v}, vela::rt::ReduceOp::min, extremes_);
    contribute({v, 1.0}, vela::rt::ReduceOp::sum, arrival_, vela::rt::Order::arrival);
  }

 private:
  vela::rt::Callback sum_, extremes_, arrival_;
};

struct Sums {
  std::vector<double> sum, min, arrival;
};

Sums reduce_on(int pes, vela::rt::InitialMap map) {
  Sums out;
  vela::rt::Runtime runtime(with_pes(pes));
  runtime.run([&](vela::rt::Context& ctx) {
    auto sum = ctx.callback([&](const std::vector<double>& v) { out.sum = v; });
    auto min = ctx.callback([&](const std::vector<double>& v) { out.min = v; });
    auto arrival = ctx.callback([&](const std::vector<double>& v) { out.arrival = v; });
    auto c = ctx.create<Contributor>("c", vela::rt::Shape::grid(37, 11), map, sum, min, arrival);
    c.broadcast<&Contributor::go>();
  });
  return out;
}

TEST(Reduction, DeterministicSumIsBitwiseTheSameOnAnyPeCount) {
  const Sums one = reduce_on(1, vela::rt::InitialMap::block);
  ASSERT_EQ(one.sum.size(), 2u);
  EXPECT_EQ(one.sum[1], 37.0 * 11.0);
  EXPECT_EQ(one.min, std::vector<double>{0.1});
  double expected = 0.0;  // the index order: x fastest
  for (int y = 0; y < 11; ++y) {
    for (int x = 0; x < 37; ++x) expected += 0.1 * (x + 1) + 1e-7 * y;
  }
  EXPECT_EQ(std::bit_cast<std::uint64_t>(one.sum[0]), std::bit_cast<std::uint64_t>(expected));
  for (const int pes : {2, 3, 4}) {
    for (const auto map : {vela::rt::InitialMap::block, vela::rt::InitialMap::round_robin}) {
      const Sums s = reduce_on(pes, map);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(s.sum[0]), std::bit_cast<std::uint64_t>(one.sum[0]))
          << pes << " PEs";
      EXPECT_EQ(s.min, one.min);
      ASSERT_EQ(s.arrival.size(), 2u);
      EXPECT_EQ(s.arrival[1], 37.0 * 11.0);
      EXPECT_NEAR(s.arrival[0], one.sum[0], 1e-9);
    }
  }
}

class Receiver : public vela::rt::ElementBase {
 public:
  static inline std::atomic<int> received{0};
  static inline std::atomic<int> wrong{0};
  Receiver() = default;
  explicit Receiver(int) {}
  void go(vela::rt::Callback to_all) {
    contribute({static_cast<double>(index().x)}, vela::rt::ReduceOp::max, to_all);
  }
  void result(std::vector<double> v) {
    ++received;
    if (v != std::vector<double>{9.0}) ++wrong;
  }
};

TEST(Reduction, ResultCanBeBroadcastToAnEntryMethod) {
  Receiver::received = 0;
  Receiver::wrong = 0;
  vela::rt::Runtime runtime(with_pes(2));
  runtime.run([](vela::rt::Context& ctx) {
    auto r = ctx.create<Receiver>("r", vela::rt::Shape::line(10), vela::rt::InitialMap::block, 0);
    r.broadcast<&Receiver::go>(r.reduce_to<&Receiver::result>());
  });
  EXPECT_EQ(Receiver::received.load(), 10);
  EXPECT_EQ(Receiver::wrong.load(), 0);
}

class Folder : public vela::rt::ElementBase {
 public:
  Folder() = default;
  Folder(vela::rt::Reducer r, vela::rt::Callback cb) : reducer_(r), callback_(cb) {}
  void pup(vela::pup::Archive& ar) override { ar | reducer_ | callback_; }
  void go() { contribute({static_cast<double>(index().x % 7)}, reducer_, callback_); }

 private:
  vela::rt::Reducer reducer_;
  vela::rt::Callback callback_;
};

// A fold that depends on order (a polynomial hash), so only index order gives one answer.
double fold_on(int pes) {
  double result = -1.0;
  vela::rt::Runtime runtime(with_pes(pes));
  runtime.run([&](vela::rt::Context& ctx) {
    auto poly = ctx.reducer([](std::vector<double>& into, const std::vector<double>& next) {
      into[0] = std::fmod(into[0] * 31.0 + next[0], 1000003.0);
    });
    auto done = ctx.callback([&](const std::vector<double>& v) { result = v.at(0); });
    auto f = ctx.create<Folder>("f", vela::rt::Shape::line(50), vela::rt::InitialMap::round_robin,
                                poly, done);
    f.broadcast<&Folder::go>();
  });
  return result;
}

TEST(Reduction, CustomCombinerSeesContributionsInIndexOrder) {
  double expected = 0.0;  // element 0's value, then fold 1 .. 49
  for (int x = 1; x < 50; ++x) expected = std::fmod(expected * 31.0 + (x % 7), 1000003.0);
  for (const int pes : {1, 2, 3}) EXPECT_EQ(fold_on(pes), expected) << pes << " PEs";
}

// ---- Priorities ----

class Recorder : public vela::rt::ElementBase {
 public:
  static inline std::vector<int> order;
  Recorder() = default;
  explicit Recorder(int) {}
  void record(int tag) { order.push_back(tag); }
};

TEST(Scheduler, LowerPrioritiesRunFirstAndEqualOnesInOrder) {
  Recorder::order.clear();
  vela::rt::Runtime runtime(with_pes(1));
  runtime.run([](vela::rt::Context& ctx) {
    auto r = ctx.create<Recorder>("r", vela::rt::Shape::line(1), vela::rt::InitialMap::block, 0);
    // Queued while main runs, so the scheduler sees them all at once.
    r[0].send_with_priority<&Recorder::record>(5, 50);
    r[0].send<&Recorder::record>(1);
    r[0].send_with_priority<&Recorder::record>(-3, -30);
    r[0].send<&Recorder::record>(2);
    r[0].send_with_priority<&Recorder::record>(5, 51);
    r[0].send_with_priority<&Recorder::record>(-3, -31);
  });
  EXPECT_EQ(Recorder::order, (std::vector<int>{-30, -31, 1, 2, 50, 51}));
}

// ---- Ending a run ----

class Thrower : public vela::rt::ElementBase {
 public:
  Thrower() = default;
  explicit Thrower(int) {}
  void fail() { throw std::runtime_error("entry failed on purpose"); }
};

TEST(Runtime, AnExceptionInAnEntryMethodEndsTheRunAndIsRethrown) {
  vela::rt::Runtime runtime(with_pes(2));
  EXPECT_THROW(runtime.run([](vela::rt::Context& ctx) {
    auto t = ctx.create<Thrower>("t", vela::rt::Shape::line(4), vela::rt::InitialMap::block, 0);
    t[3].send<&Thrower::fail>();
  }),
               std::runtime_error);
}

TEST(Runtime, ExitCodeAndQuiescence) {
  vela::rt::Runtime quiet(with_pes(2));
  EXPECT_EQ(quiet.run([](vela::rt::Context&) {}), 0);
  vela::rt::Runtime exiting(with_pes(2));
  EXPECT_EQ(exiting.run([](vela::rt::Context& ctx) { ctx.exit(3); }), 3);
  EXPECT_THROW(exiting.run([](vela::rt::Context&) {}), std::logic_error);  // runs once
}

// at_sync() twice before resume_from_sync() would count as two elements' arrivals at the
// balancing point (a step could start with an element still running): an error naming it.
class TwiceSynced : public vela::rt::ElementBase {
 public:
  TwiceSynced() = default;
  explicit TwiceSynced(int) {}
  void go() {
    at_sync();
    if (index().x == 2) at_sync();
  }
  void resume_from_sync() override { ++resumed_; }

 private:
  int resumed_ = 0;
};

TEST(Runtime, AtSyncTwiceBeforeResumingIsAnError) {
  for (const std::string lb : {"", "rotate"}) {
    vela::rt::Options o = with_pes(2);
    o.pin = false;
    o.lb = lb;
    vela::rt::Runtime runtime(o);
    try {
      runtime.run([](vela::rt::Context& ctx) {
        ctx.create<TwiceSynced>("twice", vela::rt::Shape::line(4), vela::rt::InitialMap::block, 0)
            .broadcast<&TwiceSynced::go>();
      });
      ADD_FAILURE() << "no error with --lb '" << lb << "'";
    } catch (const std::logic_error& e) {
      EXPECT_NE(
          std::string(e.what()).find("element (2) of collection twice called at_sync() again"),
          std::string::npos)
          << e.what();
    }
  }
}

TEST(Runtime, SendingToAnIndexOutsideTheShapeIsAnError) {
  vela::rt::Runtime runtime(with_pes(1));
  EXPECT_THROW(runtime.run([](vela::rt::Context& ctx) {
    auto r = ctx.create<Recorder>("r", vela::rt::Shape::line(3), vela::rt::InitialMap::block, 0);
    r[3].send<&Recorder::record>(0);
  }),
               std::out_of_range);
}

TEST(Runtime, UserMapPlacesElementsAndIsChecked) {
  vela::rt::Runtime runtime(with_pes(2));
  std::vector<int> pes;
  EXPECT_THROW(runtime.run([](vela::rt::Context& ctx) {
    ctx.create<Recorder>(
        "r", vela::rt::Shape::line(4),
        vela::rt::UserMap([](const Index& i, const vela::rt::Shape&, vela::rt::PeId) {
          return i.x;  // PE 2 and 3 do not exist
        }),
        0);
  }),
               std::invalid_argument);
}

// ---- Options ----

TEST(Options, BadValuesAreRejectedNamingTheOption) {
  auto message = [](const vela::rt::Options& o) -> std::string {
    try {
      vela::rt::validate(o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  vela::rt::Options o;
  EXPECT_EQ(message(o), "");
  o.pes = -1;
  EXPECT_NE(message(o).find("--pes -1"), std::string::npos);
  o = {};
  o.lb_period = 0;
  EXPECT_NE(message(o).find("--lb-period 0"), std::string::npos);
  o = {};
  o.lb = "gready";
  EXPECT_NE(message(o).find("unknown strategy 'gready'"), std::string::npos);
  o = {};
  o.lb = "refine";
  o.lb_params = {"tolerance=-2"};
  EXPECT_NE(message(o).find("out of range"), std::string::npos);
  o = {};
  o.lb_params = {"tolerance=0.1"};
  EXPECT_NE(message(o).find("without --lb"), std::string::npos);
}

// A strategy's factory may refuse values that its parameter ranges allow (optimal: a time
// limit of 0): the options' check makes the strategy, so the run refuses them at its start,
// naming --lb, rather than when the first collection is made.
TEST(Options, AStrategysOwnRefusalIsAnOptionError) {
  vela::rt::Options o = with_pes(1);
  o.lb = "optimal";
  o.lb_params = {"time_limit=0"};
  try {
    vela::rt::validate(o);
    FAIL() << "time_limit=0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--lb: optimal: time_limit must be > 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(vela::rt::Runtime{o}, std::invalid_argument);
}

TEST(Options, CommandLineParsesRuntimeOptions) {
  CLI::App app;
  vela::rt::Options o;
  vela::rt::add_runtime_options(app, o);
  const char* argv[] = {"app", "--pes",    "3",       "--lb",   "greedy",    "--lb-period",
                        "4",   "--no-pin", "--trace", "t.json", "--lb-dump", "d"};
  app.parse(12, argv);
  EXPECT_EQ(o.pes, 3);
  EXPECT_EQ(o.lb, "greedy");
  EXPECT_EQ(o.lb_period, 4);
  EXPECT_FALSE(o.pin);
  EXPECT_EQ(o.trace, "t.json");
  EXPECT_EQ(o.lb_dump, "d");
  CLI::App bad;
  vela::rt::Options b;
  vela::rt::add_runtime_options(bad, b);
  const char* wrong[] = {"app", "--lb", "gready"};
  EXPECT_THROW(bad.parse(3, wrong), CLI::ValidationError);
}

}  // namespace
