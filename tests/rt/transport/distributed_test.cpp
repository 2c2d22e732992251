// The runtime across processes (mpirun -np K): every test runs in every process (main runs in
// process 0, which checks the results; the other processes run their PEs). Also passes in one
// process, where it checks the same properties without the transport.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/patches.hpp"
#include "vela/rt/buffer.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Callback;
using vela::rt::Context;
using vela::rt::InitialMap;
using vela::rt::ReduceOp;
using vela::rt::Shape;

// DISTRIBUTED_TEST_PES_PER_PROCESS and DISTRIBUTED_TEST_MPI_PROGRESS (set by the mpirun runs
// in tests/CMakeLists.txt) give the PE threads per process and who calls MPI.
vela::rt::Options options_with(const std::string& lb = "") {
  vela::rt::Options o;
  if (const char* t = std::getenv("DISTRIBUTED_TEST_PES_PER_PROCESS")) {
    o.pes_per_process = std::atoi(t);
  }
  if (const char* p = std::getenv("DISTRIBUTED_TEST_MPI_PROGRESS")) {
    o.mpi_progress =
        std::string(p) == "thread" ? vela::rt::MpiProgress::thread : vela::rt::MpiProgress::pe;
  }
  if (const char* f = std::getenv("DISTRIBUTED_TEST_LB_FAN_IN")) o.lb_fan_in = std::atoi(f);
  o.pin = false;
  o.lb = lb;
  return o;
}

// A token goes round a ring of elements placed round-robin (so every hop crosses PEs, and
// processes when there are several) `rounds` times; each element counts what it saw.
struct RingNode : vela::rt::ElementBase {
  RingNode() = default;
  RingNode(std::int32_t n, std::int32_t rounds, Callback done)
      : n_(n), rounds_(rounds), done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | n_ | rounds_ | done_ | seen_ | sum_; }

  void token(std::int32_t hop, std::vector<std::int64_t> payload) {
    ++seen_;
    for (std::int64_t v : payload) sum_ += v;
    if (hop + 1 == n_ * rounds_) {
      send<&RingNode::finish>(vela::rt::Index{0, 0, 0});
      return;
    }
    payload.push_back(hop);
    if (payload.size() > 8) payload.erase(payload.begin());
    send<&RingNode::token>(vela::rt::Index{(index().x + 1) % n_, 0, 0}, hop + 1,
                           std::move(payload));
  }
  void finish() {
    for (std::int32_t i = 0; i < n_; ++i) send<&RingNode::report>(vela::rt::Index{i, 0, 0});
  }
  void report() {
    contribute({static_cast<double>(seen_), static_cast<double>(sum_), static_cast<double>(pe())},
               ReduceOp::sum, done_);
  }

  std::int32_t n_ = 0, rounds_ = 0;
  Callback done_;
  std::int64_t seen_ = 0, sum_ = 0;
};

TEST(Distributed, ARingCrossesEveryProcessAndLosesNothing) {
  vela::rt::Runtime runtime(options_with());
  const int pes = runtime.pes();
  const std::int32_t n = 3 * pes, rounds = 20;
  std::vector<double> result;
  runtime.run([&](Context& ctx) {
    const Callback done = ctx.callback([&](const std::vector<double>& r) { result = r; });
    auto ring =
        ctx.create<RingNode>("ring", Shape::line(n), InitialMap::round_robin, n, rounds, done);
    ring[0].send<&RingNode::token>(0, std::vector<std::int64_t>{});
  });
  if (runtime.process() != 0) return;
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(result[0], static_cast<double>(n * rounds));  // every hop arrived once
  // The payload carries the last 8 hop numbers: its sum over the run is known.
  double expected = 0;
  for (std::int64_t hop = 0; hop < n * rounds; ++hop) {
    for (std::int64_t h = std::max<std::int64_t>(0, hop - 8); h < hop; ++h)
      expected += static_cast<double>(h);
  }
  EXPECT_EQ(result[1], expected);
  // Round-robin: element i on PE i % P, so the PEs' sum is known (every PE took part).
  double pe_sum = 0;
  for (std::int32_t i = 0; i < n; ++i) pe_sum += i % pes;
  EXPECT_EQ(result[2], pe_sum);
}

// Element 0 (PE 0) sends a burst of messages of four sizes to element 1 (the last PE): small,
// a few KiB, 200 KiB (copied through a shared-memory ring between processes of one machine)
// and 600 KiB (announced in the ring, its bytes sent by MPI from the sender's vector into the
// receiver's), and every fifth message an entry with two large vectors among other arguments
// (a std::vector and a vela::rt::Buffer, both sent where they lie, the rest through the ring); the
// burst overfills the ring, so messages also wait for room. Element 1 checks each one's number and
// bytes. All go at one priority: 0, or one beyond the headers' short form (their long form).
struct Burst : vela::rt::ElementBase {
  Burst() = default;
  Burst(std::int32_t count, std::int32_t priority, Callback done)
      : count_(count), priority_(priority), done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | count_ | priority_ | done_ | next_ | bad_; }

  static std::vector<std::byte> payload(std::int32_t k) {
    static constexpr std::array<std::size_t, 4> sizes{8, 3000, 200 << 10, 600 << 10};
    std::vector<std::byte> bytes(sizes[static_cast<std::size_t>(k) % sizes.size()]);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<std::byte>((static_cast<std::size_t>(k) * 31 + i) & 0xff);
    }
    return bytes;
  }
  static std::vector<double> doubles(std::int32_t k) {
    std::vector<double> values(40'000);  // 320 KB
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * static_cast<double>(i) + k;
    return values;
  }
  static vela::rt::Buffer<std::uint16_t> shorts(std::int32_t k) {
    vela::rt::Buffer<std::uint16_t> values(150'000);  // 300 KB, made without initializing it
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<std::uint16_t>(i * 7 + static_cast<std::size_t>(k));
    }
    return values;
  }
  void start() {
    for (std::int32_t k = 0; k < count_; ++k) {
      if (k % 5 == 4) {
        send_with_priority<&Burst::mixed>(vela::rt::Index{1, 0, 0}, priority_, k, doubles(k),
                                          "message " + std::to_string(k),
                                          std::vector<std::int32_t>{k, -k, 7}, shorts(k));
        continue;
      }
      send_with_priority<&Burst::take>(vela::rt::Index{1, 0, 0}, priority_, k, payload(k));
    }
    contribute({0.0, 0.0}, ReduceOp::sum, done_);
  }
  void take(std::int32_t number, std::vector<std::byte> bytes) {
    if (number != next_ || bytes != payload(number)) ++bad_;
    count_one();
  }
  void mixed(std::int32_t number, std::vector<double> big, std::string text,
             std::vector<std::int32_t> small, vela::rt::Buffer<std::uint16_t> wide) {
    if (number != next_ || big != doubles(number) || text != "message " + std::to_string(number) ||
        small != std::vector<std::int32_t>{number, -number, 7} || wide != shorts(number)) {
      ++bad_;
    }
    count_one();
  }
  void count_one() {
    if (++next_ == count_) {
      contribute({static_cast<double>(next_), static_cast<double>(bad_)}, ReduceOp::sum, done_);
    }
  }

  std::int32_t count_ = 0, priority_ = 0;
  Callback done_;
  std::int32_t next_ = 0, bad_ = 0;
};

TEST(Distributed, MessagesOfEverySizeArriveOnceAndInOrderWithAndWithoutSharedMemory) {
  for (const auto& [shm, priority] : {std::pair{true, 0}, std::pair{false, 0},
                                      std::pair{true, 1 << 20}, std::pair{false, -(1 << 20)}}) {
    vela::rt::Options o = options_with();
    o.mpi_shm = shm;
    vela::rt::Runtime runtime(o);
    const vela::rt::PeId last = runtime.pes() - 1;
    const std::int32_t count = 40;
    std::vector<double> result;
    runtime.run([&](Context& ctx) {
      const Callback done = ctx.callback([&](const std::vector<double>& r) { result = r; });
      auto pair = ctx.create<Burst>(
          "burst", Shape::line(2),
          [last](const vela::rt::Index& i, const Shape&, vela::rt::PeId) {
            return i.x == 0 ? 0 : last;
          },
          count, priority, done);
      pair[0].send<&Burst::start>();
    });
    if (runtime.process() != 0) continue;
    ASSERT_EQ(result.size(), 2u) << "shm " << shm << ", priority " << priority;
    EXPECT_EQ(result[0], count) << "shm " << shm << ", priority " << priority;  // all, once
    EXPECT_EQ(result[1], 0.0) << "shm " << shm << ", priority " << priority;    // in order, whole
  }
}

// Each element contributes 1/(i+1) (a sum whose bits depend on the order of additions).
struct Term : vela::rt::ElementBase {
  Term() = default;
  explicit Term(Callback done) : done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | done_; }
  void go() { contribute({1.0 / (static_cast<double>(index().x) + 1.0)}, ReduceOp::sum, done_); }
  Callback done_;
};

TEST(Distributed, DeterministicReductionsGiveOneProcesssBits) {
  vela::rt::Runtime runtime(options_with());
  const int n = 1000;
  double sum = 0;
  runtime.run([&](Context& ctx) {
    const Callback done = ctx.callback([&](const std::vector<double>& r) { sum = r.at(0); });
    ctx.create<Term>("terms", Shape::line(n), InitialMap::block, done).broadcast<&Term::go>();
  });
  if (runtime.process() != 0) return;
  double serial = 0;
  for (int i = 0; i < n; ++i) serial += 1.0 / (static_cast<double>(i) + 1.0);
  std::uint64_t a = 0, b = 0;
  std::memcpy(&a, &sum, sizeof a);
  std::memcpy(&b, &serial, sizeof b);
  EXPECT_EQ(a, b);
}

// Every step each element sends one message to three others (chosen from the step), then
// reaches a sync point where `rotate` moves every element to the next PE (across processes):
// messages in flight must follow their element; none is lost or doubled.
struct Mover : vela::rt::ElementBase {
  Mover() = default;
  Mover(std::int32_t n, std::int32_t steps, Callback done) : n_(n), steps_(steps), done_(done) {}
  void pup(vela::pup::Archive& ar) override {
    ar | n_ | steps_ | done_ | step_ | got_ | expected_ | checksum_ | early_ | synced_;
  }
  void start() { send_step(); }
  void send_step() {
    for (std::int32_t k = 1; k <= 3; ++k) {
      const std::int32_t to = (index().x + k * (step_ + 1)) % n_;
      send<&Mover::hello>(vela::rt::Index{to, 0, 0}, step_, index().x);
    }
  }
  void hello(std::int32_t step, std::int32_t from) {
    checksum_ += static_cast<std::uint64_t>(step) * 1000003u + static_cast<std::uint64_t>(from);
    if (step == step_) {
      ++got_;
    } else {
      ++early_[static_cast<std::size_t>(step - step_ - 1)];
    }
    maybe_sync();
  }
  // What element i receives at step s: from each j with (j + k(s+1)) % n == i.
  std::int32_t expected_at(std::int32_t s) const {
    std::int32_t c = 0;
    for (std::int32_t j = 0; j < n_; ++j)
      for (std::int32_t k = 1; k <= 3; ++k) {
        if ((j + k * (s + 1)) % n_ == index().x) ++c;
      }
    return c;
  }
  // Once per step: a hello of the next step can arrive after this element reached its sync
  // point but before its resume (another element resumed first).
  void maybe_sync() {
    if (!synced_ && got_ == expected_at(step_)) {
      synced_ = true;
      at_sync();
    }
  }
  void resume_from_sync() override {
    synced_ = false;
    ++step_;
    got_ = early_[0];
    early_[0] = early_[1];
    early_[1] = 0;
    if (step_ == steps_) {
      contribute({static_cast<double>(checksum_ % 1000000007u)}, ReduceOp::sum, done_);
      return;
    }
    send_step();
    maybe_sync();
  }

  std::int32_t n_ = 0, steps_ = 0;
  Callback done_;
  std::int32_t step_ = 0, got_ = 0, expected_ = 0;
  std::uint64_t checksum_ = 0;
  std::array<std::int32_t, 2> early_{};
  bool synced_ = false;
};

TEST(Distributed, MigrationAcrossProcessesEveryStepLosesNoMessage) {
  vela::rt::Runtime runtime(options_with("rotate"));
  const std::int32_t n = 4 * runtime.pes() + 1, steps = 8;
  double total = -1;
  runtime.run([&](Context& ctx) {
    const Callback done = ctx.callback([&](const std::vector<double>& r) { total = r.at(0); });
    ctx.create<Mover>("movers", Shape::line(n), InitialMap::block, n, steps, done)
        .broadcast<&Mover::start>();
  });
  if (runtime.process() != 0) return;
  double expected = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    std::uint64_t c = 0;
    for (std::int32_t s = 0; s < steps; ++s)
      for (std::int32_t j = 0; j < n; ++j)
        for (std::int32_t k = 1; k <= 3; ++k) {
          if ((j + k * (s + 1)) % n == i) {
            c += static_cast<std::uint64_t>(s) * 1000003u + static_cast<std::uint64_t>(j);
          }
        }
    expected += static_cast<double>(c % 1000000007u);
  }
  EXPECT_EQ(total, expected);
  if (runtime.pes() > 1) {
    EXPECT_GE(runtime.stats().migrations, static_cast<std::uint64_t>(n));
  }
}

// The distributed strategies across processes: the agents' messages cross the transport, and
// every step's placement is what the offline strategy makes of the step's instance.
TEST(Distributed, DistributedStrategiesGiveTheOfflineAnswerAcrossProcesses) {
  // --lb-dump must be the same in every process: named after the job, not the process.
  const char* job = std::getenv("PMIX_NAMESPACE");
  for (const std::string strategy : {"hilbert-distributed", "diffusion"}) {
    vela::rt::Options o = options_with(strategy);
    o.lb_dump = ::testing::TempDir() + "vela_distributed_" + strategy + "_" +
                (job != nullptr ? std::string(job) : std::to_string(::getpid()));
    vela::rt::Runtime runtime(o);
    const auto placements = vela::testing::run_patches(runtime, 8, 5, 3);
    if (runtime.process() != 0) continue;
    ASSERT_EQ(placements.size(), 3u) << strategy;
    const std::size_t moved =
        vela::testing::expect_offline_placements(o.lb_dump, strategy, {}, placements);
    if (runtime.pes() > 1) {
      EXPECT_GT(moved, 0u) << strategy;
    }
    EXPECT_EQ(runtime.stats().lb_steps, 3u) << strategy;
    std::filesystem::remove_all(o.lb_dump);
  }
}

struct Thrower : vela::rt::ElementBase {
  void pup(vela::pup::Archive&) override {}
  void go() {
    if (index().x == static_cast<std::int32_t>(pes()) - 1) {
      throw std::runtime_error("element " + std::to_string(index().x) + " failed on PE " +
                               std::to_string(pe()));
    }
  }
};

TEST(Distributed, AnErrorInAnyProcessEndsTheRunEverywhere) {
  vela::rt::Runtime runtime(options_with());
  const int pes = runtime.pes();
  std::string what;
  try {
    runtime.run([&](Context& ctx) {
      ctx.create<Thrower>("throwers", Shape::line(pes), InitialMap::round_robin)
          .broadcast<&Thrower::go>();
    });
  } catch (const std::exception& e) {
    what = e.what();
  }
  // Every process learns of it; the message names the element, and the process it came from
  // when that is another one.
  const std::string expected =
      "element " + std::to_string(pes - 1) + " failed on PE " + std::to_string(pes - 1);
  EXPECT_NE(what.find(expected), std::string::npos) << what;
}

struct Idle : vela::rt::ElementBase {
  void pup(vela::pup::Archive&) override {}
  void go() {}
};

TEST(Distributed, ExitInMainStopsEveryProcessWithItsCode) {
  vela::rt::Runtime runtime(options_with());
  const int code = runtime.run([&](Context& ctx) {
    ctx.create<Idle>("idle", Shape::line(runtime.pes() * 2), InitialMap::block)
        .broadcast<&Idle::go>();
    ctx.exit(7);
  });
  EXPECT_EQ(code, 7);
}

TEST(Distributed, PesThatDisagreeWithTheProcessesAreRejected) {
  vela::rt::Runtime probe(options_with());
  if (probe.processes() == 1) GTEST_SKIP() << "needs mpirun";
  vela::rt::Options o = options_with();
  o.pes = probe.pes() + 1;
  try {
    vela::rt::Runtime runtime(o);
    ADD_FAILURE() << "accepted --pes " << o.pes;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--pes " + std::to_string(o.pes)), std::string::npos)
        << e.what();
  }
}

TEST(Distributed, ProcessesGivenDifferentOptionsAllStopWithAnError) {
  vela::rt::Runtime probe(options_with());
  if (probe.processes() == 1) GTEST_SKIP() << "needs mpirun";
  // Only the last process balances: every process must refuse to start, none may wait.
  vela::rt::Options o = options_with(probe.process() == probe.processes() - 1 ? "greedy" : "");
  try {
    vela::rt::Runtime runtime(o);
    ADD_FAILURE() << "process " << probe.process() << " accepted different options";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different runtime options"), std::string::npos)
        << e.what();
  }
}

}  // namespace
