// The rank model: ranks on fibers over PEs, point-to-point matching in MPI's order, collectives,
// migration at migrate(), and the errors a program gets for misuse and deadlock.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "support/ranks.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace {

namespace vp = vela::vp;

using vela::testing::Layout;
using vela::testing::run;

std::string error_of(const Layout& s, const std::function<void()>& body) {
  try {
    run(s, body);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Ranks, EveryRankRunsOnceWithItsOwnNumber) {
  for (int pes : {1, 2, 3}) {
    std::vector<std::atomic<int>> seen(13);
    std::atomic<int> sizes{0};
    EXPECT_EQ(run({13, pes},
                  [&] {
                    seen[static_cast<std::size_t>(vp::rank())]++;
                    if (vp::size() == 13) sizes++;
                  }),
              0);
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
    EXPECT_EQ(sizes.load(), 13);
    EXPECT_EQ(vp::last_run().ranks, 13);
  }
}

TEST(Ranks, RanksDefaultToOnePerPe) {
  std::atomic<int> count{0};
  run({0, 3}, [&] { count += vp::size() == 3 ? 1 : 0; });
  EXPECT_EQ(count.load(), 3);
}

TEST(Ranks, CallsOutsideARankAreErrors) {
  EXPECT_FALSE(vp::in_rank());
  EXPECT_THROW(vp::rank(), vp::Error);
  try {
    int x = 0;
    vp::send(&x, 1, vp::Type::i32, 0, 0);
    FAIL() << "send outside a rank did not throw";
  } catch (const vp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("send: called outside a rank"), std::string::npos);
  }
}

TEST(Ranks, SendAndRecvMatchByTagInSendOrder) {
  std::vector<int> order;
  vp::Status first, second;
  run({2, 2}, [&] {
    if (vp::rank() == 0) {
      const int a[2] = {10, 11};
      const double b = 2.5;
      vp::send(a, 2, vp::Type::i32, 1, 7);
      vp::send(&b, 1, vp::Type::f64, 1, 9);
    } else {
      // The later tag first: matching picks the message by tag, not by arrival.
      double b = 0;
      second = vp::recv(&b, 1, vp::Type::f64, 0, 9);
      int a[4] = {};
      first = vp::recv(a, 4, vp::Type::i32, vp::any_source, vp::any_tag);
      order = {a[0], a[1], static_cast<int>(b * 2)};
    }
  });
  EXPECT_EQ(order, (std::vector<int>{10, 11, 5}));
  EXPECT_EQ(first.source, 0);
  EXPECT_EQ(first.tag, 7);
  EXPECT_EQ(first.count(vp::Type::i32), 2u);
  EXPECT_EQ(second.tag, 9);
  EXPECT_EQ(second.bytes, 8u);
  EXPECT_THROW(first.count(vp::Type::f128), vp::Error);  // 8 bytes are no whole long double
}

// Messages of up to 21 bytes travel as one SmallArrival (its bytes in a compact ring slot
// between PEs), larger ones as an envelope and a payload: every size around the boundary arrives
// whole with its status, whether its receive was posted before (odd sizes) or after (even sizes,
// taken in reverse order) it came, on one PE and between two.
TEST(Ranks, MessagesAroundTheSmallSizeArriveWhole) {
  constexpr int sizes = 41;
  for (int pes : {1, 2}) {
    std::vector<std::vector<unsigned char>> got(sizes);
    std::vector<vp::Status> status(sizes);
    run({2, pes}, [&] {
      auto pattern = [](int size, int i) { return static_cast<unsigned char>(size * 7 + i + 1); };
      if (vp::rank() == 0) {
        vp::barrier();
        for (int size = 0; size < sizes; ++size) {
          std::vector<unsigned char> out(static_cast<std::size_t>(size) + 1);
          for (int i = 0; i < size; ++i) out[static_cast<std::size_t>(i)] = pattern(size, i);
          vp::send(out.data(), static_cast<std::size_t>(size), vp::Type::bytes, 1, size);
        }
        return;
      }
      std::vector<std::vector<unsigned char>> in(sizes, std::vector<unsigned char>(64, 0));
      std::vector<vp::Request> posted;
      for (int size = 1; size < sizes; size += 2) {
        posted.push_back(
            vp::irecv(in[static_cast<std::size_t>(size)].data(), 64, vp::Type::bytes, 0, size));
      }
      vp::barrier();
      for (int size = sizes - 1; size >= 0; size -= 2) {
        status[static_cast<std::size_t>(size)] =
            vp::recv(in[static_cast<std::size_t>(size)].data(), 64, vp::Type::bytes, 0, size);
      }
      for (std::size_t k = 0; k < posted.size(); ++k) status[2 * k + 1] = vp::wait(posted[k]);
      for (int size = 0; size < sizes; ++size) {
        auto& bytes = in[static_cast<std::size_t>(size)];
        bytes.resize(static_cast<std::size_t>(size));
        for (int i = 0; i < size; ++i) {
          if (bytes[static_cast<std::size_t>(i)] != pattern(size, i)) bytes.clear();
        }
        got[static_cast<std::size_t>(size)] = bytes;
      }
    });
    for (int size = 0; size < sizes; ++size) {
      const auto k = static_cast<std::size_t>(size);
      EXPECT_EQ(got[k].size(), k) << "size " << size << " on " << pes << " PE(s)";
      EXPECT_EQ(status[k].bytes, k) << "size " << size;
      EXPECT_EQ(status[k].tag, size);
      EXPECT_EQ(status[k].source, 0);
    }
  }
}

TEST(Ranks, AnySourceReceivesFromEveryone) {
  std::vector<int> sources;
  run({6, 2}, [&] {
    if (vp::rank() == 0) {
      for (int k = 1; k < vp::size(); ++k) {
        int v = 0;
        const vp::Status s = vp::recv(&v, 1, vp::Type::i32, vp::any_source, 3);
        EXPECT_EQ(v, s.source * 100);
        sources.push_back(s.source);
      }
    } else {
      const int v = vp::rank() * 100;
      vp::send(&v, 1, vp::Type::i32, 0, 3);
    }
  });
  std::sort(sources.begin(), sources.end());
  EXPECT_EQ(sources, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(Ranks, NonBlockingCallsComplete) {
  std::atomic<int> ok{0};
  run({4, 2}, [&] {
    const int me = vp::rank(), n = vp::size();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    int in[2] = {-1, -1};
    const int out[2] = {me, me * 10};
    std::vector<vp::Request> q;
    q.push_back(vp::irecv(&in[0], 1, vp::Type::i32, left, 1));
    q.push_back(vp::irecv(&in[1], 1, vp::Type::i32, right, 2));
    q.push_back(vp::isend(&out[0], 1, vp::Type::i32, right, 1));
    q.push_back(vp::isend(&out[1], 1, vp::Type::i32, left, 2));
    std::vector<vp::Status> st(4);
    vp::waitall(q, st);
    bool good = in[0] == left && in[1] == right * 10 && st[0].source == left &&
                st[1].source == right && q[0].null();
    // waitany and test.
    int v = -1;
    vp::Request r[2] = {vp::irecv(&v, 1, vp::Type::i32, left, 5), vp::Request{}};
    vp::Status s;
    vp::Request never = vp::irecv(&v, 1, vp::Type::i32, left, 77);  // nobody sends tag 77
    good = good && !vp::test(never, &s) && !never.null();
    const int x = me + 1000;
    vp::send(&x, 1, vp::Type::i32, right, 5);
    const int which = vp::waitany(r, &s);
    good = good && which == 0 && v == left + 1000 && s.tag == 5;
    good = good && vp::waitany(r, &s) == -1;  // all null
    vp::Request done = vp::isend(&x, 1, vp::Type::i32, right, 6);
    good = good && vp::test(done, nullptr) && done.null();
    int y = 0;
    vp::Request pending = vp::irecv(&y, 1, vp::Type::i32, left, 6);
    const vp::Status w = vp::wait(pending);
    good = good && y == left + 1000 && w.source == left;
    if (good) ok++;
  });
  EXPECT_EQ(ok.load(), 4);
}

TEST(Ranks, ProbeSeesAMessageBeforeItIsReceived) {
  std::atomic<int> ok{0};
  run({2, 1}, [&] {
    if (vp::rank() == 1) {
      const std::vector<double> v(5, 1.5);
      vp::send(v.data(), v.size(), vp::Type::f64, 0, 4);
      return;
    }
    EXPECT_FALSE(vp::iprobe(1, 99).has_value());
    const vp::Status s = vp::probe(vp::any_source, vp::any_tag);
    std::vector<double> v(s.count(vp::Type::f64));
    vp::recv(v.data(), v.size(), vp::Type::f64, s.source, s.tag);
    if (s.source == 1 && s.tag == 4 && v.size() == 5 && v[4] == 1.5) ok++;
  });
  EXPECT_EQ(ok.load(), 1);
}

TEST(Ranks, SendrecvExchangesRoundARing) {
  std::vector<std::atomic<int>> got(7);
  run({7, 3}, [&] {
    const int me = vp::rank(), n = vp::size();
    int in = -1;
    vp::sendrecv(&me, 1, vp::Type::i32, (me + 1) % n, 0, &in, 1, vp::Type::i32, (me + n - 1) % n,
                 0);
    got[static_cast<std::size_t>(me)] = in;
  });
  for (int r = 0; r < 7; ++r) EXPECT_EQ(got[static_cast<std::size_t>(r)].load(), (r + 6) % 7);
}

// Ranks migrate at every migrate() (rotate moves every rank), while messages between one pair
// with one tag keep their order: 400 sent across four balancing points arrive as sent.
TEST(Ranks, OrderBetweenAPairHoldsAcrossMigrations) {
  std::atomic<int> in_order{0};
  vela::rt::RunStats stats;
  run(
      {6, 3, "rotate"},
      [&] {
        const int me = vp::rank(), n = vp::size();
        int expected = 0;
        bool good = true;
        for (int round = 0; round < 4; ++round) {
          for (int k = 0; k < 100; ++k) {
            const int value = round * 100 + k;
            vp::send(&value, 1, vp::Type::i32, (me + 1) % n, 0);
          }
          vp::migrate();
          for (int k = 0; k < 100; ++k) {
            int value = -1;
            vp::recv(&value, 1, vp::Type::i32, (me + n - 1) % n, 0);
            good = good && value == expected++;
          }
        }
        if (good) in_order++;
      },
      &stats);
  EXPECT_EQ(in_order.load(), 6);
  EXPECT_GT(stats.migrations, 0u);
  EXPECT_GT(vp::last_run().migrations, 0u);
}

TEST(Ranks, MigrateWithoutABalancerIsABarrier) {
  std::atomic<int> before{0};
  std::atomic<int> wrong{0};
  run({5, 2}, [&] {
    before++;
    vp::migrate();
    if (before.load() != 5) wrong++;
  });
  EXPECT_EQ(wrong.load(), 0);
}

// Greedy sees ranks' measured compute: the four heavy ranks, all on PE 0 at first, are spread.
TEST(Ranks, MigrateBalancesMeasuredLoad) {
  std::atomic<double> sink{0};
  vela::rt::RunStats stats;
  run(
      {8, 2, "greedy"},
      [&] {
        double x = 0;
        const int work = vp::rank() < 4 ? 400000 : 1000;
        for (int i = 0; i < work; ++i) x += std::sqrt(static_cast<double>(i) + x * 1e-9);
        sink = sink + x;
        vp::migrate();
      },
      &stats);
  EXPECT_GT(stats.migrations, 0u);
}

// Spins for about `seconds` of wall time.
void spin(double seconds) {
  const double until = vp::wtime() + seconds;
  while (vp::wtime() < until) {
  }
}

// Runtime options for `pes` unpinned PEs whose balancing steps are dumped (the `dummy` strategy)
// into a fresh directory of the test's temporary one, named after `name` and this process.
vela::rt::Options dumping_options(int pes, const std::string& name) {
  vela::rt::Options options;
  options.pes = pes;
  options.pin = false;
  options.lb = "dummy";
  options.lb_dump = ::testing::TempDir() + "vela_" + name + "_" + std::to_string(::getpid());
  return options;
}

// Rank 0 sends to ranks 1 and 2 while they wait in recv; rank 1 then computes 40 ms, rank 2
// 4 ms, rank 0 nothing, and all migrate once. Returns the balancer's instance of that step.
vela::lb::Instance handed_over_loads(int pes, vp::RunInfo& info) {
  const vela::rt::Options options = dumping_options(pes, "handoff_" + std::to_string(pes));
  {
    vela::rt::Runtime runtime(options);
    vp::Options v;
    v.ranks = 3;
    v.map = "round-robin";
    vp::run(runtime, v, [] {
      int value = 0;
      if (vp::rank() == 0) {
        // Both others are in recv once they said so.
        vp::recv(&value, 1, vp::Type::i32, 1, 1);
        vp::recv(&value, 1, vp::Type::i32, 2, 1);
        for (int i = 0; i < 3; ++i) {
          const std::vector<std::int32_t> data(16, i);
          vp::send(data.data(), data.size(), vp::Type::i32, 1, 0);
          vp::send(data.data(), data.size(), vp::Type::i32, 2, 0);
        }
      } else {
        vp::send(&value, 1, vp::Type::i32, 0, 1);
        std::vector<std::int32_t> data(16);
        for (int i = 0; i < 3; ++i) {
          vp::recv(data.data(), data.size(), vp::Type::i32, 0, 0);
          EXPECT_EQ(data[0], i);
        }
        spin(vp::rank() == 1 ? 0.040 : 0.004);
      }
      vp::migrate();
    });
    info = vp::last_run();
  }
  auto instance = vela::lb::read_instance(options.lb_dump + "/ranks-step1.json");
  std::filesystem::remove_all(options.lb_dump);
  return instance;
}

TEST(Ranks, SamePeHandOffsChargeEachRankItsOwnLoad) {
  vp::RunInfo info;
  const vela::lb::Instance one = handed_over_loads(1, info);
  // On one PE, rank 0's messages reached the waiting ranks without the scheduler...
  EXPECT_GE(info.handoffs, 6u);
  ASSERT_EQ(one.objects.size(), 3u);
  const double l0 = one.objects[0].load, l1 = one.objects[1].load, l2 = one.objects[2].load;
  // ...and yet each rank's compute is its own load, not the sender's.
  EXPECT_GT(l1, 0.030) << l0 << " " << l1 << " " << l2;
  EXPECT_GT(l2, 0.003) << l0 << " " << l1 << " " << l2;
  EXPECT_LT(l2, 0.5 * l1) << l0 << " " << l1 << " " << l2;
  EXPECT_LT(l0, 0.5 * l2) << l0 << " " << l1 << " " << l2;
}

// Arrivals that end two ranks' waits reach their PE together (its third rank computes while
// they come): the first rank resumes only after the second's message was matched into its
// receive, so that the PE's other ranks get their messages (and can send what other PEs wait
// for) before one rank's next stretch of computation. Resumed at once, rank 0 would find
// rank 1's buffer still empty.
TEST(Ranks, AnEndedWaitResumesBehindTheMessagesWaitingOnThePe) {
  static std::atomic<int> second_got{0};
  static int second_buffer = 0;
  static std::atomic<int> seen_by_first{-1};
  static std::atomic<bool> sent{false};
  second_got = 0;
  second_buffer = 0;
  seen_by_first = -1;
  sent = false;
  // Ranks 0-2 on PE 0, 3-5 on PE 1.
  const int code = run(Layout(6, 2), [] {
    const int me = vp::rank();
    if (me == 0) {
      int v = 0;
      vp::recv(&v, 1, vp::Type::i32, 3, 0);
      seen_by_first = second_buffer;  // rank 1's receive, matched or not yet
    } else if (me == 1) {
      vp::recv(&second_buffer, 1, vp::Type::i32, 3, 0);
    } else if (me == 2) {
      // Holds PE 0 until both messages have been sent to it, and a while longer.
      while (!sent.load()) {
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
      while (std::chrono::steady_clock::now() < until) {
      }
    } else if (me == 3) {
      const int a = 7, b = 11;
      vp::send(&a, 1, vp::Type::i32, 0, 0);
      vp::send(&b, 1, vp::Type::i32, 1, 0);
      sent = true;
    }
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(seen_by_first.load(), 11);
}

// Inside ranks 0 and 1: `rounds` messages each way, each checked (rank 0 sends i, rank 1
// answers -i); other ranks return at once.
void exchange_between_ranks_0_and_1(int rounds) {
  const int me = vp::rank();
  for (int i = 0; me < 2 && i < rounds; ++i) {
    int value = me == 0 ? i : -1;
    if (me == 0) {
      vp::send(&value, 1, vp::Type::i32, 1, 0);
      vp::recv(&value, 1, vp::Type::i32, 1, 0);
      EXPECT_EQ(value, -i);
    } else {
      vp::recv(&value, 1, vp::Type::i32, 0, 0);
      EXPECT_EQ(value, i);
      value = -value;
      vp::send(&value, 1, vp::Type::i32, 0, 0);
    }
  }
}

// A pinned PE whose core a busy thread of another program shares finds it so
// (RunStats::shared_cores) and stops yielding while it polls: each yield handed the busy thread a
// whole time slice, and the 20,000 round trips below took 3 to 19 s instead of 0.03.
TEST(Ranks, APinnedPeWhoseCoreIsSharedStopsYieldingIt) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "a single core";
  static std::atomic<int> pe1_cpu{-1};
  static std::atomic<bool> stop{false};
  pe1_cpu = -1;
  stop = false;
  // The other program: spins on PE 1's core once rank 1 has said which it is.
  std::thread busy([] {
    while (pe1_cpu.load() == -1 && !stop.load()) std::this_thread::yield();
    const int cpu = pe1_cpu.load();
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(cpu), &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  vela::rt::Options options;
  options.pes = 2;
  options.pin = true;
  vela::rt::Runtime runtime(options);
  vp::Options v;
  v.ranks = 2;
  static bool pinned = false;
  pinned = false;
  vp::run(runtime, v, [] {
    const int me = vp::rank();
    if (me == 1) {
      cpu_set_t set;
      CPU_ZERO(&set);
      pinned = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
      pe1_cpu = pinned ? sched_getcpu() : -2;
    }
    exchange_between_ranks_0_and_1(20000);
  });
  stop = true;
  busy.join();
  if (!pinned) GTEST_SKIP() << "this system does not let the runtime pin its PEs";
  EXPECT_GE(runtime.stats().shared_cores, 1u);
}

TEST(Ranks, HandOffsCountTheSameCommunicationAsMessages) {
  vp::RunInfo info;
  const vela::lb::Instance one = handed_over_loads(1, info);
  const vela::lb::Instance three = handed_over_loads(3, info);
  EXPECT_EQ(info.handoffs, 0u);  // one rank per PE: every message went through the runtime
  auto edges = [](const vela::lb::Instance& instance) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> m;
    for (const auto& e : instance.edges) m[{e.from, e.to}] = {e.messages, e.bytes};
    return m;
  };
  const auto e1 = edges(one);
  EXPECT_EQ(e1, edges(three));
  ASSERT_EQ(e1.count({0, 1}), 1u);
  EXPECT_EQ(e1.at({0, 1}).first, 3u);
  EXPECT_GT(e1.at({0, 1}).second, 3u * 16u * 4u);  // the payload and its envelope
}

// Ranks 0 and 1, one per PE of two, exchange `rounds` messages each way, checking each.
vp::RunInfo ping_pong_on_two_pes(int rounds, vp::Options v) {
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  v.ranks = 2;
  vp::run(runtime, v, [rounds] { exchange_between_ranks_0_and_1(rounds); });
  return vp::last_run();
}

TEST(Ranks, ABlockedRankOnAnIdlePeTakesItsMessagesInPlace) {
  const vp::RunInfo info = ping_pong_on_two_pes(500, {});
  // Each PE has nothing but its rank: its receives wait on the rank's stack, without switching
  // to the scheduler and back (a switch is counted per resume).
  EXPECT_GE(info.in_place, 900u);
  EXPECT_LT(info.context_switches, 100u);
}

TEST(Ranks, RanksWithLittleStackWaitInTheScheduler) {
  vp::Options small;
  small.stack_bytes = 16 * 1024;  // too little left for the runtime's wait on it
  const vp::RunInfo info = ping_pong_on_two_pes(200, small);
  EXPECT_EQ(info.in_place, 0u);
  EXPECT_GE(info.context_switches, 400u);
}

TEST(Ranks, RanksWithTheirOwnThreadLocalsWaitInTheScheduler) {
  vp::Options tls;
  tls.tls_globals = true;  // the runtime's code would run with the rank's thread-locals
  vp::RunInfo info;
  try {
    info = ping_pong_on_two_pes(200, tls);
  } catch (const vp::Error& e) {
    GTEST_SKIP() << "TLS method: " << e.what();  // not in this build (sanitizers, platform)
  }
  EXPECT_EQ(info.in_place, 0u);
  EXPECT_GE(info.context_switches, 400u);
}

TEST(Ranks, AWaitInPlaceIsIdleTimeNotTheRanksLoad) {
  // Rank 0 waits in recv while rank 1, on the other PE, computes 40 ms and then sends: the wait
  // is PE 0's idle time, not rank 0's load. (Rank 1 waits for the answer before it migrates:
  // its sync message would otherwise reach PE 0 with the data, and run first, in the
  // scheduler.)
  const vela::rt::Options options = dumping_options(2, "in_place");
  vp::RunInfo info;
  {
    vela::rt::Runtime runtime(options);
    vp::Options v;
    v.ranks = 2;
    vp::run(runtime, v, [] {
      int value = 7;
      if (vp::rank() == 0) {
        vp::recv(&value, 1, vp::Type::i32, 1, 0);
        EXPECT_EQ(value, 7);
        vp::send(&value, 1, vp::Type::i32, 1, 0);
      } else {
        spin(0.040);
        vp::send(&value, 1, vp::Type::i32, 0, 0);
        vp::recv(&value, 1, vp::Type::i32, 0, 0);
      }
      vp::migrate();
    });
    info = vp::last_run();
  }
  const auto instance = vela::lb::read_instance(options.lb_dump + "/ranks-step1.json");
  std::filesystem::remove_all(options.lb_dump);
  EXPECT_GE(info.in_place, 1u);
  ASSERT_EQ(instance.objects.size(), 2u);
  const double l0 = instance.objects[0].load, l1 = instance.objects[1].load;
  EXPECT_GT(l1, 0.030) << l0 << " " << l1;
  EXPECT_LT(l0, 0.25 * l1) << l0 << " " << l1;
}

TEST(Ranks, MessagesForOtherRanksOfAPeWaitingInPlaceRunInOrder) {
  // Ranks 0 and 2 share PE 0, rank 1 has PE 1 and sends to both, alternately: whichever of the
  // two waits in place on PE 0 must let the other's messages through, in order.
  std::atomic<int> received{0};
  run({3, 2, "", "round-robin"}, [&] {
    const int me = vp::rank();
    if (me == 1) {
      for (int i = 0; i < 300; ++i) {
        vp::send(&i, 1, vp::Type::i32, 2 * (i % 2), 0);
      }
      return;
    }
    for (int i = me / 2; i < 300; i += 2) {
      int value = -1;
      vp::recv(&value, 1, vp::Type::i32, 1, 0);
      EXPECT_EQ(value, i);
      ++received;
    }
  });
  EXPECT_EQ(received.load(), 300);
}

TEST(Ranks, ManyHandOffsInARowLeaveTheSchedulerItsTurn) {
  // Two ranks on one PE exchange 10^4 messages back and forth while a third yields: the third
  // must make progress between the pair's hand-offs (it is starved otherwise), and every
  // message arrives in order.
  std::atomic<int> yields{0};
  std::atomic<bool> pair_done{false};
  std::atomic<int> yields_during_pair{0};
  run({3, 1}, [&] {
    const int me = vp::rank();
    if (me == 2) {
      while (!pair_done) {
        vp::yield();
        ++yields;
      }
      return;
    }
    exchange_between_ranks_0_and_1(10000);
    if (me == 1) {
      yields_during_pair = yields.load();
      pair_done = true;
    }
  });
  EXPECT_GT(yields_during_pair.load(), 10);
}

TEST(Ranks, RanksACollectiveMakesReadyResumeInOnePass) {
  // 3,000 ranks on one PE meet in barriers and allreduces: the ranks each result makes ready
  // resume one after the other inside the entry that took it, the scheduler getting a turn
  // every 64 of them at most when messages wait there, else every 1,024 — not a wake message
  // for every rank past the 64th.
  constexpr int ranks = 3000;
  constexpr int rounds = 4;
  std::atomic<int> wrong{0};
  run({ranks, 1}, [&] {
    for (int r = 0; r < rounds; ++r) {
      vp::barrier();
      if (vp::allreduce(r + 1, vp::Op::sum) != (r + 1) * vp::size()) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  const std::uint64_t resumes = std::uint64_t{ranks} * rounds * 2;
  EXPECT_LE(vp::last_run().ready_passes, resumes / 64);
}

namespace hints {
// Blocks in the collectives from `depth` frames down, so that ranks resumed in a row saved
// their registers at different depths (some beyond the context's page).
[[gnu::noinline]] long long meet(int depth, long long value) {
  volatile char frame[160];
  frame[0] = static_cast<char>(depth);
  if (depth > 0) return meet(depth - 1, value) + frame[0] - static_cast<char>(depth);
  vp::barrier();
  return vp::allreduce(value, vp::Op::sum);
}
}  // namespace hints

TEST(Ranks, LinesAskedForAheadOfResumptionAreOnlyHints) {
  // Each of 2,000 ranks notes lines to ask for ahead of its resumption: a block it frees at
  // once, null, more than there is room for; a third of them block 40 frames deep, the others
  // at once. A PE resuming them in a row asks for those lines and for each stack's top where
  // the rank before saved its registers: nothing read from them may change a result (and under
  // AddressSanitizer nothing may touch the freed block).
  int outside = 0;
  vp::detail::note_resume_line(&outside);  // outside a rank: nothing
  constexpr int ranks = 2000;
  std::atomic<int> wrong{0};
  for (int pes : {1, 2}) {
    run({ranks, pes}, [&] {
      auto* gone = new long long[64];
      vp::detail::note_resume_line(gone);
      delete[] gone;
      vp::detail::note_resume_line(nullptr);
      static long long spots[16];
      for (long long& spot : spots) vp::detail::note_resume_line(&spot);
      const int depth = vp::rank() % 3 == 0 ? 40 : 0;
      for (int round = 0; round < 4; ++round) {
        const long long n = vp::size();
        if (hints::meet(depth, vp::rank() + round) != n * (n - 1) / 2 + n * round) ++wrong;
      }
    });
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Ranks, CollectivesGiveMpisAnswers) {
  std::atomic<int> ok{0};
  for (int pes : {1, 2}) {
    ok = 0;
    run({5, pes}, [&] {
      const int me = vp::rank(), n = vp::size();
      bool good = true;
      vp::barrier();
      int b[3] = {0, 0, 0};
      if (me == 3) b[0] = 7, b[1] = 8, b[2] = 9;
      vp::bcast(b, 3, vp::Type::i32, 3);
      good = good && b[0] == 7 && b[2] == 9;
      const long long v[2] = {me + 1, -me};
      long long sum[2] = {0, 0};
      vp::reduce(v, sum, 2, vp::Type::i64, vp::Op::sum, 2);
      if (me == 2) good = good && sum[0] == 15 && sum[1] == -10;
      good = good && vp::allreduce(me + 1, vp::Op::prod) == 120;
      good = good && vp::allreduce(me * 3 % 5, vp::Op::max) == 4;
      good = good && vp::allreduce(static_cast<double>(me) - 1.5, vp::Op::min) == -1.5;
      struct {
        double value;
        int index;
      } loc{static_cast<double>(me % 3), me}, best{};
      vp::allreduce(&loc, &best, 1, vp::Type::pair_f64_i32, vp::Op::maxloc);
      good = good && best.value == 2.0 && best.index == 2;  // ties go to the lower rank
      std::vector<int> all(static_cast<std::size_t>(n), -1);
      const int mine = me * me;
      vp::gather(&mine, 1, vp::Type::i32, all.data(), 1);
      if (me == 1) good = good && all == std::vector<int>{0, 1, 4, 9, 16};
      std::vector<int> every(static_cast<std::size_t>(2 * n), -1);
      const int two[2] = {me, -me};
      vp::allgather(two, 2, vp::Type::i32, every.data());
      for (int r = 0; r < n; ++r)
        good = good && every[static_cast<std::size_t>(2 * r)] == r &&
               every[static_cast<std::size_t>(2 * r + 1)] == -r;
      std::vector<int> parts;
      if (me == 4) {
        for (int r = 0; r < n; ++r) parts.push_back(100 + r);
      }
      int part = -1;
      vp::scatter(parts.data(), 1, vp::Type::i32, &part, 4);
      good = good && part == 100 + me;
      std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n));
      for (int d = 0; d < n; ++d) out[static_cast<std::size_t>(d)] = me * 10 + d;
      vp::alltoall(out.data(), 1, vp::Type::i32, in.data());
      for (int s = 0; s < n; ++s) good = good && in[static_cast<std::size_t>(s)] == s * 10 + me;
      if (good) ok++;
    });
    EXPECT_EQ(ok.load(), 5) << "pes " << pes;
  }
}

// A floating-point sum whose value depends on the order of additions: the deterministic order
// gives the same bits on any PE count and after migrations.
TEST(Ranks, DeterministicReductionsGiveTheSameBitsEverywhere) {
  auto total = [](int pes, const std::string& lb, std::string map) {
    std::atomic<std::uint64_t> bits{0};
    Layout s{11, pes, lb, map};
    run(s, [&] {
      const int me = vp::rank();
      double x = std::pow(10.0, (me * 7) % 17 - 8) * (me % 2 == 0 ? 1 : -1) + 1.0 / (me + 3);
      vp::migrate();
      double sum[3] = {};
      const double in[3] = {x, x * 1e-3, -x};
      vp::allreduce(in, sum, 3, vp::Type::f64, vp::Op::sum);
      if (me == 0)
        bits = std::bit_cast<std::uint64_t>(sum[0]) ^ std::bit_cast<std::uint64_t>(sum[1]);
    });
    return bits.load();
  };
  const std::uint64_t reference = total(1, "", "block");
  EXPECT_EQ(total(2, "", "block"), reference);
  EXPECT_EQ(total(3, "rotate", "round-robin"), reference);
  EXPECT_EQ(total(2, "greedy", "round-robin"), reference);
}

// The reductions' association, written here on its own: V[lo, hi) = V[lo, mid) + V[mid, hi),
// mid = lo plus the largest power of two below hi - lo.
template <class Term>
double along_tree(int lo, int hi, const Term& term) {
  if (hi - lo == 1) return term(lo);
  int p = 1;
  while (p * 2 < hi - lo) p *= 2;
  return along_tree(lo, lo + p, term) + along_tree(lo + p, hi, term);
}

// A reduction to one root among at most 64 ranks combines along the tree at every size, as an
// allreduce does: the values below make each other association or order of the additions give
// other bits. Several calls in a row to changing roots, with no barrier (the ranks other than
// the root go on to the next call while the last one is under way), at sizes from 48 B to 2.4
// MB, on 1 to 3 PEs with ranks moved between the calls; the allreduce gives every rank the
// reduce's bits.
TEST(Ranks, ReductionsAmongFewRanksCombineAlongTheTree) {
  constexpr int ranks = 11;
  const auto term = [](int rank, std::size_t i) {
    return std::pow(10.0, static_cast<double>((rank * 7 + static_cast<int>(i % 5)) % 17) - 8.0) *
               (rank % 2 == 0 ? 1 : -1) +
           1.0 / static_cast<double>(rank + 3 + static_cast<int>(i % 3));
  };
  const auto expected = [&](std::size_t i) {
    return std::bit_cast<std::uint64_t>(along_tree(0, ranks, [&](int r) { return term(r, i); }));
  };
  const auto folded = [&](std::size_t i) {  // what a fold in rank order would give
    double acc = term(0, i);
    for (int r = 1; r < ranks; ++r) acc += term(r, i);
    return std::bit_cast<std::uint64_t>(acc);
  };
  std::size_t differ_from_fold = 0;
  for (std::size_t i = 0; i < 5; ++i) differ_from_fold += expected(i) != folded(i);
  ASSERT_GT(differ_from_fold, 0u) << "the terms must tell the tree from a fold";
  for (const std::size_t n : {std::size_t{6}, std::size_t{40000}, std::size_t{300000}}) {
    for (const auto& [pes, lb] :
         {std::pair{1, ""}, std::pair{2, "rotate"}, std::pair{3, "greedy"}}) {
      std::atomic<int> wrong{0};
      run({ranks, pes, lb, "round-robin"}, [&] {
        const int me = vp::rank();
        std::vector<double> in(n), out(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) in[i] = term(me, i);
        vp::migrate();
        for (const int root : {4, 0, 10, 4}) {
          std::fill(out.begin(), out.end(), 0.0);
          vp::reduce(in.data(), out.data(), n, vp::Type::f64, vp::Op::sum, root);
          for (std::size_t i = 0; me == root && i < n; i += n / 3 + 1) {
            if (std::bit_cast<std::uint64_t>(out[i]) != expected(i)) wrong++;
          }
        }
        vp::allreduce(in.data(), out.data(), n, vp::Type::f64, vp::Op::sum);
        for (std::size_t i = 0; i < n; i += n / 7 + 1) {
          if (std::bit_cast<std::uint64_t>(out[i]) != expected(i)) wrong++;
        }
      });
      EXPECT_EQ(wrong.load(), 0) << n << " doubles on " << pes << " PEs";
    }
  }
}

// Among more than 64 ranks a floating-point reduction is gathered per PE and combined along the
// tree where its result is wanted: the bits of the tree's association, which each other
// association or order of the additions would change, for a reduce to a root and an allreduce
// on every rank, on 1 to 3 PEs with the ranks moved between the calls.
TEST(Ranks, ReductionsAmongManyRanksCombineAlongTheTree) {
  constexpr int ranks = 150;
  const auto term = [](int rank, int i) {
    return std::pow(10.0, static_cast<double>((rank * 7 + i) % 17) - 8.0) *
               (rank % 2 == 0 ? 1 : -1) +
           1.0 / static_cast<double>(rank + 3 + i);
  };
  const auto along = [&](int i) { return along_tree(0, ranks, [&](int r) { return term(r, i); }); };
  for (const auto& [pes, lb] : {std::pair{1, ""}, std::pair{2, "rotate"}, std::pair{3, "greedy"}}) {
    std::atomic<int> wrong{0};
    run({ranks, pes, lb, "round-robin"}, [&] {
      const int me = vp::rank();
      const double in[3] = {term(me, 0), term(me, 1), term(me, 2)};
      double out[3] = {0, 0, 0};
      vp::migrate();
      vp::reduce(in, out, 3, vp::Type::f64, vp::Op::sum, 77);
      for (int i = 0; me == 77 && i < 3; ++i) {
        if (std::bit_cast<std::uint64_t>(out[i]) != std::bit_cast<std::uint64_t>(along(i))) wrong++;
      }
      vp::migrate();
      vp::allreduce(in, out, 3, vp::Type::f64, vp::Op::sum);
      for (int i = 0; i < 3; ++i) {
        if (std::bit_cast<std::uint64_t>(out[i]) != std::bit_cast<std::uint64_t>(along(i))) wrong++;
      }
      double largest = term(0, 5);
      for (int r = 1; r < ranks; ++r) largest = std::max(largest, term(r, 5));
      if (vp::allreduce(term(me, 5), vp::Op::max) != largest) wrong++;
    });
    EXPECT_EQ(wrong.load(), 0) << pes << " PEs, " << lb;
  }
}

// The ranks other than the root send their part of a reduction and go on: here every one of
// them reports to the root after its MPI_Reduce-like call, and the root takes all the reports
// before it makes the call itself (an exchange by blocks, where every rank folds a block, would
// wait for the root).
TEST(Ranks, AReductionsOtherRanksDoNotWaitForTheRoot) {
  for (const int pes : {1, 2}) {
    std::atomic<long long> total{-1};
    run({6, pes}, [&] {
      const int me = vp::rank();
      std::vector<long long> in(8192, me), out(8192, 0);  // 64 KiB
      if (me != 0) {
        vp::reduce(in.data(), out.data(), in.size(), vp::Type::i64, vp::Op::sum, 0);
        vp::send(&me, 1, vp::Type::i32, 0, 5);
        return;
      }
      for (int r = 1; r < 6; ++r) {
        int from = -1;
        vp::recv(&from, 1, vp::Type::i32, vp::any_source, 5);
      }
      vp::reduce(in.data(), out.data(), in.size(), vp::Type::i64, vp::Op::sum, 0);
      total = out.back();
    });
    EXPECT_EQ(total.load(), 15) << pes << " PEs";
  }
}

// Among more than 64 ranks a barrier, a broadcast, an exact reduction, a gather, an allgather
// and a scatter combine per PE: no message between ranks (no same-PE hand-off on one PE), no rank
// leaves a barrier before every rank came (a counter every rank raises before it), each result
// right, on 1 to 3 PEs with the ranks moved between rounds; a sum of doubles in any order
// (Order::arrival) of integral values is exact too.
TEST(Ranks, CollectivesAmongManyRanksCombinePerPe) {
  constexpr int n = 200;
  for (const auto& [pes, lb] : {std::pair{1, ""}, std::pair{2, "rotate"}, std::pair{3, "greedy"}}) {
    std::atomic<int> came{0};
    std::atomic<int> wrong{0};
    run({n, pes, lb, "round-robin"}, [&] {
      const int me = vp::rank();
      for (int round = 0; round < 5; ++round) {
        came++;
        vp::barrier();
        if (came.load() < n * (round + 1)) wrong++;
        const int root = (round * 71 + 3) % n;
        int b[2] = {me == root ? round : -1, me == root ? 99 : -1};
        vp::bcast(b, 2, vp::Type::i32, root);
        if (b[0] != round || b[1] != 99) wrong++;
        if (vp::allreduce(static_cast<long long>(me) * (round + 1), vp::Op::sum) !=
            static_cast<long long>(n) * (n - 1) / 2 * (round + 1))
          wrong++;
        const int most = vp::allreduce(me, vp::Op::max);
        const int least = vp::allreduce(me + round, vp::Op::min);
        if (most != n - 1 || least != round) wrong++;
        long long total = -1;
        const long long mine = me + 1;
        vp::reduce(&mine, &total, 1, vp::Type::i64, vp::Op::sum, root);
        if (me == root && total != static_cast<long long>(n) * (n + 1) / 2) wrong++;
        if (vp::allreduce(static_cast<double>(me), vp::Op::sum, vp::Order::arrival) !=
            static_cast<double>(n) * (n - 1) / 2)
          wrong++;
        const int two[2] = {me, round - me};
        std::vector<int> all(2 * n, -1);
        vp::gather(two, 2, vp::Type::i32, all.data(), root);
        for (int r = 0; me == root && r < n; ++r) {
          if (all[2 * static_cast<std::size_t>(r)] != r ||
              all[2 * static_cast<std::size_t>(r) + 1] != round - r)
            wrong++;
        }
        std::fill(all.begin(), all.end(), -1);
        vp::allgather(two, 2, vp::Type::i32, all.data());
        for (int r = 0; r < n; ++r) {
          if (all[2 * static_cast<std::size_t>(r)] != r) wrong++;
        }
        std::vector<int> blocks;
        if (me == root) {
          for (int r = 0; r < n; ++r) blocks.insert(blocks.end(), {r, r * round, -r});
        }
        int got[3] = {-1, -1, -1};
        vp::scatter(blocks.data(), 3, vp::Type::i32, got, root);
        if (got[0] != me || got[1] != me * round || got[2] != -me) wrong++;
        if (round % 2 == 1) vp::migrate();
      }
    });
    EXPECT_EQ(wrong.load(), 0) << pes << " PEs, " << lb;
  }
  // On one PE the per-PE calls hand nothing from rank to rank (the trees would: 2 (n - 1) per
  // barrier).
  run({n, 1}, [] {
    for (int i = 0; i < 10; ++i) vp::barrier();
    long long sum = vp::allreduce(1LL, vp::Op::sum);
    vp::bcast(&sum, 1, vp::Type::i64, n - 1);
    const int me = vp::rank();
    std::vector<int> all(n);
    vp::allgather(&me, 1, vp::Type::i32, all.data());
    vp::scatter(all.data(), 1, vp::Type::i32, &sum, 3);
  });
  EXPECT_EQ(vp::last_run().handoffs, 0u);
}

// Two groups of more than 64 ranks sharing one context (the even and the odd ranks, as two
// halves of a split would) combine per PE apart: no rank of a group leaves its barrier before
// every rank of that group came, each group's sum is its own, on 1 to 3 PEs with moves; on one
// PE nothing is handed from rank to rank.
TEST(Ranks, GroupsSharingAContextCombinePerPeApart) {
  constexpr int n = 260;
  for (const auto& [pes, lb] : {std::pair{1, ""}, std::pair{2, "rotate"}, std::pair{3, "greedy"}}) {
    std::atomic<int> came[2] = {0, 0};
    std::atomic<int> wrong{0};
    run({n, pes, lb, "round-robin"}, [&] {
      const int me = vp::rank();
      const int half = me % 2;
      std::uint32_t calls = 0;
      vp::Members group;
      group.context = 4242;
      group.size = n / 2;
      group.index = me / 2;
      group.first = half;
      group.stride = 2;
      group.calls = &calls;
      const vela::vp::Combine add{[](const void* in, void* inout, std::size_t count, const void*) {
                                    for (std::size_t i = 0; i < count; ++i)
                                      static_cast<long long*>(inout)[i] +=
                                          static_cast<const long long*>(in)[i];
                                  },
                                  nullptr,
                                  true,
                                  true,
                                  true,
                                  true};
      for (int round = 0; round < 4; ++round) {
        came[half]++;
        vp::group::barrier(group, "barrier");
        if (came[half].load() < n / 2 * (round + 1)) wrong++;
        const long long mine = me;
        long long sum = -1;
        vp::group::allreduce(group, &mine, &sum, 1, sizeof mine, add, "allreduce");
        long long expected = 0;
        for (int r = half; r < n; r += 2) expected += r;
        if (sum != expected) wrong++;
        if (round % 2 == 1) vp::migrate();
      }
    });
    EXPECT_EQ(wrong.load(), 0) << pes << " PEs, " << lb;
    if (pes == 1) {
      EXPECT_EQ(vp::last_run().handoffs, 0u);
    }
  }
}

// A scatter among more than 64 ranks goes down a tree: every rank gets its own block, from a
// root in the middle, on 1 and 2 PEs.
TEST(Ranks, ScatterAmongManyRanksGivesEachItsBlock) {
  for (const int pes : {1, 2}) {
    std::atomic<int> right{0};
    run({100, pes}, [&] {
      const int me = vp::rank();
      std::vector<int> blocks;
      if (me == 37) {
        for (int r = 0; r < 100; ++r) blocks.insert(blocks.end(), {r, r * r, -r});
      }
      int mine[3] = {-1, -1, -1};
      vp::scatter(blocks.data(), 3, vp::Type::i32, mine, 37);
      if (mine[0] == me && mine[1] == me * me && mine[2] == -me) right++;
    });
    EXPECT_EQ(right.load(), 100) << pes << " PEs";
  }
}

// A grid the ranks do not fill is refused by name, with what was expected.
TEST(Ranks, AGridOfAnotherSizeIsRefused) {
  std::atomic<int> refused{0};
  std::string said;
  run({6, 1}, [&] {
    try {
      vp::declare_grid({4, 1, 1}, 1);
    } catch (const vp::Error& e) {
      said = e.what();  // one PE: the ranks take turns
      if (said.find("declare_grid") != std::string::npos &&
          said.find("(4) for 6 elements") != std::string::npos &&
          said.find("product is the element count") != std::string::npos)
        refused++;
    }
  });
  EXPECT_EQ(refused.load(), 6) << said;
}

TEST(Ranks, ArrivalOrderReductionsAreCorrect) {
  std::atomic<int> ok{0};
  run({9, 2}, [&] {
    long long v = vp::rank(), sum = 0;
    vp::allreduce(&v, &sum, 1, vp::Type::i64, vp::Op::sum, vp::Order::arrival);
    if (sum == 36) ok++;
  });
  EXPECT_EQ(ok.load(), 9);
}

TEST(Ranks, YieldLetsTheOtherRanksOfThePeRun) {
  std::vector<int> trace;
  std::mutex m;
  run({3, 1}, [&] {
    for (int i = 0; i < 3; ++i) {
      {
        std::lock_guard lock(m);
        trace.push_back(vp::rank());
      }
      vp::yield();
    }
  });
  EXPECT_EQ(trace, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

// Ranks of one PE share its thread, hence the C library's errno: each rank's goes in and out
// with it, so a value a rank set is what it reads after other ranks ran and set theirs.
TEST(Ranks, EachRankKeepsItsOwnErrno) {
  std::vector<int> seen(3, -1);
  run({3, 1}, [&] {
    errno = 100 + vp::rank();
    vp::yield();  // the others run and set theirs
    vp::yield();
    seen[static_cast<std::size_t>(vp::rank())] = errno;
  });
  EXPECT_EQ(seen, (std::vector<int>{100, 101, 102}));
}

// ThreadSanitizer counts each fiber as a thread and stops at 8,128 of them.
#if defined(__SANITIZE_THREAD__)
constexpr int many_ranks = 4000;
#else
constexpr int many_ranks = 10000;
#endif

TEST(Ranks, TenThousandRanksStartAndFinish) {
  std::atomic<int> done{0};
  long long total = 0;
  run({many_ranks, 2}, [&] {
    const long long v = 1;
    long long sum = 0;
    vp::allreduce(&v, &sum, 1, vp::Type::i64, vp::Op::sum, vp::Order::arrival);
    if (vp::rank() == 0) total = sum;
    done++;
  });
  EXPECT_EQ(done.load(), many_ranks);
  EXPECT_EQ(total, many_ranks);
  const vp::RunInfo info = vp::last_run();
  EXPECT_EQ(info.ranks, many_ranks);
  // Each rank touched a few pages of its stack, not the whole 256 KiB.
  EXPECT_LT(info.stack_bytes_touched / many_ranks, 64u * 1024u);
}

// More ranks than the kernel's mapping limit allows a process: refused at once with that
// reason (issue 36, finding 5), not at some rank's start with "cannot commit its slot".
TEST(Ranks, MoreRanksThanTheMappingLimitAreRefusedWithTheReason) {
  const std::string e = error_of({200000, 1}, [] {});
  EXPECT_NE(e.find("vm.max_map_count"), std::string::npos) << e;
  EXPECT_NE(e.find("200000 ranks"), std::string::npos) << e;
}

TEST(Ranks, ADeadlockIsReportedNotAHang) {
  const std::string e = error_of({3, 2}, [] {
    if (vp::rank() == 1) {
      int v = 0;
      vp::recv(&v, 1, vp::Type::i32, 2, 5);
    }
  });
  EXPECT_NE(e.find("1 of 3 ranks can never go on"), std::string::npos) << e;
  EXPECT_NE(e.find("rank 1 waits in recv(source 2, tag 5)"), std::string::npos) << e;
}

TEST(Ranks, ACollectiveNotEveryRankCalledIsReportedAsOne) {
  const std::string e = error_of({3, 2}, [] {
    if (vp::rank() != 0) vp::barrier();
  });
  EXPECT_NE(e.find("2 of 3 ranks can never go on"), std::string::npos) << e;
  // The tree's internal source and tag are not shown.
  EXPECT_NE(e.find("waits in barrier() (a collective)"), std::string::npos) << e;
  EXPECT_EQ(e.find("barrier(source"), std::string::npos) << e;
}

// A reduction combined in the process's memory (512 bytes or more among few ranks) that one rank
// never calls: the root, the only rank that waits, is reported in the call; the others went on.
TEST(Ranks, AReductionInTheProcesssMemoryNotEveryRankCalledIsReported) {
  const std::string e = error_of({4, 2}, [] {
    std::vector<double> in(1024, 1.0), out(1024, 0.0);
    if (vp::rank() != 3)
      vp::reduce(in.data(), out.data(), in.size(), vp::Type::f64, vp::Op::sum, 1);
  });
  EXPECT_NE(e.find("1 of 4 ranks can never go on"), std::string::npos) << e;
  EXPECT_NE(e.find("rank 1 waits in reduce() (a collective)"), std::string::npos) << e;
}

// The same among more than 64 ranks, where the barrier combines per PE.
TEST(Ranks, ACollectiveNotEveryRankCalledAmongManyIsReportedAsOne) {
  const std::string e = error_of({100, 2}, [] {
    if (vp::rank() != 42) vp::barrier();
  });
  EXPECT_NE(e.find("99 of 100 ranks can never go on"), std::string::npos) << e;
  EXPECT_NE(e.find("waits in barrier() (a collective)"), std::string::npos) << e;
}

TEST(Ranks, ARankThatNeverMigratesIsReported) {
  const std::string e = error_of({4, 2, "greedy"}, [] {
    if (vp::rank() != 2) vp::migrate();
  });
  EXPECT_NE(e.find("3 of 4 ranks can never go on"), std::string::npos) << e;
  EXPECT_NE(e.find("rank 0 waits in migrate()"), std::string::npos) << e;
  EXPECT_NE(e.find("a collective that not every rank called"), std::string::npos) << e;
}

TEST(Ranks, BadArgumentsNameTheCall) {
  auto in_rank_error = [](const std::function<void()>& f) {
    std::string what;
    std::mutex m;
    const std::string outer = error_of({2, 1}, [&] {
      if (vp::rank() != 0) return;
      try {
        f();
      } catch (const vp::Error& e) {
        std::lock_guard lock(m);
        what = e.what();
      }
    });
    return what.empty() ? outer : what;
  };
  int x[4] = {};
  EXPECT_NE(in_rank_error([&] {
              vp::send(x, 1, vp::Type::i32, 2, 0);
            }).find("send: dest 2 is outside 0..1"),
            std::string::npos);
  EXPECT_NE(in_rank_error([&] {
              vp::send(x, static_cast<std::size_t>(-1), vp::Type::i32, 1, 0);
            }).find("send: count"),
            std::string::npos);
  EXPECT_NE(in_rank_error([&] {
              vp::recv(x, 1, vp::Type::i32, -5, 0);
            }).find("recv: source -5 is outside 0..1 (or any source)"),
            std::string::npos);
  EXPECT_NE(in_rank_error([&] { vp::send(x, 1, vp::Type::i32, 1, -3); }).find("send: tag -3"),
            std::string::npos);
  EXPECT_NE(
      in_rank_error([&] { vp::send(nullptr, 2, vp::Type::i32, 1, 0); }).find("send: null buffer"),
      std::string::npos);
  EXPECT_NE(
      in_rank_error([&] { vp::bcast(x, 1, vp::Type::i32, 9); }).find("bcast: root 9 is outside"),
      std::string::npos);
  EXPECT_NE(in_rank_error([&] {
              vp::allreduce(x, x + 1, 1, vp::Type::f64, vp::Op::band);
            }).find("allreduce: bitwise and of double"),
            std::string::npos);
}

TEST(Ranks, TruncationAndMismatchedTypesAreErrors) {
  std::string truncated, mismatched;
  run({2, 2}, [&] {
    if (vp::rank() == 0) {
      const double d[2] = {1, 2};
      vp::send(d, 2, vp::Type::f64, 1, 0);
      vp::send(d, 1, vp::Type::f64, 1, 1);
      return;
    }
    double one = 0;
    try {
      vp::recv(&one, 1, vp::Type::f64, 0, 0);
    } catch (const vp::Error& e) {
      truncated = e.what();
    }
    int i[4] = {};
    try {
      vp::recv(i, 4, vp::Type::i32, 0, 1);
    } catch (const vp::Error& e) {
      mismatched = e.what();
    }
  });
  EXPECT_NE(truncated.find("recv: the message from rank 0 (tag 0) has 16 bytes, the receive "
                           "buffer holds 8"),
            std::string::npos)
      << truncated;
  EXPECT_NE(mismatched.find("recv: a message of double from rank 0 (tag 1) received as int32"),
            std::string::npos)
      << mismatched;
}

// Large messages are read in the sender's buffer and copied once by the receiving side: into the
// posted receive, or into a block of their own when none is posted yet. Either way a send returns
// only once the bytes are copied (its buffer may change at once), and never waits for the
// receiving program. On one PE, over PEs, to itself, with isend, and with a truncation.
TEST(Ranks, LargeSendsMayReuseTheirBufferAtOnce) {
  constexpr std::size_t n = 100'000;  // 400 KB of int32: above the size read in place
  for (const Layout& layout : {Layout{4, 1}, Layout{4, 2}, Layout{3, 3, "rotate"}}) {
    std::atomic<int> ok{0};
    std::string truncated;
    run(layout, [&] {
      const int me = vp::rank(), size = vp::size();
      const int right = (me + 1) % size, left = (me + size - 1) % size;
      std::vector<std::int32_t> out(n), in(n);
      auto fill = [&](int round) {
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(i) * 7 + me + round;
      };
      auto holds = [&](int from, int round) {
        for (std::size_t i = 0; i < n; ++i) {
          if (in[i] != static_cast<std::int32_t>(i) * 7 + from + round) return false;
        }
        return true;
      };
      bool good = true;
      // Posted first: received in place.
      vp::Request posted = vp::irecv(in.data(), n, vp::Type::i32, left, 1);
      fill(1);
      vp::send(out.data(), n, vp::Type::i32, right, 1);
      vp::wait(posted);
      good = good && holds(left, 1);
      // Sent twice before either receive; each send's buffer overwritten right after it.
      fill(2);
      vp::send(out.data(), n, vp::Type::i32, right, 2);
      fill(3);
      vp::Request again = vp::isend(out.data(), n, vp::Type::i32, right, 3);
      vp::wait(again);
      fill(4);
      vp::recv(in.data(), n, vp::Type::i32, left, 3);
      good = good && holds(left, 3);
      vp::recv(in.data(), n, vp::Type::i32, left, 2);
      good = good && holds(left, 2);
      // To itself, before its receive.
      fill(5);
      vp::send(out.data(), n, vp::Type::i32, me, 5);
      fill(6);
      vp::recv(in.data(), n, vp::Type::i32, me, 5);
      good = good && holds(me, 5);
      if (layout.lb == "rotate") vp::migrate();
      // Truncated: the receiver gets the error, the sender goes on.
      vp::send(out.data(), n, vp::Type::i32, right, 7);
      try {
        vp::recv(in.data(), n - 1, vp::Type::i32, left, 7);
      } catch (const vp::Error& e) {
        if (me == 0) truncated = e.what();
      }
      vp::barrier();
      if (good) ok++;
    });
    EXPECT_EQ(ok.load(), layout.ranks) << layout.ranks << " ranks on " << layout.pes << " PEs";
    EXPECT_NE(truncated.find("has 400000 bytes, the receive buffer holds 399996"),
              std::string::npos)
        << truncated;
  }
}

// A large message to a rank on another PE of the process is copied by both PEs when the sender
// waits with nothing else to run (docs/architecture.md, Ranks): chunks claimed by either side,
// the send returning and the receive completing only once every byte is in. Ping-pong of sizes
// that end mid-chunk, each round a pattern of its own, checked whole on both sides; the
// senders took part at least once (the run's counter).
TEST(Ranks, LargeMessagesBetweenPesAreCopiedByBothPesExactly) {
  const std::size_t sizes[] = {128 * 1024, (1u << 20) + 13, 3 * (1u << 20) - 1};
  constexpr int rounds = 40;
  std::atomic<int> wrong{0};
  const auto ping_pong = [&] {
    const int me = vp::rank(), other = 1 - me;
    std::vector<std::uint8_t> buffer(3u << 20);
    auto pattern = [](std::size_t i, int round, int from) {
      return static_cast<std::uint8_t>((i * 131 + static_cast<std::size_t>(round) * 7 +
                                        static_cast<std::size_t>(from) * 3 + i / 4096) &
                                       0xff);
    };
    for (const std::size_t n : sizes) {
      for (int round = 0; round < rounds; ++round) {
        const bool sends_first = (round % 2 == 0) == (me == 0);
        for (int leg = 0; leg < 2; ++leg) {
          if ((leg == 0) == sends_first) {
            for (std::size_t i = 0; i < n; ++i) buffer[i] = pattern(i, round, me);
            vp::send(buffer.data(), n, vp::Type::bytes, other, round);
            buffer[0] ^= 0xff;  // the send returned: its buffer is the program's again
          } else {
            vp::recv(buffer.data(), n, vp::Type::bytes, other, round);
            for (std::size_t i = 0; i < n; ++i) {
              if (buffer[i] != pattern(i, round, other)) {
                wrong++;
                break;
              }
            }
          }
        }
      }
    }
  };
  // Whether a sender's PE takes part depends on timing (it must be free when the receiver
  // publishes the copy), and on a loaded machine one run may see none: up to three runs, each
  // checked byte by byte.
  std::uint64_t shared = 0;
  for (int attempt = 0; attempt < 3 && shared == 0; ++attempt) {
    run({2, 2}, ping_pong);
    EXPECT_EQ(wrong.load(), 0);
    shared = vp::last_run().shared_copies;
  }
  EXPECT_GT(shared, 0u);
}

TEST(Ranks, AnExceptionInARankEndsTheRun) {
  const std::string e = error_of({4, 2}, [] {
    if (vp::rank() == 3) throw std::runtime_error("rank three failed");
    int v = 0;
    vp::recv(&v, 1, vp::Type::i32, 3, 0);  // never sent: the others block until the run ends
  });
  EXPECT_EQ(e, "rank three failed");
}

TEST(Ranks, AbortEndsTheRunWithItsCode) {
  std::atomic<int> after{0};
  EXPECT_EQ(run({4, 2},
                [&] {
                  if (vp::rank() == 1) vp::abort(7);
                  int v = 0;
                  vp::recv(&v, 1, vp::Type::i32, 1, 0);
                  after++;
                }),
            7);
  EXPECT_EQ(after.load(), 0);
}

TEST(Ranks, BadOptionsAreRejected) {
  vela::rt::Options options;
  options.pes = 1;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  vp::Options v;
  v.ranks = -2;
  EXPECT_THROW(vp::run(runtime, v, [] {}), vp::Error);
  v.ranks = 2;
  v.map = "diagonal";
  EXPECT_THROW(vp::run(runtime, v, [] {}), vp::Error);
  v.map = "block";
  v.stack_bytes = 100;
  try {
    vp::run(runtime, v, [] {});
    FAIL();
  } catch (const vp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--vp-stack 100"), std::string::npos);
  }
}

TEST(Ranks, CommandLineOptions) {
  CLI::App app;
  vp::Options v;
  vp::add_vp_options(app, v);
  const char* argv[] = {"prog", "--vp", "12", "--vp-stack", "64k", "--vp-map", "round-robin"};
  app.parse(7, const_cast<char**>(argv));
  EXPECT_EQ(v.ranks, 12);
  EXPECT_EQ(v.stack_bytes, 64u * 1024u);
  EXPECT_EQ(v.map, "round-robin");
  CLI::App bad;
  vp::Options w;
  vp::add_vp_options(bad, w);
  const char* wrong[] = {"prog", "--vp-map", "diagonal"};
  EXPECT_THROW(bad.parse(3, const_cast<char**>(wrong)), CLI::ValidationError);
  // A malformed grid is a parse error like the others (a program that reports CLI11's errors
  // prints it and exits; an exception of another type ended such programs with terminate).
  for (const char* grid : {"0x0", "abc", "2x", "-1", "1x1x1x1"}) {
    CLI::App app_with_grid;
    vp::Options g;
    vp::add_vp_options(app_with_grid, g);
    const char* args[] = {"prog", "--vp-grid", grid};
    try {
      app_with_grid.parse(3, const_cast<char**>(args));
      ADD_FAILURE() << grid << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("expected X, XxY or XxYxZ"), std::string::npos)
          << grid << ": " << e.what();
    }
  }
  // --vp-privatize takes its four values only.
  CLI::App privatize;
  vp::Options p;
  vp::add_vp_options(privatize, p);
  const char* method[] = {"prog", "--vp-privatize", "everything"};
  EXPECT_THROW(privatize.parse(3, const_cast<char**>(method)), CLI::ValidationError);
}

}  // namespace

// --vp-grid: the ranks' collection is the program's grid, so strategies see each rank at its
// block's place (rank r at r % X, r / X); a grid that does not number the ranks is refused.
TEST(Ranks, AGridGivesRanksTheirPlaceInIt) {
  const vela::rt::Options options = dumping_options(2, "grid");
  {
    vela::rt::Runtime runtime(options);
    vp::Options v;
    v.ranks = 6;
    v.grid = {3, 2, 1};
    vp::run(runtime, v, [] { vp::migrate(); });
  }
  const auto instance = vela::lb::read_instance(options.lb_dump + "/ranks-step1.json");
  ASSERT_EQ(instance.objects.size(), 6u);
  EXPECT_EQ(instance.dims, 2);
  for (const auto& o : instance.objects) {
    EXPECT_EQ(o.coords[0], static_cast<double>(o.id % 3)) << o.id;
    EXPECT_EQ(o.coords[1], static_cast<double>(o.id / 3)) << o.id;
  }
  std::filesystem::remove_all(options.lb_dump);

  vela::rt::Runtime runtime(options);
  vp::Options bad;
  bad.ranks = 6;
  bad.grid = {2, 2, 1};
  try {
    vp::run(runtime, bad, [] {});
    ADD_FAILURE() << "a 2x2 grid for 6 ranks was accepted";
  } catch (const vp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--vp-grid 2x2x1: 4 cells for 6 ranks"), std::string::npos)
        << e.what();
  }
}

// ---- Faults in rank code (fibers/faults.hpp) ----

namespace fault_tests {

// Recurses with a kilobyte frame at each level (not a tail call: the frame is used after it).
[[gnu::noinline]] int deep(int n) {
  volatile char pad[1024];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}

[[gnu::noinline]] void write_through(int* p) {
  *static_cast<volatile int*>(p) = 1;
}

void run_two_ranks(std::size_t stack_bytes, const std::function<void()>& body) {
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  vp::Options v;
  v.ranks = 2;
  v.stack_bytes = stack_bytes;
  vp::run(runtime, v, body);
}

}  // namespace fault_tests

// A rank that overflows its stack dies naming itself, its PE and process, its stack's size and
// the option that sets it. Sanitizer builds leave faults to the sanitizer's own report.
TEST(RanksDeathTest, AStackOverflowNamesTheRankAndItsStack) {
#if defined(VELA_SANITIZED_BUILD)
  GTEST_SKIP() << "sanitizer builds report faults themselves";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(fault_tests::run_two_ranks(16 * 1024,
                                          [] {
                                            if (vp::rank() == 1) fault_tests::deep(1000);
                                          }),
               "rank 1 on PE 1 \\(process 0\\): stack overflow in its 16384-byte stack \\(use "
               "--vp-stack\\)");
}

TEST(RanksDeathTest, ASegmentationFaultNamesTheRankAndTheAddress) {
#if defined(VELA_SANITIZED_BUILD)
  GTEST_SKIP() << "sanitizer builds report faults themselves";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(fault_tests::run_two_ranks(64 * 1024,
                                          [] {
                                            if (vp::rank() == 0) {
                                              fault_tests::write_through(
                                                  reinterpret_cast<int*>(std::uintptr_t{16}));
                                            }
                                          }),
               "rank 0 on PE 0 \\(process 0\\): segmentation fault at 0x10 while running ");
}
