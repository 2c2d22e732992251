// The Hilbert curve order of an instance's objects, computed once per set of coordinates and
// reused: the coordinates of a run's objects do not change, so each balancing step pays only
// for its cut. Shared by the central and the distributed Hilbert strategies, which differ only
// in how they cut the order (CurveCutStrategy).
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "vela/lb/model/strategy.hpp"
#include "vela/lb/strategies/hilbert.hpp"

namespace vela::lb::builtin {

// Changes whenever a coordinate, the object count or the dims change (up to hash collisions).
// Objects are mixed independently and summed, so the loop pipelines: ~1 ms per 10^6 objects.
inline std::uint64_t coordinate_fingerprint(const Instance& instance) {
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t sum = mix(static_cast<std::uint64_t>(instance.dims) + 1);
  const auto dims = static_cast<std::size_t>(std::clamp(instance.dims, 0, 3));
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    std::uint64_t word = i * 0x9e3779b97f4a7c15ULL;
    for (std::size_t a = 0; a < dims; ++a) {
      word ^= std::rotl(std::bit_cast<std::uint64_t>(instance.objects[i].coords[a]),
                        static_cast<int>(21 * a));
    }
    sum += mix(word);
  }
  return sum;
}

class CurveOrderCache {
 public:
  explicit CurveOrderCache(int bits) : bits_(bits) {}

  // The order for `instance`; `curve_ms` gets the time spent computing it (0 when cached).
  const std::vector<std::uint32_t>& order(const Instance& instance, double& curve_ms) {
    const std::uint64_t fingerprint = coordinate_fingerprint(instance);
    curve_ms = 0.0;
    if (!cached_ || count_ != instance.objects.size() || fingerprint_ != fingerprint) {
      const auto start = std::chrono::steady_clock::now();
      order_ = hilbert_order(instance, bits_);
      curve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count();
      cached_ = true;
      count_ = instance.objects.size();
      fingerprint_ = fingerprint;
    }
    return order_;
  }

 private:
  int bits_;
  bool cached_ = false;
  std::size_t count_ = 0;
  std::uint64_t fingerprint_ = 0;
  std::vector<std::uint32_t> order_;
};

// A strategy that orders the objects along the (cached) Hilbert curve and cuts that order with
// `cut(instance, order)`, which returns the assignment and any stats of its own; curve_ms and
// cut_ms come first in the stats.
template <class Cut>
class CurveCutStrategy final : public Strategy {
 public:
  CurveCutStrategy(int bits, Cut cut) : curve_(bits), cut_(std::move(cut)) {}

  Solution solve(const Instance& instance) override {
    double curve_ms = 0.0;
    const std::vector<std::uint32_t>& order = curve_.order(instance, curve_ms);
    const auto start = std::chrono::steady_clock::now();
    Solution solution = cut_(instance, order);
    const double cut_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    solution.stats.insert(solution.stats.begin(), {{"curve_ms", curve_ms}, {"cut_ms", cut_ms}});
    return solution;
  }

 private:
  CurveOrderCache curve_;
  Cut cut_;
};

}  // namespace vela::lb::builtin
