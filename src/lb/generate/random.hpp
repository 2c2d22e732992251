// The random numbers of the generators: std::mt19937_64 (output fixed by the standard) and
// distributions written here, so that a seed gives the same instance with any standard library.
#pragma once

#include <cstdint>
#include <random>

namespace vela::lb::generate_detail {

class RandomSource {
 public:
  explicit RandomSource(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1): the top 53 bits of one engine output.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Standard normal (Marsaglia's polar method; the second value of each pair is kept).
  double normal();

  // Gamma(shape, scale), mean shape * scale (Marsaglia and Tsang's squeeze method).
  double gamma(double shape, double scale);

 private:
  std::mt19937_64 engine_;
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace vela::lb::generate_detail
