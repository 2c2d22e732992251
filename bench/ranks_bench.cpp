// Ranks (the AMPI model) against their floors, in one run: a bare fiber switch, rank switches
// through the scheduler (yield), one-way send/recv latency on one PE and between two PEs, and
// many ranks started and finished. Each row prints the best of several iterations (noise only
// adds time) and its ratio to the floor measured here.
#include <fmt/core.h>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace {

namespace vp = vela::vp;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

template <class F>
double best_of(int iterations, F&& measure) {
  double best = 1e300;
  for (int i = 0; i < iterations; ++i) best = std::min(best, measure());
  return best;
}

// The floor: two bare fibers on one thread switching back and forth (ns per switch).
double fiber_switch_ns(int switches) {
  namespace ctx = boost::context;
  ctx::fiber other{[](ctx::fiber&& back) {
    for (;;) back = std::move(back).resume();
    return std::move(back);
  }};
  const auto t0 = Clock::now();
  for (int i = 0; i < switches / 2; ++i) other = std::move(other).resume();
  const auto t1 = Clock::now();
  return seconds(t0, t1) * 1e9 / switches;
}

struct Measured {
  double seconds = 0;
  std::uint64_t switches = 0;
};

// Runs `body` on `ranks` ranks over `pes` PEs and returns the time rank 0 measured between its
// two barriers.
double timed_run(int ranks, int pes, const std::string& map, const std::function<double()>& body) {
  vela::rt::Options options;
  options.pes = pes;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  vp::Options v;
  v.ranks = ranks;
  v.map = map;
  double result = 0;
  vp::run(runtime, v, [&] {
    const double t = body();
    if (vp::rank() == 0) result = t;
  });
  return result;
}

// Two ranks on one PE that yield in turn: ns per rank switch (each yield is a message to the
// rank itself, a scheduler pass and a fiber switch each way).
double yield_ns(int rounds) {
  return timed_run(2, 1, "block",
                   [rounds] {
                     vp::barrier();
                     const double t0 = vp::wtime();
                     for (int i = 0; i < rounds; ++i) vp::yield();
                     const double t1 = vp::wtime();
                     vp::barrier();
                     return t1 - t0;
                   }) *
         1e9 / (2.0 * rounds);
}

// One-way latency of `bytes`-byte messages between ranks 0 and 1 (µs).
double pingpong_us(int pes, std::size_t bytes, int rounds) {
  return timed_run(2, pes, "round-robin",
                   [bytes, rounds] {
                     std::vector<std::byte> buffer(bytes);
                     const int me = vp::rank();
                     vp::barrier();
                     const double t0 = vp::wtime();
                     for (int i = 0; i < rounds; ++i) {
                       if (me == 0) {
                         vp::send(buffer.data(), bytes, vp::Type::bytes, 1, 0);
                         vp::recv(buffer.data(), bytes, vp::Type::bytes, 1, 0);
                       } else {
                         vp::recv(buffer.data(), bytes, vp::Type::bytes, 0, 0);
                         vp::send(buffer.data(), bytes, vp::Type::bytes, 0, 0);
                       }
                     }
                     const double t1 = vp::wtime();
                     vp::barrier();
                     return t1 - t0;
                   }) *
         1e6 / (2.0 * rounds);
}

void print_switches() {
  const double floor = best_of(5, [] { return fiber_switch_ns(2'000'000); });
  const double yield = best_of(5, [] { return yield_ns(200'000); });
  fmt::print("\n## Context switches (ns)\n\n");
  fmt::print("| switch | ns | / bare fiber | target |\n|---|---:|---:|---|\n");
  fmt::print("| bare Boost.Context fiber switch (floor) | {:.1f} | 1.00 | ≤ 50 |\n", floor);
  fmt::print("| rank switch through the scheduler (yield) | {:.1f} | {:.2f} | — |\n", yield,
             yield / floor);
}

void print_latency() {
  fmt::print("\n## One-way send/recv latency between two ranks (µs)\n\n");
  fmt::print("| bytes | same PE | 2 PEs of one process | targets |\n|---:|---:|---:|---|\n");
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1024}, std::size_t{65536}}) {
    const int rounds = bytes > 4096 ? 20'000 : 200'000;
    const double one = best_of(5, [&] { return pingpong_us(1, bytes, rounds); });
    const double two = best_of(5, [&] { return pingpong_us(2, bytes, rounds); });
    fmt::print("| {} | {:.3f} | {:.3f} | {} |\n", bytes, one, two,
               bytes == 8 ? "≤ 0.12 same PE, ≤ 0.40 2 PEs" : "—");
  }
}

void print_many() {
  fmt::print("\n## Many ranks on 2 PEs, started and finished (one allreduce each)\n\n");
  fmt::print("| ranks | seconds | µs per rank | stack touched per rank (KiB) |\n");
  fmt::print("|---:|---:|---:|---:|\n");
  for (int ranks : {1000, 10000}) {
    vp::RunInfo info;
    const double t = best_of(3, [&] {
      vela::rt::Options options;
      options.pes = 2;
      options.pin = false;
      vela::rt::Runtime runtime(options);
      vp::Options v;
      v.ranks = ranks;
      const auto t0 = Clock::now();
      vp::run(runtime, v, [] {
        const long long one = 1;
        long long sum = 0;
        vp::allreduce(&one, &sum, 1, vp::Type::i64, vp::Op::sum, vp::Order::arrival);
      });
      const double s = seconds(t0, Clock::now());
      info = vp::last_run();
      return s;
    });
    fmt::print("| {} | {:.3f} | {:.1f} | {:.1f} |\n", ranks, t, t * 1e6 / ranks,
               static_cast<double>(info.stack_bytes_touched) / ranks / 1024.0);
  }
}

}  // namespace

// `ranks_bench [switches|latency|many]...` runs the named tables only (all by default), so
// that a profiler sees one of them.
int main(int argc, char** argv) {
  const std::vector<std::string> picked(argv + 1, argv + argc);
  auto wanted = [&](const char* table) {
    return picked.empty() || std::find(picked.begin(), picked.end(), table) != picked.end();
  };
  for (const std::string& p : picked) {
    if (p != "switches" && p != "latency" && p != "many") {
      fmt::print(stderr, "ranks_bench: unknown table '{}' (expected switches, latency or many)\n",
                 p);
      return 1;
    }
  }
  fmt::print("# ranks_bench: ranks as fibers against their floors (best of 5)\n");
  if (wanted("switches")) print_switches();
  if (wanted("latency")) print_latency();
  if (wanted("many")) print_many();
  return 0;
}
