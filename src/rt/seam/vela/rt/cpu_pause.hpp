// One spin-wait step, for the runtime's busy-waits and the rank layer's (src/vp sees it beside
// rank_seam.hpp): tells the core this is a busy-wait loop (the sibling hyperthread runs, less
// power) without giving up the core. Costs one PAUSE (tens of cycles on recent x86 cores).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vela::rt::detail {

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace vela::rt::detail
