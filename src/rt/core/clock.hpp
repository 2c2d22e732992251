// The runtime's clock for measurement: one read per entry-method boundary, so it must be cheap.
// On x86-64 with an invariant TSC it reads the time-stamp counter (one instruction, no vDSO
// scaling), calibrated once per process against steady_clock; elsewhere it is steady_clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace vela::rt::detail {

// Wall-clock time points of the runtime's own steps (balancing, checkpoints); entry
// boundaries use tick_clock below.
using Clock = std::chrono::steady_clock;

using Ticks = std::int64_t;

namespace tick_clock {

// True when now() reads the TSC (decided once, at the first call of calibration()).
bool uses_tsc();

struct Calibration {
  bool tsc = false;
  double seconds_per_tick = 1e-9;
  // A pair read together: ticks at `time`, to place ticks on steady_clock's time line.
  Ticks ticks0 = 0;
  std::chrono::steady_clock::time_point time0;
};
const Calibration& calibration();

inline Ticks now() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool tsc = calibration().tsc;
  if (tsc) return static_cast<Ticks>(__rdtsc());
#endif
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

inline double seconds(Ticks ticks) {
  return static_cast<double>(ticks) * calibration().seconds_per_tick;
}

Ticks from_seconds(double seconds);

// The steady_clock time of a tick count (for traces).
std::chrono::steady_clock::time_point to_time(Ticks ticks);

}  // namespace tick_clock

}  // namespace vela::rt::detail
