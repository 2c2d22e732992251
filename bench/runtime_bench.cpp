// Runtime micro-benchmarks, one closing table per question, each Vela figure printed beside its
// hardware floor measured in the same run:
//   1. one-way latency and bandwidth between two PEs by message size, shaped like Charm++'s
//      pingpong (a buffer bounced N times between element 0 on PE 0 and element 1 on PE 1;
//      one-way time = time / 2N); floor: two bare threads handing a flag to each other on one
//      cache line (one copy of the buffer per hop), beside the old mutex + condition variable
//      pair; target for 8 bytes <= 0.30 us and <= 2x the flag; the 8-byte run again per idle
//      mode (adaptive, spin, park);
//   2. messages per second into one PE from another; floor: a bounded single-producer
//      single-consumer ring of ints; targets >= 5 M/s instrumented, >= 10 M/s not;
//   3. the cost of one local entry-method invocation (target <= 40 ns with on-wall
//      instrumentation, the default, the same with 10^3 and 10^6 elements in the collection),
//      instrumentation on (CPU or wall time) and off; floor: a call through a function pointer;
//   4. migration cost per object and MB/s: balancing with `rotate` against `dummy` at the same
//      sync point, so the difference is the migration; floor: a plain memcpy into fresh memory,
//      target >= 0.80 of its bandwidth at 1 MiB;
//   5. instrumentation overhead on ~10 us and ~1 us entries (target <= 2% on-wall, the default,
//      which records the communication graph too).
// Each run times its message pattern from inside (std::chrono at its first and last event) and
// reports that as the benchmark's manual time. Every iteration runs the subject and its baseline
// back to back, so the ratios compare runs made moments apart on a noisy machine. The closing
// tables show the best of the iterations (other tenants' noise only ever adds time), and for
// instrumentation also the median of the per-iteration ratios. PE threads are not pinned.
// Idle machine: `bash scripts/bench.sh runtime_bench`; busy machine: `bench/runtime_busy.sh`.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "vela/rt/runtime.hpp"

#include "support/count_allocations.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using vela::rt::Index;
using vela::rt::InitialMap;
using vela::rt::Shape;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// CPU seconds of this thread or process: unlike wall time, not stretched when other tenants of
// the machine take the cores.
double cpu_seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Where a pattern's elements note when its timed part began and ended. Elements carry its
// address as an integer (the whole run is one process).
struct Stopwatch {
  Clock::time_point begin, end;
  std::atomic<std::int64_t> pending{0};  // for patterns that end when this reaches zero
  std::uint64_t allocations = 0;         // on the timing PE's thread, from begin to end
  double cpu = 0;                        // CPU seconds of that thread, from begin to end
  double seconds() const { return ::seconds(end - begin); }
};

std::uintptr_t address(Stopwatch& watch) {
  return reinterpret_cast<std::uintptr_t>(&watch);
}
Stopwatch& stopwatch(std::uintptr_t address) {
  return *reinterpret_cast<Stopwatch*>(address);
}

// The runtime's defaults (instrumented, entries timed by wall time, adaptive idling) unless told.
vela::rt::Options options(int pes, bool instrument = true, bool measure_cpu = false) {
  vela::rt::Options o;
  o.pes = pes;
  o.pin = false;
  o.instrument = instrument;
  o.measure_cpu = measure_cpu;
  return o;
}

// One step of a busy wait: a pause instruction, which keeps the spinning core from flooding the
// memory system and lets its hyperthread sibling run.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

// A busy wait for the floors: pauses, and only after a few thousand of them (tens to hundreds
// of microseconds, far longer than any hop on an idle machine) yields the core between polls,
// so that on a machine with more spinning threads than cores the other side gets to run.
class Backoff {
 public:
  void operator()() {
    if (spins_ < 4096) {
      ++spins_;
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }

 private:
  int spins_ = 0;
};

// Samples of each variant of each row, for the closing tables: benchmark -> argument -> variant.
using Row = std::map<std::string, std::vector<double>>;
std::map<std::string, std::map<std::int64_t, Row>> results;

double best(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN()
                   : *std::min_element(v.begin(), v.end());
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// ---- 1. Pingpong ---------------------------------------------------------------------------

class Pinger : public vela::rt::ElementBase {
 public:
  Pinger() = default;
  Pinger(std::uintptr_t watch, std::int32_t warmup, std::int32_t rounds)
      : watch_(watch), warmup_(warmup), rounds_(rounds) {}
  void pup(vela::pup::Archive& ar) override { ar | watch_ | warmup_ | rounds_ | returned_; }

  void serve(std::int64_t bytes) {
    send<&Pinger::ball>(Index{1, 0, 0}, std::vector<std::byte>(static_cast<std::size_t>(bytes)));
  }
  void ball(std::vector<std::byte> payload) {
    if (index().x == 1) {
      send<&Pinger::ball>(Index{0, 0, 0}, std::move(payload));
      return;
    }
    ++returned_;
    if (returned_ == warmup_) stopwatch(watch_).begin = Clock::now();
    if (returned_ == warmup_ + rounds_) {
      stopwatch(watch_).end = Clock::now();
      return;
    }
    send<&Pinger::ball>(Index{1, 0, 0}, std::move(payload));
  }

 private:
  std::uintptr_t watch_ = 0;
  std::int32_t warmup_ = 0, rounds_ = 0, returned_ = 0;
};

double vela_pingpong(std::int64_t bytes, std::int32_t warmup, std::int32_t rounds,
                     vela::rt::IdleMode idle = vela::rt::IdleMode::adaptive) {
  Stopwatch watch;
  vela::rt::Options o = options(2);
  o.idle = idle;
  vela::rt::Runtime runtime(o);
  runtime.run([&](vela::rt::Context& ctx) {
    auto pair = ctx.create<Pinger>("pingpong", Shape::line(2), InitialMap::round_robin,
                                   address(watch), warmup, rounds);
    pair[0].send<&Pinger::serve>(bytes);
  });
  return watch.seconds();
}

// A one-message slot a thread sleeps on: mutex and condition variable, as the PEs use.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::byte> payload;
  bool full = false;

  void put(std::vector<std::byte> p) {
    std::lock_guard lock(mutex);
    payload = std::move(p);
    full = true;
    wake.notify_one();
  }
  std::vector<std::byte> take() {
    std::unique_lock lock(mutex);
    wake.wait(lock, [&] { return full; });
    full = false;
    return std::move(payload);
  }
};

// A floor of the old kind under the runtime's pingpong: two bare threads bouncing the buffer
// through mailboxes (mutex and condition variable), copying it once per hop.
double mutex_pingpong(std::int64_t bytes, std::int32_t warmup, std::int32_t rounds) {
  Mailbox to_main, to_echo;
  std::thread echo([&] {
    for (std::int32_t i = 0; i < warmup + rounds; ++i) {
      const std::vector<std::byte> got = to_echo.take();
      to_main.put(std::vector<std::byte>(got));
    }
  });
  std::vector<std::byte> ball(static_cast<std::size_t>(bytes));
  Clock::time_point begin;
  for (std::int32_t i = 0; i < warmup + rounds; ++i) {
    if (i == warmup) begin = Clock::now();
    to_echo.put(std::vector<std::byte>(ball));
    ball = to_main.take();
  }
  const Clock::time_point end = Clock::now();
  echo.join();
  return seconds(end - begin);
}

// The hardware floor under the runtime's pingpong: two bare threads handing a flag to each other
// on one cache line, each spinning until it says that it is its turn. Above 8 bytes, the thread
// whose turn it is first copies the buffer the other one last wrote into its own, so that every
// hop also moves the payload between the cores once.
double flag_pingpong(std::int64_t bytes, std::int32_t warmup, std::int32_t rounds) {
  struct alignas(64) Turn {
    std::atomic<int> whose{0};  // 0: the main thread's, 1: the echo thread's
  };
  Turn turn;
  const auto n = static_cast<std::size_t>(bytes);
  const bool copy = bytes > 8;
  std::vector<std::byte> main_buffer(n, std::byte{1}), echo_buffer(n, std::byte{2});
  const auto wait_for = [&](int me) {
    Backoff backoff;
    while (turn.whose.load(std::memory_order_acquire) != me) backoff();
  };
  std::thread echo([&] {
    for (std::int32_t i = 0; i < warmup + rounds; ++i) {
      wait_for(1);
      if (copy) std::memcpy(echo_buffer.data(), main_buffer.data(), n);
      turn.whose.store(0, std::memory_order_release);
    }
  });
  Clock::time_point begin;
  for (std::int32_t i = 0; i < warmup + rounds; ++i) {
    if (i == warmup) begin = Clock::now();
    turn.whose.store(1, std::memory_order_release);
    wait_for(0);
    if (copy) std::memcpy(main_buffer.data(), echo_buffer.data(), n);
  }
  const Clock::time_point end = Clock::now();
  echo.join();
  benchmark::DoNotOptimize(main_buffer.data());
  return seconds(end - begin);
}

constexpr std::array<std::pair<const char*, vela::rt::IdleMode>, 3> idle_modes = {{
    {"adaptive", vela::rt::IdleMode::adaptive},
    {"spin", vela::rt::IdleMode::spin},
    {"park", vela::rt::IdleMode::park},
}};

std::int32_t pingpong_rounds(std::int64_t bytes) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>((16 << 20) / bytes, 32, 2000));
}

void BM_PingPong(benchmark::State& state) {
  const std::int64_t bytes = state.range(0);
  const std::int32_t rounds = pingpong_rounds(bytes), warmup = std::max(4, rounds / 8);
  Row& row = results["pingpong"][bytes];
  const auto one_way = [&](double total) { return total / (2.0 * rounds); };
  for (auto _ : state) {
    const double vela = vela_pingpong(bytes, warmup, rounds);
    row["vela"].push_back(one_way(vela));
    row["flag"].push_back(one_way(flag_pingpong(bytes, warmup, rounds)));
    row["mutex"].push_back(one_way(mutex_pingpong(bytes, warmup, rounds)));
    if (bytes == 8) {  // the latency target's size, in every idle mode (adaptive: the default)
      for (const auto& [name, idle] : idle_modes) {
        row[std::string("idle ") + name].push_back(
            idle == vela::rt::IdleMode::adaptive
                ? one_way(vela)
                : one_way(vela_pingpong(bytes, warmup, rounds, idle)));
      }
    }
    state.SetIterationTime(vela);
  }
  const double vela = best(row["vela"]);
  state.counters["us_per_msg"] = vela * 1e6;
  state.counters["MB_per_s"] = static_cast<double>(bytes) / vela / 1e6;
  state.counters["x_flag"] = vela / best(row["flag"]);
}
BENCHMARK(BM_PingPong)
    ->ArgName("bytes")
    ->RangeMultiplier(4)
    ->Range(8, 512 << 10)
    ->Arg(1 << 20)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// ---- 2. Messages per second into one PE ----------------------------------------------------

class Sink : public vela::rt::ElementBase {
 public:
  Sink() = default;
  Sink(std::uintptr_t watch, std::int32_t count) : watch_(watch), count_(count) {}
  void pup(vela::pup::Archive& ar) override { ar | watch_ | count_ | taken_; }

  void flood() {
    stopwatch(watch_).begin = Clock::now();
    for (std::int32_t k = 0; k < count_; ++k) send<&Sink::take>(Index{0, 0, 0}, k);
  }
  void take(std::int32_t) {
    if (++taken_ == count_) stopwatch(watch_).end = Clock::now();
  }

 private:
  std::uintptr_t watch_ = 0;
  std::int32_t count_ = 0, taken_ = 0;
};

double vela_flood(std::int32_t count, bool instrument) {
  Stopwatch watch;
  vela::rt::Runtime runtime(options(2, instrument));
  runtime.run([&](vela::rt::Context& ctx) {
    auto sinks =
        ctx.create<Sink>("flood", Shape::line(2), InitialMap::round_robin, address(watch), count);
    sinks[1].send<&Sink::flood>();
  });
  return watch.seconds();
}

// A floor of the old kind: one thread posts heap-allocated messages to another's locked inbox,
// waking it only when it sleeps, and the other drains the inbox by swapping it.
double mutex_flood(std::int32_t count) {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::unique_ptr<std::int32_t>> inbox;
  bool waiting = false;
  Clock::time_point end;
  std::thread receiver([&] {
    std::vector<std::unique_ptr<std::int32_t>> arrived;
    std::int64_t taken = 0;
    while (taken < count) {
      {
        std::unique_lock lock(mutex);
        waiting = true;
        wake.wait(lock, [&] { return !inbox.empty(); });
        waiting = false;
        arrived.swap(inbox);
      }
      for (const auto& m : arrived) taken += *m >= 0;
      arrived.clear();
    }
    end = Clock::now();
  });
  const Clock::time_point begin = Clock::now();
  for (std::int32_t k = 0; k < count; ++k) {
    auto m = std::make_unique<std::int32_t>(k);
    std::lock_guard lock(mutex);
    inbox.push_back(std::move(m));
    if (waiting) wake.notify_one();
  }
  receiver.join();
  return seconds(end - begin);
}

// The hardware floor: a bounded single-producer single-consumer ring of ints between two bare
// threads; the producer spins while it is full, the consumer while it is empty. Each side keeps
// its own index on a cache line of its own and reads the other's only when its cached copy says
// it must wait.
double ring_flood(std::int32_t count) {
  constexpr std::uint32_t capacity = 1024;  // a power of two: slot = index & (capacity - 1)
  struct alignas(64) Position {
    std::atomic<std::uint32_t> value{0};
  };
  Position head, tail;  // next to take (the consumer's), next to fill (the producer's)
  std::array<std::int32_t, capacity> slots{};
  Clock::time_point end;
  std::int64_t sum = 0;
  std::thread consumer([&] {
    std::uint32_t taken = 0, filled = 0;
    for (std::int32_t k = 0; k < count; ++k) {
      if (taken == filled) {
        Backoff backoff;
        while ((filled = tail.value.load(std::memory_order_acquire)) == taken) backoff();
      }
      sum += slots[taken & (capacity - 1)];
      head.value.store(++taken, std::memory_order_release);
    }
    end = Clock::now();
  });
  const Clock::time_point begin = Clock::now();
  std::uint32_t filled = 0, taken = 0;
  for (std::int32_t k = 0; k < count; ++k) {
    if (filled - taken == capacity) {
      Backoff backoff;
      while (filled - (taken = head.value.load(std::memory_order_acquire)) == capacity) backoff();
    }
    slots[filled & (capacity - 1)] = k;
    tail.value.store(++filled, std::memory_order_release);
  }
  consumer.join();
  benchmark::DoNotOptimize(sum);
  return seconds(end - begin);
}

void BM_Flood(benchmark::State& state) {
  const auto count = static_cast<std::int32_t>(state.range(0));
  Row& row = results["flood"][count];
  for (auto _ : state) {
    const double vela = vela_flood(count, true);
    row["vela"].push_back(vela);
    row["vela off"].push_back(vela_flood(count, false));
    row["ring"].push_back(ring_flood(count));
    row["mutex"].push_back(mutex_flood(count));
    state.SetIterationTime(vela);
  }
  state.counters["msgs_per_s"] = count / best(row["vela"]);
  state.counters["x_ring"] = best(row["vela"]) / best(row["ring"]);
}
BENCHMARK(BM_Flood)
    ->ArgName("messages")
    ->Arg(200'000)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// ---- 3. Local entry methods ----------------------------------------------------------------

// What a run measures and how: full instrumentation (CPU or wall time per entry), or none.
struct Mode {
  const char* name;
  bool instrument;
  bool measure_cpu;
};
constexpr std::array<Mode, 3> modes = {
    {{"on-cpu", true, true}, {"on-wall", true, false}, {"off", false, true}}};

class Chain : public vela::rt::ElementBase {
 public:
  Chain() = default;
  Chain(std::uintptr_t watch, std::int32_t count) : watch_(watch), count_(count) {}
  void pup(vela::pup::Archive& ar) override { ar | watch_ | count_ | taken_; }

  // Each invocation sends the next to itself.
  void chain() {
    begin();
    send<&Chain::link>(index(), count_ - 1);
  }
  void link(std::int32_t left) {
    if (left > 0) {
      send<&Chain::link>(index(), left - 1);
      return;
    }
    finish();
  }
  // One invocation sends them all to a neighbour on the same PE.
  void burst() {
    begin();
    for (std::int32_t k = 0; k < count_; ++k) send<&Chain::take>(Index{1, 0, 0}, k);
  }
  void take(std::int32_t) {
    if (++taken_ == count_) finish();
  }

 private:
  void begin() {
    Stopwatch& w = stopwatch(watch_);
    w.allocations = vela::testing::allocations();
    w.cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    w.begin = Clock::now();
  }
  void finish() {
    Stopwatch& w = stopwatch(watch_);
    w.end = Clock::now();
    w.cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - w.cpu;
    w.allocations = vela::testing::allocations() - w.allocations;
  }

  std::uintptr_t watch_ = 0;
  std::int32_t count_ = 0, taken_ = 0;
};

enum Pattern : std::int64_t { to_itself, to_neighbour };  // chain() or burst()

const char* pattern_name(Pattern pattern) {
  return pattern == to_itself ? "chain" : "burst";
}

// The floor under a local entry: a call through a function pointer the compiler cannot see
// through (it is read from a volatile variable), to a function it may not inline.
std::uint64_t calls_counted = 0;
[[gnu::noinline]] void count_call() {
  ++calls_counted;
}

double call_seconds() {
  constexpr std::int32_t calls = 10'000'000;
  void (*volatile target)() = &count_call;
  const Clock::time_point begin = Clock::now();
  for (std::int32_t i = 0; i < calls; ++i) target();
  const Clock::time_point end = Clock::now();
  benchmark::DoNotOptimize(calls_counted);
  return seconds(end - begin) / calls;
}

void BM_LocalEntry(benchmark::State& state) {
  const auto pattern = static_cast<Pattern>(state.range(0));
  const auto elements = static_cast<std::int32_t>(state.range(1));
  constexpr std::int32_t count = 300'000;
  Row& row = results[std::string("local ") + pattern_name(pattern)][elements];
  std::size_t turn = 0;
  for (auto _ : state) {
    row["call"].push_back(call_seconds());
    for (std::size_t m = 0; m < modes.size(); ++m) {  // a different mode first each time
      const Mode& mode = modes[(turn + m) % modes.size()];
      Stopwatch watch;
      vela::rt::Runtime runtime(options(1, mode.instrument, mode.measure_cpu));
      runtime.run([&](vela::rt::Context& ctx) {
        // Only the pattern is timed (from inside), not creating the elements.
        auto chains = ctx.create<Chain>("local", Shape::line(elements), InitialMap::block,
                                        address(watch), count);
        if (pattern == to_itself) chains[0].send<&Chain::chain>();
        if (pattern == to_neighbour) chains[0].send<&Chain::burst>();
      });
      row[mode.name].push_back(watch.seconds() / count);
      row[std::string("cpu time ") + mode.name].push_back(watch.cpu / count);
      row[std::string("allocations ") + mode.name].push_back(
          static_cast<double>(watch.allocations) / count);
      if (mode.instrument && !mode.measure_cpu) state.SetIterationTime(watch.seconds());
    }
    ++turn;
  }
  for (const Mode& mode : modes) {
    state.counters[std::string("ns_") + mode.name] = best(row[mode.name]) * 1e9;
  }
  state.counters["ns_call"] = best(row["call"]) * 1e9;
}
// Chain among 2, 10^3 and 10^6 elements on one PE (the same element is hit, while the runtime's
// element tables grow), and burst between 2.
BENCHMARK(BM_LocalEntry)
    ->ArgNames({"to_neighbour", "elements"})
    ->Args({to_itself, 2})
    ->Args({to_neighbour, 2})
    ->Args({to_itself, 1'000})
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LocalEntry)  // creating 10^6 elements takes a while, so fewer iterations
    ->ArgNames({"to_neighbour", "elements"})
    ->Args({to_itself, 1'000'000})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

// ---- 4. Migration --------------------------------------------------------------------------

class Holder : public vela::rt::ElementBase {
 public:
  Holder() = default;
  Holder(std::int64_t bytes, vela::rt::Callback ready, vela::rt::Callback done)
      : data_(static_cast<std::size_t>(bytes) / sizeof(double)), ready_(ready), done_(done) {
    for (std::size_t i = 0; i < data_.size(); ++i) data_[i] = expected(i);
  }
  void pup(vela::pup::Archive& ar) override { ar | data_ | ready_ | done_; }

  void start() { contribute({1.0}, vela::rt::ReduceOp::sum, ready_); }
  void sync() { at_sync(); }
  // Counts the elements whose state arrived whole (first and last values).
  void resume_from_sync() override {
    const bool intact = !data_.empty() && data_.front() == expected(0) &&
                        data_.back() == expected(data_.size() - 1);
    contribute({intact ? 1.0 : 0.0}, vela::rt::ReduceOp::sum, done_);
  }

 private:
  double expected(std::size_t i) const {
    return static_cast<double>(linear_index()) * 1e6 + static_cast<double>(i);
  }

  std::vector<double> data_;
  vela::rt::Callback ready_, done_;
};

struct MigrationRun {
  double seconds = 0;  // from every element ready to every element resumed
  double intact = 0;   // elements whose state arrived whole
  vela::rt::RunStats stats;
};

MigrationRun migration(const std::string& strategy, std::int64_t bytes, std::int32_t elements) {
  MigrationRun out;
  Stopwatch watch;
  vela::rt::Options o = options(2);
  o.lb = strategy;
  vela::rt::Runtime runtime(o);
  vela::rt::Proxy<Holder> holders;
  runtime.run([&](vela::rt::Context& ctx) {
    auto ready = ctx.callback([&](const std::vector<double>&) {
      watch.begin = Clock::now();
      holders.broadcast<&Holder::sync>();
    });
    auto done = ctx.callback([&](const std::vector<double>& intact) {
      watch.end = Clock::now();
      out.intact = intact.at(0);
    });
    holders =
        ctx.create<Holder>("holders", Shape::line(elements), InitialMap::block, bytes, ready, done);
    holders.broadcast<&Holder::start>();
  });
  out.seconds = watch.seconds();
  out.stats = runtime.stats();
  return out;
}

// The floor of moving the elements' state: a plain memcpy of each into freshly allocated (not
// value-initialized) memory, the allocation included.
double copy_floor(std::int64_t bytes, std::int32_t elements) {
  const auto n = static_cast<std::size_t>(bytes);
  std::vector<std::unique_ptr<std::byte[]>> from(static_cast<std::size_t>(elements)),
      to(static_cast<std::size_t>(elements));
  for (auto& f : from) {
    f = std::unique_ptr<std::byte[]>(new std::byte[n]);
    std::memset(f.get(), 1, n);
  }
  const Clock::time_point begin = Clock::now();
  for (std::size_t i = 0; i < from.size(); ++i) {
    to[i] = std::unique_ptr<std::byte[]>(new std::byte[n]);
    std::memcpy(to[i].get(), from[i].get(), n);
  }
  const Clock::time_point end = Clock::now();
  for (const auto& t : to) benchmark::DoNotOptimize(t.get());
  return seconds(end - begin);
}

std::int32_t holders_for(std::int64_t bytes) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>((64 << 20) / bytes, 64, 2048));
}

void BM_Migration(benchmark::State& state) {
  const std::int64_t bytes = state.range(0);
  const std::int32_t elements = holders_for(bytes);
  Row& row = results["migration"][bytes];
  for (auto _ : state) {
    const MigrationRun moved = migration("rotate", bytes, elements);
    const MigrationRun stayed = migration("dummy", bytes, elements);
    if (moved.intact != elements || stayed.intact != elements) {
      state.SkipWithError("an element's state did not survive the balancing step");
      return;
    }
    row["rotate"].push_back(moved.seconds);
    row["dummy"].push_back(stayed.seconds);
    row["migrations"].push_back(static_cast<double>(moved.stats.migrations));
    row["migrated bytes"].push_back(static_cast<double>(moved.stats.migrated_bytes));
    row["strategy rotate"].push_back(moved.stats.lb_seconds);
    row["copy"].push_back(copy_floor(bytes, elements));
    state.SetIterationTime(std::max(0.0, moved.seconds - stayed.seconds));
  }
  const double migrating = best(row["rotate"]) - best(row["dummy"]);
  state.counters["us_per_object"] = migrating / median(row["migrations"]) * 1e6;
  state.counters["MB_per_s"] = median(row["migrated bytes"]) / migrating / 1e6;
}
BENCHMARK(BM_Migration)
    ->ArgName("bytes")
    ->Arg(1 << 10)
    ->Arg(64 << 10)
    ->Arg(1 << 20)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// ---- 5. Instrumentation overhead -----------------------------------------------------------

// Dependent multiply-adds and a division: real arithmetic that cannot be vectorized or dropped.
double arithmetic(std::int64_t iterations, double x) {
  for (std::int64_t i = 0; i < iterations; ++i) x = x * 0.999 + 1.0 / (2.0 + x);
  return x;
}

// Iterations of arithmetic() per microsecond on this machine, the best of a few tries.
double iterations_per_us() {
  static const double rate = [] {
    double best = 1e300;
    for (int t = 0; t < 5; ++t) {
      const Clock::time_point begin = Clock::now();
      benchmark::DoNotOptimize(arithmetic(1'000'000, 0.5));
      best = std::min(best, seconds(Clock::now() - begin));
    }
    return 1.0 / best;  // 10^6 iterations per `best` seconds
  }();
  return rate;
}

// A token passed round a ring, doing `work` iterations of arithmetic at each element.
class Relay : public vela::rt::ElementBase {
 public:
  Relay() = default;
  Relay(std::uintptr_t watch, std::int64_t work) : watch_(watch), work_(work) {}
  void pup(vela::pup::Archive& ar) override { ar | watch_ | work_ | value_; }

  void token(std::int32_t hops) {
    value_ = arithmetic(work_, value_);
    if (hops > 0) {
      send<&Relay::token>(Index{(index().x + 1) % shape().nx, 0, 0}, hops - 1);
      return;
    }
    Stopwatch& w = stopwatch(watch_);
    if (w.pending.fetch_sub(1) == 1) w.end = Clock::now();
  }

 private:
  std::uintptr_t watch_ = 0;
  std::int64_t work_ = 0;
  double value_ = 0.5;
};

constexpr std::int32_t relays = 32;  // and as many tokens, so that both PEs stay busy

// Hops per token for about `busy_seconds` of entries on two PEs.
std::int32_t hops_for(double grain_us, double busy_seconds) {
  return static_cast<std::int32_t>(busy_seconds * 2.0 / (grain_us * 1e-6) / relays);
}

void BM_Instrumentation(benchmark::State& state) {
  const auto grain_us = static_cast<double>(state.range(0));
  const auto work = static_cast<std::int64_t>(grain_us * iterations_per_us());
  const std::int32_t hops = hops_for(grain_us, grain_us >= 10 ? 0.25 : 0.12);
  Row& row = results["instrumentation"][state.range(0)];
  row["entries"] = {static_cast<double>(relays) * (hops + 1)};
  std::size_t turn = 0;
  for (auto _ : state) {
    std::map<std::string, double> now;
    for (std::size_t m = 0; m < modes.size(); ++m) {
      const Mode& mode = modes[(turn + m) % modes.size()];
      Stopwatch watch;
      watch.pending = relays;
      vela::rt::Runtime runtime(options(2, mode.instrument, mode.measure_cpu));
      const double cpu_from = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
      runtime.run([&](vela::rt::Context& ctx) {
        auto ring =
            ctx.create<Relay>("ring", Shape::line(relays), InitialMap::block, address(watch), work);
        watch.begin = Clock::now();
        ring.broadcast<&Relay::token>(hops);
      });
      const double cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_from;
      row[mode.name].push_back(watch.seconds());
      row[std::string("cpu time ") + mode.name].push_back(cpu);
      now[mode.name] = watch.seconds();
      now[std::string("cpu time ") + mode.name] = cpu;
      if (mode.instrument && !mode.measure_cpu) state.SetIterationTime(watch.seconds());
    }
    for (const std::string measure : {"", "cpu time "}) {
      for (const std::string on : {"on-cpu", "on-wall"}) {
        row[measure + on + "/off"].push_back(now[measure + on] / now[measure + "off"]);
      }
    }
    ++turn;
  }
  state.counters["x_on-cpu"] = median(row["on-cpu/off"]);
  state.counters["x_on-wall"] = median(row["on-wall/off"]);
}
BENCHMARK(BM_Instrumentation)
    ->ArgName("grain_us")
    ->Arg(10)
    ->Arg(1)
    ->UseManualTime()
    ->Iterations(15)
    ->Unit(benchmark::kMillisecond);

// ---- Closing tables ------------------------------------------------------------------------

// Nanoseconds per call of a clock, the best of a few loops: what instrumentation reads per entry.
template <class Read>
double clock_cost_ns(Read read) {
  constexpr int calls = 200'000;
  double best = 1e300;
  for (int t = 0; t < 3; ++t) {
    const Clock::time_point begin = Clock::now();
    for (int i = 0; i < calls; ++i) read();
    best = std::min(best, seconds(Clock::now() - begin));
  }
  return best / calls * 1e9;
}

const char* verdict(bool met) {
  return met ? "met" : "NOT met";
}

void print_pingpong() {
  const auto& rows = results["pingpong"];
  if (rows.empty()) return;
  fmt::print(
      "\n1. One-way time between two PEs (pingpong: element 0 on PE 0, element 1 on PE 1). "
      "Floors: flag, two bare threads spinning on one cache line; mutex+cv, two bare threads "
      "with mutex + condition variable; both copy the buffer once per hop (flag: above 8 bytes)\n"
      "{:>9} {:>7} {:>9} {:>10} {:>10} {:>9} {:>10} {:>10} {:>13} {:>28}\n",
      "bytes", "rounds", "vela us", "vela MB/s", "median us", "flag us", "vela/flag", "mutex+cv us",
      "vela/mutex+cv", "<= 0.30 us and <= 2x flag");
  for (const auto& [bytes, row] : rows) {
    const double vela = best(row.at("vela")), flag = best(row.at("flag")),
                 mutex = best(row.at("mutex"));
    const char* target = bytes == 8 ? verdict(vela <= 0.30e-6 && vela <= 2.0 * flag) : "-";
    fmt::print(
        "{:>9} {:>7} {:>9.3f} {:>10.1f} {:>10.3f} {:>9.3f} {:>10.2f} {:>10.3f} {:>13.2f} {:>28}\n",
        bytes, pingpong_rounds(bytes), vela * 1e6, static_cast<double>(bytes) / vela / 1e6,
        median(row.at("vela")) * 1e6, flag * 1e6, vela / flag, mutex * 1e6, vela / mutex, target);
  }
  const auto eight = rows.find(8);
  if (eight == rows.end() || !eight->second.contains("idle spin")) return;
  const Row& row = eight->second;
  const double flag = best(row.at("flag"));
  fmt::print(
      "\n1b. 8-byte pingpong by idle mode (--idle; adaptive: the default, spin_us = {})\n"
      "{:>9} {:>9} {:>10}\n",
      vela::rt::Options{}.spin_us, "idle", "vela us", "vela/flag");
  for (const auto& [name, idle] : idle_modes) {
    const double vela = best(row.at(std::string("idle ") + name));
    fmt::print("{:>9} {:>9.3f} {:>10.2f}\n", name, vela * 1e6, vela / flag);
  }
}

void print_flood() {
  const auto& rows = results["flood"];
  if (rows.empty()) return;
  fmt::print(
      "\n2. Messages per second into PE 0 from PE 1 (one int each, all sent by one entry; "
      "instrumented: on-wall, the default). Floors: ring, a bounded single-producer "
      "single-consumer ring of ints between two bare threads; mutex, a locked inbox swapped by "
      "the receiver\n"
      "{:>9} {:>11} {:>12} {:>11} {:>10} {:>11} {:>16} {:>12}\n",
      "messages", "vela msg/s", "vela off/s", "ring msg/s", "vela/ring", "mutex msg/s",
      ">= 5 M/s instr.", ">= 10 M/s off");
  for (const auto& [count, row] : rows) {
    const auto n = static_cast<double>(count);
    const double vela = n / best(row.at("vela")), off = n / best(row.at("vela off")),
                 ring = n / best(row.at("ring")), mutex = n / best(row.at("mutex"));
    fmt::print("{:>9} {:>11.3g} {:>12.3g} {:>11.3g} {:>10.2f} {:>11.3g} {:>16} {:>12}\n", count,
               vela, off, ring, vela / ring, mutex, verdict(vela >= 5e6), verdict(off >= 10e6));
  }
}

void print_local() {
  if (results["local chain"].empty() && results["local burst"].empty()) return;
  fmt::print(
      "\n3. Local entry method on 1 PE, ns per invocation; instrumentation on-cpu (entries "
      "timed by thread CPU time, --lb-cpu-time), on-wall (wall time, the default), off. chain: "
      "each invocation sends the next to element 0 itself, in a collection of `elements`; burst: "
      "one entry sends all to a neighbour. Measured as wall time and as the PE thread's CPU "
      "time. Floor: call, a call through a function pointer to a function that counts\n"
      "{:>7} {:>9} {:>9} {:>10} {:>11} {:>7} {:>11} {:>12} {:>8} {:>13} {:>11} {:>17}\n",
      "pattern", "elements", "measure", "on-cpu ns", "on-wall ns", "off ns", "on-cpu/off",
      "on-wall/off", "call ns", "on-wall/call", "allocs/msg", "<= 40 ns on-wall");
  for (const Pattern pattern : {to_itself, to_neighbour}) {
    for (const auto& [elements, row] : results[std::string("local ") + pattern_name(pattern)]) {
      const double call = best(row.at("call"));
      for (const std::string measure : {"", "cpu time "}) {
        const double cpu = best(row.at(measure + "on-cpu")),
                     wall = best(row.at(measure + "on-wall")), off = best(row.at(measure + "off"));
        fmt::print(
            "{:>7} {:>9} {:>9} {:>10.1f} {:>11.1f} {:>7.1f} {:>11.2f} {:>12.2f} {:>8.1f} "
            "{:>13.1f} {:>11.1f} {:>17}\n",
            pattern_name(pattern), elements, measure.empty() ? "wall" : "cpu time", cpu * 1e9,
            wall * 1e9, off * 1e9, cpu / off, wall / off, call * 1e9, wall / call,
            median(row.at("allocations off")), measure.empty() ? verdict(wall * 1e9 <= 40) : "-");
      }
    }
  }
  const auto& chain = results["local chain"];
  if (chain.contains(1'000) && chain.contains(1'000'000)) {
    fmt::print("chain on-wall, 10^6 elements / 10^3 elements: {:.2f} (target: the same)\n",
               best(chain.at(1'000'000).at("on-wall")) / best(chain.at(1'000).at("on-wall")));
  }
  fmt::print("clock reads: steady_clock::now {:.0f} ns, CLOCK_THREAD_CPUTIME_ID {:.0f} ns\n",
             clock_cost_ns([] { benchmark::DoNotOptimize(Clock::now()); }),
             clock_cost_ns([] { benchmark::DoNotOptimize(cpu_seconds(CLOCK_THREAD_CPUTIME_ID)); }));
}

void print_migration() {
  const auto& rows = results["migration"];
  if (rows.empty()) return;
  fmt::print(
      "\n4. Migration on 2 PEs, every element moved once (rotate) minus the same sync without "
      "moves (dummy). Floor: copy, a plain memcpy of every element's bytes into freshly "
      "allocated memory on one thread\n"
      "{:>8} {:>8} {:>6} {:>9} {:>10} {:>9} {:>9} {:>10} {:>7} {:>10} {:>17} {:>17} "
      "{:>12}\n",
      "bytes", "elements", "moved", "moved MB", "rotate ms", "dummy ms", "delta ms", "us/object",
      "MB/s", "copy MB/s", "MB/s / copy MB/s", ">= 0.80 at 1 MiB", "strategy ms");
  for (const auto& [bytes, row] : rows) {
    const double rotate = best(row.at("rotate")), dummy = best(row.at("dummy"));
    const double delta = rotate - dummy, copy = best(row.at("copy"));
    const double moved = median(row.at("migrations")), mb = median(row.at("migrated bytes")) / 1e6;
    const double rate = mb / delta,
                 copy_rate = static_cast<double>(bytes) * holders_for(bytes) / copy / 1e6;
    fmt::print(
        "{:>8} {:>8} {:>6.0f} {:>9.1f} {:>10.2f} {:>9.2f} {:>9.2f} {:>10.2f} {:>7.0f} {:>10.0f} "
        "{:>17.2f} {:>17} {:>12.3f}\n",
        bytes, holders_for(bytes), moved, mb, rotate * 1e3, dummy * 1e3, delta * 1e3,
        delta / moved * 1e6, rate, copy_rate, rate / copy_rate,
        bytes == (1 << 20) ? verdict(rate >= 0.80 * copy_rate) : "-",
        median(row.at("strategy rotate")) * 1e3);
  }
}

void print_instrumentation() {
  const auto& rows = results["instrumentation"];
  if (rows.empty()) return;
  fmt::print(
      "\n5. Instrumentation overhead: {} tokens round a ring of {} elements on 2 PEs, measured "
      "as wall time and as the process's CPU time (ratios: median of per-iteration pairs; "
      "ns/entry: added cost per entry, from the best times). The target is stated for on-wall, "
      "the default instrumentation, communication graph included\n"
      "{:>8} {:>8} {:>9} {:>8} {:>10} {:>11} {:>11} {:>12} {:>10} {:>11} {:>14}\n",
      relays, relays, "grain us", "entries", "measure", "off ms", "on-cpu ms", "on-wall ms",
      "on-cpu/off", "on-wall/off", "ns on-cpu", "ns on-wall", "on-wall <= 2%");
  for (const auto& [grain, row] : rows) {
    const double entries = row.at("entries").at(0);
    for (const std::string measure : {"", "cpu time "}) {
      const double off = best(row.at(measure + "off")), cpu = best(row.at(measure + "on-cpu")),
                   wall = best(row.at(measure + "on-wall"));
      const double cpu_ratio = median(row.at(measure + "on-cpu/off")),
                   wall_ratio = median(row.at(measure + "on-wall/off"));
      // Wall time: both PEs run entries at once, so each ran half of them. CPU time: summed.
      const double share = measure.empty() ? 2.0 : 1.0;
      const auto added = [&](double t) { return (t - off) * share / entries * 1e9; };
      fmt::print(
          "{:>8} {:>8.0f} {:>9} {:>8.1f} {:>10.1f} {:>11.1f} {:>11.3f} {:>12.3f} {:>10.0f} "
          "{:>11.0f} {:>14}\n",
          grain, entries, measure.empty() ? "wall" : "cpu time", off * 1e3, cpu * 1e3, wall * 1e3,
          cpu_ratio, wall_ratio, added(cpu), added(wall), verdict(wall_ratio <= 1.02));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_pingpong();
  print_flood();
  print_local();
  print_migration();
  print_instrumentation();
  return 0;
}
