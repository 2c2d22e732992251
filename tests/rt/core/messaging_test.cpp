// The runtime's messaging: many producers into one PE with nothing lost, duplicated or
// reordered; arguments moved, never copied; no allocation per message in steady state; the
// communication graph's counts; every idle mode, and more PEs than cores.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "vela/lb/io/io.hpp"
#include "vela/rt/buffer.hpp"
#include "vela/rt/rank_seam.hpp"
#include "vela/rt/runtime.hpp"

#include "support/count_allocations.hpp"

// A type of a program's own, with a copy constructor of its own (so not trivially copyable) and
// no pointer into itself: it says it may move as its bytes (vela::rt::relocatable).
struct Tagged {
  std::int64_t value = 0;
  std::int64_t check = 0;
  Tagged() = default;
  Tagged(std::int64_t v) : value(v), check(~v) {}
  Tagged(const Tagged& o) : value(o.value), check(o.check) {}
  Tagged& operator=(const Tagged& o) = default;
  void pup(vela::pup::Archive& ar) { ar | value | check; }
};
template <>
inline constexpr bool vela::rt::relocatable<Tagged> = true;

namespace {

using vela::rt::Index;
using vela::rt::InitialMap;
using vela::rt::Shape;

// Element i on PE i.
vela::rt::UserMap one_per_pe() {
  return vela::rt::UserMap([](const Index& i, const Shape&, vela::rt::PeId) { return i.x; });
}

// Options for `pes` PEs left unpinned (the tests share the machine with others).
vela::rt::Options unpinned(int pes) {
  vela::rt::Options o;
  o.pes = pes;
  o.pin = false;
  return o;
}

// Runs a line of two elements of T, element i on PE i, begun by `Start` on element `first`;
// expects the run to end with 0 and returns its statistics.
template <class T, auto Start>
vela::rt::RunStats run_pair(const vela::rt::Options& options, std::int64_t first) {
  vela::rt::Runtime runtime(options);
  EXPECT_EQ(runtime.run([first](vela::rt::Context& ctx) {
    auto e = ctx.create<T>("pair", Shape::line(2), one_per_pe(), 0);
    e[first].template send<Start>();
  }),
            0);
  return runtime.stats();
}

// ---- Many producers into one PE ----

struct Tally {
  std::int32_t producers = 0;
  std::int32_t per_producer = 0;
  std::vector<std::int32_t> next;  // per producer: the sequence number expected next
  std::uint64_t out_of_order = 0;
  std::uint64_t received = 0;
};
Tally* tally = nullptr;  // touched only by the consumer element's PE

class Stream : public vela::rt::ElementBase {
 public:
  static constexpr std::int32_t chunk = 2000;  // messages per entry, then a continuation
  Stream() = default;
  explicit Stream(std::int32_t) {}
  void pup(vela::pup::Archive& ar) override { ar | sent_; }

  void produce() {
    const std::int32_t end = std::min(sent_ + chunk, tally->per_producer);
    for (; sent_ < end; ++sent_) send<&Stream::consume>(Index{0, 0, 0}, index().x, sent_);
    if (sent_ < tally->per_producer) send<&Stream::produce>(index());
  }
  void consume(std::int32_t producer, std::int32_t sequence) {
    auto& expected = tally->next.at(static_cast<std::size_t>(producer));
    if (sequence != expected) ++tally->out_of_order;
    expected = sequence + 1;
    ++tally->received;
  }

 private:
  std::int32_t sent_ = 0;
};

void expect_streams_arrive(int producers, int per_producer, vela::rt::IdleMode idle) {
  Tally t;
  t.producers = producers;
  t.per_producer = per_producer;
  t.next.assign(static_cast<std::size_t>(producers) + 1, 0);
  tally = &t;
  vela::rt::Options o = unpinned(producers + 1);
  o.idle = idle;
  vela::rt::Runtime runtime(o);
  // Element 0 (the consumer) alone on PE 0; producer k on PE k.
  EXPECT_EQ(runtime.run([&](vela::rt::Context& ctx) {
    auto streams = ctx.create<Stream>("streams", Shape::line(producers + 1), one_per_pe(), 0);
    for (int k = 1; k <= producers; ++k) streams[k].send<&Stream::produce>();
  }),
            0);
  tally = nullptr;
  EXPECT_EQ(t.received, static_cast<std::uint64_t>(producers) * per_producer);
  EXPECT_EQ(t.out_of_order, 0u);
  for (int k = 1; k <= producers; ++k) EXPECT_EQ(t.next[static_cast<std::size_t>(k)], per_producer);
  // Every consume, plus each producer's produce() calls (one per chunk).
  EXPECT_EQ(runtime.stats().messages, t.received + t.received / Stream::chunk);
}

TEST(Messaging, FourProducerPesAMillionMessagesEachIntoOnePe) {
  // 5 PEs on however many cores: with fewer cores the idle PEs yield instead of spinning.
  expect_streams_arrive(4, 1'000'000, vela::rt::IdleMode::adaptive);
}

TEST(Messaging, EveryIdleModeDeliversEverything) {
  for (const auto idle :
       {vela::rt::IdleMode::spin, vela::rt::IdleMode::park, vela::rt::IdleMode::adaptive}) {
    expect_streams_arrive(2, 50'000, idle);
  }
}

// ---- An idle PE's polling window ----

struct Paced {
  std::int32_t left = 0;  // touched by PE 0 only
  double gap_us = 0.0;
};
Paced* paced = nullptr;

class Pacer : public vela::rt::ElementBase {
 public:
  Pacer() = default;
  explicit Pacer(std::int32_t) {}
  // Element 1, on PE 1: busy for the gap, then wakes element 0 on PE 0 (idle meanwhile).
  void serve() {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(paced->gap_us);
    while (std::chrono::steady_clock::now() < until) {
    }
    send<&Pacer::arrive>(Index{0, 0, 0});
  }
  void arrive() {
    if (--paced->left > 0) send<&Pacer::serve>(Index{1, 0, 0});
  }
};

// Parks of a run in which PE 0 waits `gap_us` for each of `rounds` messages, `spin_us` its
// first polling window.
std::uint64_t parks_waiting(double spin_us, double gap_us, std::int32_t rounds) {
  Paced p;
  p.left = rounds;
  p.gap_us = gap_us;
  paced = &p;
  vela::rt::Options o = unpinned(2);
  o.spin_us = spin_us;
  const vela::rt::RunStats stats = run_pair<Pacer, &Pacer::serve>(o, 1);
  paced = nullptr;
  EXPECT_EQ(p.left, 0);
  return stats.parks;
}

TEST(Messaging, AnIdlePeWokenSoonAfterItParksPollsLongerNextTime) {
  // Waits of 300 us, six times --spin-us: the window grows past them after a few parks
  // (core/idle.cpp, adapt_spin), where a fixed one would park at each of the 300.
  const std::uint64_t grown = parks_waiting(50.0, 300.0, 300);
  EXPECT_LT(grown, 100u);
  // --spin-us 0 stays 0: a PE parks at once at every wait.
  const std::uint64_t never = parks_waiting(0.0, 300.0, 300);
  EXPECT_GE(never, 250u);
}

// ---- An entry waiting in place: small messages straight from the ring ----

struct InPlace {
  std::int32_t messages = 0;
  std::int32_t between = 0;       // the plain message goes after this many small ones
  std::vector<std::int32_t> got;  // the small ones' numbers, in the order they ran
  std::int32_t plain_after = -1;  // how many small ones had run when the plain one did
  std::int32_t nested = 0;        // small ones run inside a wait in place
};
InPlace* in_place = nullptr;  // touched by PE 1 only, but for the counts set before the run

class Waiter : public vela::rt::ElementBase {
 public:
  Waiter() = default;
  explicit Waiter(std::int32_t) {}
  // Element 0, on PE 0: sends small message i once element 1 acknowledged i - 1
  // (relocatable arguments: compact ring slots), a plain one (a vector, not relocatable: a
  // whole message) just before number `between`.
  void start() { ack(-1); }
  void ack(std::int32_t done) {
    const std::int32_t i = done + 1;
    if (i == in_place->messages) return;
    if (i == in_place->between) send<&Waiter::plain>(Index{1, 0, 0}, std::vector<int>{i});
    send<&Waiter::small>(Index{1, 0, 0}, i);
  }
  // Element 1, on PE 1: acknowledges each; the first to run from the queue waits in place for
  // the next ones until a wait gives up (something else comes first).
  void small(std::int32_t i) {
    in_place->got.push_back(i);
    send<&Waiter::ack>(Index{0, 0, 0}, i);
    if (waiting_) {
      ++in_place->nested;
      return;
    }
    waiting_ = true;
    static const vela::rt::HandlerId mine[] = {vela::rt::detail::handler_id<&Waiter::small>};
    while (static_cast<std::int32_t>(in_place->got.size()) < in_place->messages &&
           vela::rt::detail::wait_in_place(*this, mine)) {
    }
    waiting_ = false;
  }
  void plain(std::vector<int> marker) {
    in_place->plain_after = static_cast<std::int32_t>(in_place->got.size());
    EXPECT_EQ(marker, std::vector<int>{in_place->between});
  }

 private:
  bool waiting_ = false;
};

TEST(Messaging, AnEntryWaitingInPlaceTakesSmallMessagesFromTheRingInOrder) {
  // PE 1 waits in place for most of them; those that came as compact ring slots run straight
  // from there (RunStats::compact_in_place). The plain message ends a wait (it is not the
  // entry waited for) and runs between the two it was sent between; every message is counted
  // once, and the run ends (the taken ones are counted as received for quiescence).
  for (const auto idle : {vela::rt::IdleMode::spin, vela::rt::IdleMode::adaptive}) {
    InPlace p;
    p.messages = 5'000;
    p.between = 1'234;
    in_place = &p;
    vela::rt::Options o = unpinned(2);
    o.idle = idle;
    const vela::rt::RunStats stats = run_pair<Waiter, &Waiter::start>(o, 0);
    in_place = nullptr;
    ASSERT_EQ(p.got.size(), static_cast<std::size_t>(p.messages));
    for (std::int32_t i = 0; i < p.messages; ++i) ASSERT_EQ(p.got[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(p.plain_after, p.between);
    // start, every small one and its acknowledgement, and the plain one.
    EXPECT_EQ(stats.messages, 2 * static_cast<std::uint64_t>(p.messages) + 2);
    EXPECT_GT(stats.compact_in_place, 0u);
    EXPECT_LE(stats.compact_in_place, static_cast<std::uint64_t>(p.nested));
  }
}

// ---- A busy receiver: its sender neither waits nor loses order ----

struct Flood {
  std::int32_t messages = 0;
  std::atomic<bool> busy_over{false};
  std::atomic<bool> poured_while_busy{false};
  std::int32_t next = 0;  // touched by the receiver's PE only
  std::uint64_t out_of_order = 0;
};
Flood* flood = nullptr;

class Flooded : public vela::rt::ElementBase {
 public:
  Flooded() = default;
  explicit Flooded(std::int32_t) {}
  // Element 0, alone on PE 0: has element 1 pour, then keeps its PE from taking anything.
  void busy() {
    send<&Flooded::pour>(Index{1, 0, 0});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    flood->busy_over = true;
  }
  // Element 1 on PE 1: far more messages than a ring between two PEs holds.
  void pour() {
    for (std::int32_t i = 0; i < flood->messages; ++i) send<&Flooded::take>(Index{0, 0, 0}, i);
    flood->poured_while_busy = !flood->busy_over.load();
  }
  void take(std::int32_t i) {
    if (i != flood->next) ++flood->out_of_order;
    flood->next = i + 1;
  }
};

TEST(Messaging, ASenderToABusyPeGoesOnAndItsMessagesArriveInOrder) {
  for (const auto idle : {vela::rt::IdleMode::adaptive, vela::rt::IdleMode::park}) {
    Flood f;
    f.messages = 50'000;
    flood = &f;
    vela::rt::Options o = unpinned(2);
    o.idle = idle;
    run_pair<Flooded, &Flooded::busy>(o, 0);
    flood = nullptr;
    // The sender's entry ended while the receiver was still busy: its messages beyond the
    // ring's room waited on its side, and went in as the receiver took the others.
    EXPECT_TRUE(f.poured_while_busy.load());
    EXPECT_EQ(f.next, f.messages);
    EXPECT_EQ(f.out_of_order, 0u);
  }
}

// ---- Arguments between two PEs: as their bytes or as the message ----

static_assert(vela::rt::relocatable<std::vector<double>>);
static_assert(vela::rt::relocatable<std::tuple<std::int32_t, std::vector<double>>>);
static_assert(vela::rt::relocatable<Tagged>);
static_assert(!vela::rt::relocatable<std::string>);  // a short one points into itself
static_assert(!vela::rt::relocatable<std::tuple<std::int32_t, std::string>>);

struct Intact {
  std::int32_t messages = 0;
  std::int32_t received = 0;  // touched by the receiver's PE only
  std::int32_t wrong = 0;
};
Intact* intact = nullptr;

class Carrier : public vela::rt::ElementBase {
 public:
  Carrier() = default;
  explicit Carrier(std::int32_t) {}
  void send_all() {
    for (std::int32_t i = 0; i < intact->messages; ++i) {
      // A short string (inline in itself) makes its message travel as its address; a vector
      // and a type of the program's own declared relocatable travel as their bytes.
      send<&Carrier::strings>(Index{1, 0, 0}, i, "m" + std::to_string(i % 100));
      send<&Carrier::values>(Index{1, 0, 0}, i, std::vector<std::int32_t>{i, -i},
                             Tagged(std::int64_t{i} * 7));
      // 0 to 47 bytes: packed, up to 38 of them fit a ring slot's first line (its compact
      // form, core/pe_ring.hpp) and the rest go as the message's image.
      send<&Carrier::sized>(Index{1, 0, 0}, i, bytes_for(i));
    }
  }
  static std::vector<std::uint8_t> bytes_for(std::int32_t i) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(i % 48));
    for (std::size_t k = 0; k < bytes.size(); ++k)
      bytes[k] = static_cast<std::uint8_t>(i * 31 + static_cast<std::int32_t>(k));
    return bytes;
  }
  void sized(std::int32_t i, std::vector<std::uint8_t> bytes) {
    if (bytes != bytes_for(i)) ++intact->wrong;
    ++intact->received;
  }
  void strings(std::int32_t i, std::string text) {
    if (text != "m" + std::to_string(i % 100)) ++intact->wrong;
    ++intact->received;
  }
  void values(std::int32_t i, std::vector<std::int32_t> v, Tagged t) {
    if (v != std::vector<std::int32_t>{i, -i} || t.value != std::int64_t{i} * 7 ||
        t.check != ~t.value)
      ++intact->wrong;
    ++intact->received;
  }
};

TEST(Messaging, ArgumentsReachAnotherPeIntactWhetherTheyMoveAsBytesOrNot) {
  Intact in;
  in.messages = 20'000;
  intact = &in;
  run_pair<Carrier, &Carrier::send_all>(unpinned(2), 0);
  intact = nullptr;
  EXPECT_EQ(in.received, 3 * in.messages);
  EXPECT_EQ(in.wrong, 0);
}

// ---- Arguments are moved, not copied ----

struct Counted {
  static inline std::atomic<int> copies{0};
  std::vector<int> data;
  Counted() = default;
  explicit Counted(std::vector<int> d) : data(std::move(d)) {}
  Counted(const Counted& o) : data(o.data) { ++copies; }
  Counted(Counted&&) noexcept = default;
  Counted& operator=(const Counted& o) {
    data = o.data;
    ++copies;
    return *this;
  }
  Counted& operator=(Counted&&) noexcept = default;
  void pup(vela::pup::Archive& ar) { ar | data; }
};

std::atomic<const int*> sent_buffer{nullptr};
std::atomic<const int*> received_buffer{nullptr};
std::atomic<int> received_values{0};

class Mover : public vela::rt::ElementBase {
 public:
  Mover() = default;
  explicit Mover(std::int32_t) {}

  void start(std::int32_t to) {
    std::vector<int> big(100'000, 7);
    sent_buffer = big.data();
    send<&Mover::take>(Index{to, 0, 0}, std::move(big));
  }
  void take(std::vector<int> values) {
    received_buffer = values.data();
    received_values = static_cast<int>(values.size());
  }
  void start_counted(std::int32_t to) {
    send<&Mover::take_counted>(Index{to, 0, 0}, Counted(std::vector<int>(10, 1)));
  }
  void take_counted(Counted c) { received_values = static_cast<int>(c.data.size()); }
};

TEST(Messaging, AVectorPassedByValueReachesTheMethodWithoutACopy) {
  for (const int pes : {1, 2}) {  // the same PE, and another PE of the process
    sent_buffer = nullptr;
    received_buffer = nullptr;
    vela::rt::Options o = unpinned(pes);
    vela::rt::Runtime runtime(o);
    runtime.run([](vela::rt::Context& ctx) {
      auto m = ctx.create<Mover>("movers", Shape::line(2), InitialMap::block, 0);
      m[0].send<&Mover::start>(1);
    });
    ASSERT_NE(sent_buffer.load(), nullptr);
    EXPECT_EQ(received_buffer.load(), sent_buffer.load()) << pes << " PEs: the buffer was copied";
    EXPECT_EQ(received_values.load(), 100'000);
  }
}

TEST(Messaging, AnArgumentPassedAsAnRvalueIsNeverCopied) {
  Counted::copies = 0;
  vela::rt::Options o = unpinned(2);
  vela::rt::Runtime runtime(o);
  runtime.run([](vela::rt::Context& ctx) {
    auto m = ctx.create<Mover>("movers", Shape::line(3), InitialMap::block, 0);
    m[0].send<&Mover::start_counted>(0);  // to itself
    m[0].send<&Mover::start_counted>(2);  // to the other PE
  });
  EXPECT_EQ(Counted::copies.load(), 0);
  EXPECT_EQ(received_values.load(), 10);
}

// ---- No allocation per message in steady state ----

struct Window {
  std::uint64_t allocations = 0;
  bool done = false;
};
Window* window = nullptr;

class Looper : public vela::rt::ElementBase {
 public:
  Looper() = default;
  explicit Looper(std::int32_t) {}
  void hop(std::int32_t left, std::vector<double> payload) {
    // Warm up the pools and the communication table, then count this PE's allocations.
    if (left == 20'000) window->allocations = vela::testing::allocations();
    if (left == 0) {
      window->allocations = vela::testing::allocations() - window->allocations;
      window->done = true;
      return;
    }
    send<&Looper::hop>(Index{(index().x + 1) % 4, 0, 0}, left - 1, std::move(payload));
  }
};

TEST(Messaging, SteadyStateMessagesAllocateNothing) {
  for (const bool instrument : {true, false}) {
    Window w;
    window = &w;
    vela::rt::Options o = unpinned(1);
    o.instrument = instrument;
    vela::rt::Runtime runtime(o);
    runtime.run([](vela::rt::Context& ctx) {
      auto l = ctx.create<Looper>("loop", Shape::line(4), InitialMap::block, 0);
      l[0].send<&Looper::hop>(30'000, std::vector<double>(64, 1.0));
    });
    window = nullptr;
    EXPECT_TRUE(w.done);
    EXPECT_EQ(w.allocations, 0u) << "instrument=" << instrument;
  }
}

// ---- The communication graph ----

std::map<std::pair<std::int32_t, std::int32_t>, std::uint64_t> expected_edges;

class Talker : public vela::rt::ElementBase {
 public:
  Talker() = default;
  explicit Talker(std::int32_t) {}
  void talk(std::int32_t seed) {
    std::mt19937 rng(static_cast<std::uint32_t>(seed + index().x));
    // Up to 40 destinations, so both the small table and its hashed index are used.
    const auto n = static_cast<std::int32_t>(shape().nx);
    for (int k = 0; k < 300; ++k) {
      const std::int32_t to = static_cast<std::int32_t>(rng() % 40) % n;
      send<&Talker::hear>(Index{to, 0, 0}, k);
    }
    at_sync();
  }
  void hear(std::int32_t) {}
  void resume_from_sync() override {}
};

TEST(Messaging, CommunicationGraphCountsEveryMessageOnItsEdge) {
  constexpr std::int32_t n = 48;
  expected_edges.clear();
  for (std::int32_t from = 0; from < n; ++from) {
    std::mt19937 rng(static_cast<std::uint32_t>(5 + from));
    for (int k = 0; k < 300; ++k)
      ++expected_edges[{from, static_cast<std::int32_t>(rng() % 40) % n}];
  }
  vela::rt::Options o = unpinned(2);
  o.lb = "dummy";
  o.lb_dump = ::testing::TempDir() + "vela_comm_graph_" + std::to_string(::getpid());
  vela::rt::Runtime runtime(o);
  runtime.run([](vela::rt::Context& ctx) {
    auto t = ctx.create<Talker>("talkers", Shape::line(n), InitialMap::block, 0);
    t.broadcast<&Talker::talk>(5);
  });
  const auto instance = vela::lb::read_instance(o.lb_dump + "/talkers-step1.json");
  std::map<std::pair<std::int32_t, std::int32_t>, std::uint64_t> seen;
  std::uint64_t bytes = 0;
  for (const auto& e : instance.edges) {
    seen[{static_cast<std::int32_t>(e.from), static_cast<std::int32_t>(e.to)}] += e.messages;
    bytes += e.bytes;
  }
  EXPECT_EQ(seen, expected_edges);
  EXPECT_EQ(bytes, 300u * n * sizeof(std::int32_t));
  std::filesystem::remove_all(o.lb_dump);
}

// The measurement tree: whatever its fan-in (0: every PE straight to PE 0; 1: a chain), the
// root's instance has every element once, on its PE, with the same communication graph.
TEST(Messaging, MeasurementsReachTheRootUpATreeOfAnyFanIn) {
  constexpr std::int32_t n = 48;
  std::vector<std::string> graphs;
  for (const int fan_in : {0, 1, 2, 3, 16}) {
    vela::rt::Options o = unpinned(7);
    o.lb = "dummy";
    o.lb_fan_in = fan_in;
    o.lb_dump = ::testing::TempDir() + "vela_fan_in_" + std::to_string(::getpid());
    vela::rt::Runtime runtime(o);
    runtime.run([](vela::rt::Context& ctx) {
      auto t = ctx.create<Talker>("talkers", Shape::line(n), InitialMap::round_robin, 0);
      t.broadcast<&Talker::talk>(9);
    });
    const auto instance = vela::lb::read_instance(o.lb_dump + "/talkers-step1.json");
    std::filesystem::remove_all(o.lb_dump);
    ASSERT_EQ(instance.objects.size(), static_cast<std::size_t>(n)) << "fan-in " << fan_in;
    ASSERT_EQ(instance.pes.size(), 7u);
    std::string graph;
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      EXPECT_EQ(instance.objects[i].id, i);
      EXPECT_EQ(instance.objects[i].pe, static_cast<vela::lb::PeId>(i % 7)) << "fan-in " << fan_in;
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> edges;
    for (const auto& e : instance.edges) edges[{e.from, e.to}] += e.messages;
    for (const auto& [k, m] : edges) {
      graph +=
          std::to_string(k.first) + ">" + std::to_string(k.second) + ":" + std::to_string(m) + " ";
    }
    graphs.push_back(graph);
    EXPECT_GT(runtime.stats().lb_collect_seconds, 0.0);
  }
  for (const std::string& g : graphs) EXPECT_EQ(g, graphs.front());
  vela::rt::Options bad;
  bad.lb_fan_in = -1;
  EXPECT_THROW(vela::rt::validate(bad), std::invalid_argument);
}

// ---- Options ----

TEST(Messaging, IdleOptionsParseAndBadOnesAreNamed) {
  CLI::App app;
  vela::rt::Options o;
  vela::rt::add_runtime_options(app, o);
  const char* argv[] = {"app", "--idle", "park", "--spin-us", "12.5"};
  app.parse(5, argv);
  EXPECT_EQ(o.idle, vela::rt::IdleMode::park);
  EXPECT_EQ(o.spin_us, 12.5);
  for (const char* wrong : {"--idle=sleep", "--spin-us=-1"}) {
    CLI::App bad;
    vela::rt::Options b;
    vela::rt::add_runtime_options(bad, b);
    const char* args[] = {"app", wrong};
    EXPECT_THROW(bad.parse(2, args), CLI::ParseError) << wrong;
  }
  vela::rt::Options v;
  v.spin_us = -3;
  try {
    vela::rt::validate(v);
    ADD_FAILURE() << "spin_us -3 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--spin-us"), std::string::npos);
  }
}

// Between processes of one machine, an entry message's large vectors travel where they lie:
// gather() packs the other arguments and names those vectors' bytes, scatter() rebuilds the
// arguments with the vectors sized, to be filled from the sender's bytes.
struct Gathered : vela::rt::ElementBase {
  void take(std::int32_t, std::vector<double>, std::string, std::vector<float>,
            std::vector<std::vector<int>>, std::vector<std::byte>,
            vela::rt::Buffer<std::uint32_t>) {}
};

TEST(EntryArguments, LargeVectorsAreLeftOutOfThePackedFormAndFilledWhereTheyLie) {
  using Args = vela::rt::detail::EntryArgs<&Gathered::take>;
  using Tuple = Args::Parameters;
  std::vector<double> big(50'000);  // 400 KB: a block
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = 1.0 / static_cast<double>(i + 1);
  std::vector<std::byte> bytes(300'000);  // a block
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 13);
  vela::rt::Buffer<std::uint32_t> words(100'000);  // a block, made without initializing it
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<std::uint32_t>(i * i);
  Tuple sent{7, big, "label", {1.5f, 2.5f}, {{1, 2}, {3}}, bytes, words};
  const vela::rt::detail::ArgsOps& ops = Args::ops;

  vela::rt::detail::ByteBlocks from;
  const std::size_t size = ops.gather(&sent, {}, from);
  ASSERT_EQ(from.size(), 3u);  // the two large vectors and the buffer, in argument order
  EXPECT_EQ(from[0].data, reinterpret_cast<std::byte*>(std::get<1>(sent).data()));
  EXPECT_EQ(from[0].size, big.size() * sizeof(double));
  EXPECT_EQ(from[1].size, bytes.size());
  EXPECT_EQ(from[2].data, reinterpret_cast<std::byte*>(std::get<6>(sent).data()));
  EXPECT_EQ(from[2].size, words.size() * 4);
  EXPECT_LT(size, 200u);  // neither vector's bytes are packed
  std::vector<std::byte> packed(size);
  vela::rt::detail::ByteBlocks unused;
  EXPECT_EQ(ops.gather(&sent, packed, unused), size);

  alignas(Tuple) std::byte storage[sizeof(Tuple)];
  vela::rt::detail::ByteBlocks to;
  vela::pup::Unpacker in(packed);
  ops.scatter(storage, in, to);
  in.expect_end();
  auto& received = *std::launder(reinterpret_cast<Tuple*>(storage));
  ASSERT_EQ(to.size(), 3u);
  EXPECT_EQ(std::get<6>(received).size(), words.size());
  for (std::size_t b = 0; b < 3; ++b) {
    ASSERT_EQ(to[b].size, from[b].size);
    std::memcpy(to[b].data, from[b].data, from[b].size);  // what MPI does between processes
  }
  EXPECT_EQ(received, sent);
  ops.destroy(storage);

  // A skeleton that claims a block for an argument that cannot be one is rejected.
  std::vector<std::byte> corrupt = packed;
  // Flag and int, flag and length (the first vector), then the string's flag.
  const std::size_t string_flag = 1 + 4 + 1 + 8;
  ASSERT_EQ(corrupt[string_flag], std::byte{0});
  corrupt[string_flag] = std::byte{1};
  alignas(Tuple) std::byte again[sizeof(Tuple)];
  vela::rt::detail::ByteBlocks ignored;
  vela::pup::Unpacker bad(corrupt);
  try {
    ops.scatter(again, bad, ignored);
    ADD_FAILURE() << "a block claimed for a string was accepted";
  } catch (const vela::pup::PupError& e) {
    EXPECT_NE(std::string(e.what()).find("a block where none can be"), std::string::npos)
        << e.what();
  }
}

TEST(EntryArguments, ABufferPacksAsACountAndItsBytes) {
  vela::rt::Buffer<double> values(5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * static_cast<double>(i);
  const std::vector<std::byte> packed = vela::pup::pack(values);
  EXPECT_EQ(packed.size(), 8u + 5u * sizeof(double));
  vela::rt::Buffer<double> back;
  vela::pup::unpack(packed, back);
  EXPECT_EQ(back, values);
  const vela::rt::Buffer<double> copy = back;  // a deep copy
  EXPECT_EQ(copy, values);
  EXPECT_NE(copy.data(), back.data());
  vela::rt::Buffer<double> empty;
  vela::pup::unpack(vela::pup::pack(empty), back);
  EXPECT_TRUE(back.empty());
  // A count larger than the bytes that follow is an error, not an allocation.
  std::vector<std::byte> lying = packed;
  lying[7] = std::byte{0x10};
  EXPECT_THROW(vela::pup::unpack(lying, back), vela::pup::PupError);
}

}  // namespace
