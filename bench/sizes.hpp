// The problem sizes the strategy benchmarks share: 10^3 to 10^6 objects on 64, 1024 and 4096
// PEs, with at least four objects per PE.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace vela::bench {

inline void objects_and_pes_up_to(benchmark::internal::Benchmark* b, std::int64_t most) {
  for (const std::int64_t objects : {1'000, 10'000, 100'000, 1'000'000}) {
    for (const std::int64_t pes : {64, 1024, 4096}) {
      if (objects >= 4 * pes && objects <= most) b->Args({objects, pes});
    }
  }
  b->ArgNames({"objects", "pes"})->Unit(benchmark::kMillisecond);
}

inline void objects_and_pes(benchmark::internal::Benchmark* b) {
  objects_and_pes_up_to(b, 1'000'000);
}

inline void objects_and_pes_up_to_1e5(benchmark::internal::Benchmark* b) {
  objects_and_pes_up_to(b, 100'000);
}

}  // namespace vela::bench
