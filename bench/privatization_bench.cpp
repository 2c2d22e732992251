// Privatized globals: what a rank switch costs with 1 to 10,000 globals under each
// method, the shape of the seed's Table 4.1 (rows: globals; columns: methods), each figure
// beside the switch without privatization measured in the same run:
//   1. the switch alone: switch_in + switch_out of two RankGlobals in turn, in a tight loop;
//   2. end to end: vp::run with 2 ranks on 1 PE, each incrementing its global and yielding to
//      the other; ns per context switch measured inside rank 0 over its loop.
// Methods: none (no privatization), privatized<int> (N variables), thread_local with the TLS
// method (the executable holds 10,000 thread_local ints whatever the row; the wrfsbase
// instruction, and the arch_prctl system call in the switch-only table), registered globals
// copied in and out (N plain ints, each its own variable). Each figure is the best of
// --reps repetitions (other tenants' noise only ever adds time).
//   build/bench/privatization_bench [--reps 7] [--switches 200000] [--yields 50000]
//                                   [--switch-only]
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "privatization/privatization.hpp"
#include "privatization/privatization_detail.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/privatized.hpp"
#include "vela/vp/vp.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using vela::vp::privatized;
using vela::vp::detail::RankGlobals;

constexpr std::size_t max_globals = 10000;
constexpr std::array<std::size_t, 5> rows = {1, 10, 100, 1000, 10000};

}  // namespace

// 10,000 thread_local and 10,000 plain int variables, each its own symbol, spelled out by the
// preprocessor (templates instantiated by an index_sequence took minutes to compile). External
// linkage keeps every one in the executable.
// clang-format off
#define VELA_X10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define VELA_X100(M, p) VELA_X10(M, p##0) VELA_X10(M, p##1) VELA_X10(M, p##2) VELA_X10(M, p##3) \
  VELA_X10(M, p##4) VELA_X10(M, p##5) VELA_X10(M, p##6) VELA_X10(M, p##7) VELA_X10(M, p##8)    \
  VELA_X10(M, p##9)
#define VELA_X1000(M, p) VELA_X100(M, p##0) VELA_X100(M, p##1) VELA_X100(M, p##2)               \
  VELA_X100(M, p##3) VELA_X100(M, p##4) VELA_X100(M, p##5) VELA_X100(M, p##6) VELA_X100(M, p##7) \
  VELA_X100(M, p##8) VELA_X100(M, p##9)
#define VELA_X10000(M, p) VELA_X1000(M, p##0) VELA_X1000(M, p##1) VELA_X1000(M, p##2)           \
  VELA_X1000(M, p##3) VELA_X1000(M, p##4) VELA_X1000(M, p##5) VELA_X1000(M, p##6)                \
  VELA_X1000(M, p##7) VELA_X1000(M, p##8) VELA_X1000(M, p##9)
// clang-format on
#define VELA_THREAD_LOCAL(n) thread_local int tls##n = 1;
#define VELA_PLAIN(n) int plain##n = 1;
#define VELA_ADDRESS(n) &plain##n,

namespace vela_bench_globals {
VELA_X10000(VELA_THREAD_LOCAL, _)
VELA_X10000(VELA_PLAIN, _)
int* const plain_addresses[] = {VELA_X10000(VELA_ADDRESS, _)};
}  // namespace vela_bench_globals

namespace {

using vela_bench_globals::plain_addresses;
static_assert(std::size(plain_addresses) == max_globals);

enum class Method { none, privatized, tls, tls_syscall, copy };

const char* name(Method m) {
  switch (m) {
    case Method::none:
      return "none";
    case Method::privatized:
      return "privatized";
    case Method::tls:
      return "tls";
    case Method::tls_syscall:
      return "tls-syscall";
    case Method::copy:
      return "copy";
  }
  return "?";
}

// What a row sets up: N privatized variables or N registered globals; torn down after.
struct Setup {
  std::vector<std::unique_ptr<privatized<int>>> variables;
  bool registered = false;

  Setup(Method m, std::size_t n) {
    if (m == Method::privatized) {
      for (std::size_t i = 0; i < n; ++i) {
        variables.push_back(std::make_unique<privatized<int>>(static_cast<int>(i)));
      }
    }
    if (m == Method::copy) {
      for (std::size_t i = 0; i < n; ++i) vela::vp::register_global(*plain_addresses[i]);
      registered = true;
    }
    vela::vp::detail::tls_use_fsgsbase(m != Method::tls_syscall);
  }
  ~Setup() {
    if (registered) vela::vp::unregister_globals();
    vela::vp::detail::tls_use_fsgsbase(true);
  }
  Setup(const Setup&) = delete;
  Setup& operator=(const Setup&) = delete;
};

bool uses_tls(Method m) {
  return m == Method::tls || m == Method::tls_syscall;
}

// Fewer rounds where each costs O(n) (copying), so that every cell takes about as long.
int rounds(Method m, std::size_t n, int count) {
  if (m != Method::copy || n <= 100) return count;
  return std::max(200, count / static_cast<int>(n / 100));
}

// ns per switch (one switch_in + switch_out pair), best of `reps`.
double switch_ns(Method m, std::size_t n, int reps, int switches) {
  switches = rounds(m, n, switches);
  const Setup setup(m, n);
  RankGlobals a(0, uses_tls(m));
  RankGlobals b(1, uses_tls(m));
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < switches; i += 2) {
      a.switch_in();
      a.switch_out();
      b.switch_in();
      b.switch_out();
    }
    const std::chrono::duration<double, std::nano> took = Clock::now() - start;
    best = std::min(best, took.count() / switches);
  }
  return best;
}

// ns per context switch of vp::run, 2 ranks on 1 PE yielding to each other, best of `reps`.
double run_ns(Method m, std::size_t n, int reps, int yields) {
  yields = rounds(m, n, yields);
  const Setup setup(m, n);
  vela::rt::Options runtime_options;
  runtime_options.pes = 1;
  runtime_options.pin = false;
  vela::vp::Options options;
  options.ranks = 2;
  options.tls_globals = uses_tls(m);
  static int plain = 0;
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    vela::rt::Runtime runtime(runtime_options);
    double took = 0.0;
    vela::vp::run(runtime, options, [&] {
      const auto start = Clock::now();
      for (int i = 0; i < yields; ++i) {
        switch (m) {
          case Method::none:
            ++plain;
            break;
          case Method::privatized:
            ++*setup.variables.front();
            break;
          case Method::tls:
          case Method::tls_syscall:
            ++vela_bench_globals::tls_0000;
            break;
          case Method::copy:
            ++*plain_addresses[0];
            break;
        }
        vela::vp::yield();
      }
      const std::chrono::duration<double, std::nano> t = Clock::now() - start;
      if (vela::vp::rank() == 0) took = t.count() / (2.0 * yields);
    });
    best = std::min(best, took);
  }
  return best;
}

int argument(int argc, char** argv, const std::string& flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == flag) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

bool flag(int argc, char** argv, const std::string& name) {
  return std::find(argv + 1, argv + argc, name) != argv + argc;
}

void table(const char* title, const std::vector<Method>& methods,
           const std::function<double(Method, std::size_t)>& measure) {
  fmt::print("\n{}\n{:>8}", title, "globals");
  for (Method m : methods) fmt::print(" {:>12}", name(m));
  for (std::size_t i = 1; i < methods.size(); ++i) fmt::print(" {:>12}", name(methods[i]));
  fmt::print("\n{:>8}", "");
  for (std::size_t i = 0; i < methods.size(); ++i) fmt::print(" {:>12}", "ns");
  for (std::size_t i = 1; i < methods.size(); ++i) fmt::print(" {:>12}", "/ none");
  fmt::print("\n");
  std::string failed;
  for (std::size_t n : rows) {
    std::vector<double> ns;
    for (Method m : methods) {
      try {
        ns.push_back(measure(m, n));
      } catch (const std::exception& e) {
        // A method that cannot run here (the table says n/a, the reason follows it).
        ns.push_back(std::numeric_limits<double>::quiet_NaN());
        failed = fmt::format("{}: {}", name(m), e.what());
      }
    }
    fmt::print("{:>8}", n);
    for (double v : ns) fmt::print(" {:>12}", std::isnan(v) ? "n/a" : fmt::format("{:.1f}", v));
    for (std::size_t i = 1; i < ns.size(); ++i) {
      const double ratio = ns[i] / ns[0];
      fmt::print(" {:>12}", std::isnan(ratio) ? "n/a" : fmt::format("{:.2f}", ratio));
    }
    fmt::print("\n");
  }
  if (!failed.empty()) fmt::print("n/a: {}\n", failed);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argument(argc, argv, "--reps", 7);
  const int switches = argument(argc, argv, "--switches", 200000);
  const int yields = argument(argc, argv, "--yields", 50000);

  std::string tls_why;
  try {
    const auto& layout = vela::vp::detail::tls_layout();
    vela::vp::detail::TlsBlock block;
    fmt::print(
        "TLS method: executable's TLS block {} B (10,000 thread_local ints, never copied), the "
        "C library's block {} B and the thread descriptor {} B copied per switch, FS base by "
        "{}; bytes touched per switch {}\n",
        layout.executable_bytes, layout.c_library_bytes, layout.descriptor_bytes,
        layout.fsgsbase ? "wrfsbase (arch_prctl in tls-syscall)" : "arch_prctl only",
        block.bytes_per_switch());
  } catch (const vela::vp::Error& e) {
    tls_why = e.what();
    fmt::print("TLS method unavailable: {}\n", tls_why);
  }
  std::vector<Method> methods = {Method::none, Method::privatized};
  if (tls_why.empty()) {
    methods.push_back(Method::tls);
    methods.push_back(Method::tls_syscall);
  }
  methods.push_back(Method::copy);

  switch_ns(Method::none, 1, reps, switches);  // warm-up: caches, frequency
  table("1. switch_in + switch_out (ns per switch, best of reps)", methods,
        [&](Method m, std::size_t n) { return switch_ns(m, n, reps, switches); });

  if (flag(argc, argv, "--switch-only")) return 0;
  std::vector<Method> run_methods = methods;
  std::erase(run_methods, Method::tls_syscall);
  table("2. vp::run, 2 ranks on 1 PE yielding (ns per context switch, best of reps)", run_methods,
        [&](Method m, std::size_t n) { return run_ns(m, n, reps, yields); });
  return 0;
}
