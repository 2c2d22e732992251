#include "core/clock.hpp"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace vela::rt::detail::tick_clock {

namespace {

using Steady = std::chrono::steady_clock;

bool invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007) return false;
  __cpuid(0x80000007, a, b, c, d);
  return (d & (1u << 8)) != 0;  // "Invariant TSC": constant rate in every P-, C- and T-state
#else
  return false;
#endif
}

// A (steady_clock, TSC) pair read within a microsecond of each other, so that a preemption
// between the two reads cannot skew the calibration.
struct Pair {
  Steady::time_point time;
  Ticks ticks = 0;
};

Pair read_pair() {
  Pair best{};
  auto best_gap = Steady::duration::max();
  for (int attempt = 0; attempt < 50; ++attempt) {
    const auto before = Steady::now();
#if defined(__x86_64__) || defined(__i386__)
    const auto ticks = static_cast<Ticks>(__rdtsc());
#else
    const Ticks ticks = 0;
#endif
    const auto after = Steady::now();
    if (after - before < best_gap) {
      best_gap = after - before;
      best = {before + (after - before) / 2, ticks};
    }
    if (best_gap < std::chrono::microseconds(1)) break;
  }
  return best;
}

Calibration calibrate() {
  Calibration c;
  c.time0 = Steady::now();
  c.ticks0 = c.time0.time_since_epoch().count();
  c.seconds_per_tick = std::chrono::duration<double>(Steady::duration(1)).count();
  if (!invariant_tsc()) return c;
  const Pair first = read_pair();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Pair second = read_pair();
  const double seconds = std::chrono::duration<double>(second.time - first.time).count();
  const Ticks ticks = second.ticks - first.ticks;
  if (ticks <= 0 || seconds <= 0) return c;  // a TSC that does not advance: keep steady_clock
  c.tsc = true;
  c.seconds_per_tick = seconds / static_cast<double>(ticks);
  c.ticks0 = second.ticks;
  c.time0 = second.time;
  return c;
}

}  // namespace

const Calibration& calibration() {
  static const Calibration c = calibrate();
  return c;
}

bool uses_tsc() {
  return calibration().tsc;
}

Ticks from_seconds(double seconds) {
  return static_cast<Ticks>(seconds / calibration().seconds_per_tick);
}

Steady::time_point to_time(Ticks ticks) {
  const Calibration& c = calibration();
  const double offset = static_cast<double>(ticks - c.ticks0) * c.seconds_per_tick;
  return c.time0 +
         std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(offset));
}

}  // namespace vela::rt::detail::tick_clock
