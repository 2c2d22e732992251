// Busy-waiting for the rank layer: one spin step, and a lock for critical sections of a few
// loads and stores that threads of several PEs may enter at once (held far shorter than a
// futex's sleep and wake-up would take).
#pragma once

#include <atomic>

#include "vela/rt/cpu_pause.hpp"

namespace vela::vp::detail {

using rt::detail::cpu_pause;

// Holds `flag` (false: free) for its scope: exchange while free, else wait reading it.
class SpinHold {
 public:
  explicit SpinHold(std::atomic<bool>& flag) noexcept : flag_(flag) {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) cpu_pause();
    }
  }
  ~SpinHold() { flag_.store(false, std::memory_order_release); }
  SpinHold(const SpinHold&) = delete;
  SpinHold& operator=(const SpinHold&) = delete;

 private:
  std::atomic<bool>& flag_;
};

}  // namespace vela::vp::detail
