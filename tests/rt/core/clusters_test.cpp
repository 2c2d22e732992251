// Clusters, the delay device, border prioritization and PE speeds in one
// process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;
using vela::rt::InitialMap;
using vela::rt::Shape;
using vela::rt::detail::parse_clusters;
using vela::rt::detail::parse_speeds;

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name + "_" + std::to_string(::getpid());
  std::ofstream(path) << text;
  return path;
}

// The message of the std::invalid_argument `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// ---- Cluster maps and speeds ----

TEST(Clusters, CountsGiveContiguousClusters) {
  EXPECT_EQ(parse_clusters("2,1,3", 6), (std::vector<std::int32_t>{0, 0, 1, 2, 2, 2}));
  EXPECT_EQ(parse_clusters("", 3), (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_NE(error_of([] { parse_clusters("2,3", 4); }).find("add up to 5 PEs but the run has 4"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_clusters("2,0,2", 4); }).find("'0' is not a PE count"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_clusters("2,,2", 4); }).find("is not a PE count"),
            std::string::npos);
}

TEST(Clusters, MapFileNamesEveryPeOnceAndIsRenumbered) {
  const std::string good = temp_file("map_good", "# PE cluster\n0 7\n1 3\n\n2 7  # west\n3 3\n");
  EXPECT_EQ(parse_clusters(good, 4), (std::vector<std::int32_t>{1, 0, 1, 0}));
  const std::string missing = temp_file("map_missing", "0 0\n1 0\n3 1\n");
  EXPECT_NE(error_of([&] { parse_clusters(missing, 4); }).find("PE 2 has no cluster"),
            std::string::npos);
  const std::string beyond = temp_file("map_beyond", "0 0\n1 0\n2 1\n3 1\n4 1\n");
  const std::string e = error_of([&] { parse_clusters(beyond, 4); });
  EXPECT_NE(e.find("line 5: PE 4 does not exist (the run has 4 PEs, 0 to 3)"), std::string::npos)
      << e;
  EXPECT_NE(e.find(beyond), std::string::npos) << "names the file: " << e;
  const std::string twice = temp_file("map_twice", "0 0\n1 0\n1 1\n");
  EXPECT_NE(
      error_of([&] { parse_clusters(twice, 2); }).find("line 3: PE 1 is already placed on line 2"),
      std::string::npos);
  const std::string bad = temp_file("map_bad", "0 0\n1 -1\n");
  EXPECT_NE(error_of([&] { parse_clusters(bad, 2); }).find("line 2: expected 'PE CLUSTER'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_clusters("/no/such/map", 2); }).find("cannot open"),
            std::string::npos);
  for (const auto& f : {good, missing, beyond, twice, bad}) std::filesystem::remove(f);
}

TEST(Speeds, OneEveryPerClusterOrPerPeAndRelativeToTheFastest) {
  const std::vector<std::int32_t> cluster{0, 0, 1, 1};
  EXPECT_EQ(parse_speeds("3", cluster), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(parse_speeds("2,1", cluster), (std::vector<double>{1, 1, 0.5, 0.5}));
  EXPECT_EQ(parse_speeds("1,0.5,0.25,1", cluster), (std::vector<double>{1, 0.5, 0.25, 1}));
  for (const char* bad : {"0", "-1", "1,2,3", "0x10", "nan", "inf", "1,,2", "fast"}) {
    EXPECT_NE(error_of([&] { parse_speeds(bad, cluster); }).find("--pe-speed"), std::string::npos)
        << bad;
  }
  EXPECT_EQ(vela::rt::detail::speeds_from_seconds({1.0, 2.0, 1.02}),
            (std::vector<double>{1.0, 0.5, 1.0}));
}

TEST(Clusters, BadRuntimeOptionsAreNamed) {
  vela::rt::Options o;
  o.pes = 2;
  o.pin = false;
  o.wan_latency_ms = -1;
  EXPECT_NE(error_of([&] { vela::rt::Runtime r(o); }).find("--wan-latency"), std::string::npos);
  o.wan_latency_ms = 5;  // one cluster: nothing to delay
  EXPECT_NE(error_of([&] { vela::rt::Runtime r(o); }).find("one cluster"), std::string::npos);
  o.wan_latency_ms = 0;
  o.clusters = "1,2";
  EXPECT_NE(error_of([&] { vela::rt::Runtime r(o); }).find("add up to 3 PEs"), std::string::npos);
  o.clusters = "1,1";
  o.pe_speed = "1,1,1";
  EXPECT_NE(error_of([&] { vela::rt::Runtime r(o); }).find("--pe-speed"), std::string::npos);
  o.pe_speed = "";
  o.grid_queue_period = -1;
  EXPECT_NE(error_of([&] { vela::rt::Runtime r(o); }).find("--grid-queue-period"),
            std::string::npos);
  CLI::App app;
  vela::rt::Options parsed;
  vela::rt::add_runtime_options(app, parsed);
  std::vector<std::string> args = {"--wan-latency", "-2"};
  EXPECT_THROW(app.parse(std::vector<std::string>(args.rbegin(), args.rend())), CLI::ParseError);
}

// ---- The delay device ----

// Two elements on two PEs bounce a counter; the receiver checks the order of a burst.
class Bouncer : public vela::rt::ElementBase {
 public:
  Bouncer() = default;
  explicit Bouncer(int rounds) : rounds_(rounds) {}
  void pup(vela::pup::Archive& ar) override { ar | rounds_ | next_; }
  void ball(int count) {
    if (count == 2 * rounds_) return;
    send<&Bouncer::ball>(Index{1 - index().x, 0, 0}, count + 1);
  }
  void burst(int n) {
    for (int i = 0; i < n; ++i) send<&Bouncer::numbered>(Index{1, 0, 0}, i);
  }
  void numbered(int i) {
    if (i != next_) throw std::logic_error("out of order: " + std::to_string(i));
    ++next_;
  }

 private:
  int rounds_ = 0;
  int next_ = 0;
};

double bounce_seconds(const std::string& clusters, double wan_ms, int rounds,
                      vela::rt::RunStats* stats = nullptr) {
  vela::rt::Options o;
  o.pes = 2;
  o.pin = false;
  o.clusters = clusters;
  o.wan_latency_ms = wan_ms;
  vela::rt::Runtime runtime(o);
  const auto from = std::chrono::steady_clock::now();
  runtime.run([&](vela::rt::Context& ctx) {
    auto b = ctx.create<Bouncer>("b", Shape::line(2), InitialMap::block, rounds);
    b[Index{0, 0, 0}].send<&Bouncer::ball>(0);
    b[Index{0, 0, 0}].send<&Bouncer::burst>(500);
  });
  if (stats != nullptr) *stats = runtime.stats();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

TEST(DelayDevice, EveryHopBetweenClustersTakesAtLeastTheLatencyAndOrderIsKept) {
  // 10 round trips of 20 ms each way: at least 400 ms however the machine is loaded.
  vela::rt::RunStats stats;
  const double wan = bounce_seconds("1,1", 20.0, 10, &stats);
  EXPECT_GE(wan, 0.4);
  // Every ball and every burst message crossed (and the runtime's own create message).
  EXPECT_GE(stats.wan_messages, 20u + 500u);
  EXPECT_GE(stats.wan_bytes, (20u + 500u) * sizeof(int));
  // One cluster: no delay, no WAN traffic.
  vela::rt::RunStats local;
  bounce_seconds("2", 0.0, 10, &local);
  EXPECT_EQ(local.wan_messages, 0u);
}

// ---- Border prioritization ----

std::mutex order_mutex;
std::vector<int> order;  // which element ran, in order, on PE 0

// Element 0 and 1 live on PE 0 (cluster 0), element 2 on PE 1 (cluster 1). Element 0 sends to
// element 2 once (it becomes a border object); then element 1 queues `n` messages to element
// `many` and, after them, one to element `once`, all on PE 0.
class Node : public vela::rt::ElementBase {
 public:
  Node() = default;
  explicit Node(int) {}
  void cross() { send<&Node::noop>(Index{2, 0, 0}); }
  void noop() {}
  void flood(int n, int many, int once) {
    for (int i = 0; i < n; ++i) send<&Node::work>(Index{many, 0, 0});
    send<&Node::work>(Index{once, 0, 0});
  }
  void work() {
    std::lock_guard lock(order_mutex);
    order.push_back(index().x);
  }
};

// The order in which elements ran `work` on PE 0; `stats` gets the run's statistics.
std::vector<int> run_order(int grid_period, int n, int many, int once,
                           vela::rt::RunStats* stats = nullptr) {
  order.clear();
  vela::rt::Options o;
  o.pes = 2;
  o.pin = false;
  o.clusters = "1,1";
  o.grid_queue_period = grid_period;
  vela::rt::Runtime runtime(o);
  runtime.run([&](vela::rt::Context& ctx) {
    auto nodes = ctx.create<Node>("n", Shape::line(3),
                                  vela::rt::UserMap([](const Index& i, const Shape&,
                                                       vela::rt::PeId) { return i.x < 2 ? 0 : 1; }),
                                  0);
    nodes[Index{0, 0, 0}].send<&Node::cross>();
    nodes[Index{1, 0, 0}].send<&Node::flood>(n, many, once);
  });
  if (stats != nullptr) *stats = runtime.stats();
  return order;
}

// Ten messages to element 1, then one to the border element 0: the Grid Queue runs element
// 0's first.
TEST(GridQueue, MessagesToBorderElementsRunFirst) {
  const std::vector<int> with = run_order(8, 10, 1, 0);
  ASSERT_EQ(with.size(), 11u);
  EXPECT_EQ(with.front(), 0) << "the border element's message overtakes the queue";
  const std::vector<int> without = run_order(0, 10, 1, 0);
  ASSERT_EQ(without.size(), 11u);
  EXPECT_EQ(without.back(), 0) << "without a Grid Queue, arrival order";
}

// The border element 0 is flooded with twenty messages; element 1's one message must not wait
// for all of them.
TEST(GridQueue, TheStarvationGuardLetsAnOrdinaryMessageThroughAfterThePeriod) {
  vela::rt::RunStats stats;
  run_order(4, 20, 0, 1, &stats);
  ASSERT_EQ(order.size(), 21u);
  const auto at = std::find(order.begin(), order.end(), 1) - order.begin();
  EXPECT_LE(at, 4) << "element 1 ran after " << at << " border messages";
  EXPECT_GT(stats.grid_messages, 0u);
}

// ---- PE speeds ----

class Spinner : public vela::rt::ElementBase {
 public:
  Spinner() = default;
  explicit Spinner(int) {}
  void spin(double seconds) {
    const auto from = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count() <
           seconds) {
    }
    took_ = seconds;
    at_sync();
  }
  void resume_from_sync() override {}

 private:
  double took_ = 0.0;
};

TEST(Speeds, ASlowPeIsEmulatedAndStrategiesSeeSpeedsAndClusters) {
  vela::rt::Options o;
  o.pes = 2;
  o.pin = false;
  o.clusters = "1,1";
  o.pe_speed = "2,1";  // PE 1 half as fast
  o.lb = "dummy";
  o.lb_dump = ::testing::TempDir() + "vela_speeds_" + std::to_string(::getpid());
  vela::rt::Runtime runtime(o);
  const auto from = std::chrono::steady_clock::now();
  runtime.run([&](vela::rt::Context& ctx) {
    auto s = ctx.create<Spinner>("s", Shape::line(2), InitialMap::block, 0);
    s.broadcast<&Spinner::spin>(0.05);
  });
  // PE 1's 50 ms entry is stretched to at least 100 ms.
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count(), 0.1);
  const auto instance = vela::lb::read_instance(o.lb_dump + "/s-step1.json");
  ASSERT_EQ(instance.pes.size(), 2u);
  EXPECT_EQ(instance.pes[0].speed, 1.0);
  EXPECT_EQ(instance.pes[1].speed, 0.5);
  EXPECT_EQ(instance.pes[0].cluster, 0);
  EXPECT_EQ(instance.pes[1].cluster, 1);
  // Loads are work on a PE of speed 1: the same spin on both PEs, though PE 1's took twice as
  // long (a factor 2 either way would mean the speed was not applied).
  ASSERT_EQ(instance.objects.size(), 2u);
  const double ratio = instance.objects[1].load / instance.objects[0].load;
  EXPECT_GT(ratio, 0.7);
  EXPECT_LT(ratio, 1.45);
  std::filesystem::remove_all(o.lb_dump);
}

TEST(Speeds, MeasuredSpeedsAreRelativeToTheFastestPe) {
  vela::rt::Options o;
  o.pes = 2;
  o.pin = false;
  o.pe_speed = "measure";
  o.lb = "dummy";
  o.lb_dump = ::testing::TempDir() + "vela_measured_" + std::to_string(::getpid());
  vela::rt::Runtime runtime(o);
  runtime.run([&](vela::rt::Context& ctx) {
    auto s = ctx.create<Spinner>("s", Shape::line(2), InitialMap::block, 0);
    s.broadcast<&Spinner::spin>(0.001);
  });
  const auto instance = vela::lb::read_instance(o.lb_dump + "/s-step1.json");
  ASSERT_EQ(instance.pes.size(), 2u);
  double fastest = 0.0;
  for (const auto& pe : instance.pes) {
    EXPECT_GT(pe.speed, 0.0);
    EXPECT_LE(pe.speed, 1.0);
    fastest = std::max(fastest, pe.speed);
  }
  EXPECT_EQ(fastest, 1.0);
  std::filesystem::remove_all(o.lb_dump);
}

}  // namespace
