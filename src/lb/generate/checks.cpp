#include "checks.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace vela::lb::generate_detail {

namespace {

// Edges index objects with 32 bits.
constexpr std::int64_t max_objects = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void reject(const char* generator, const std::string& option, const std::string& expected,
            const std::string& got) {
  throw std::invalid_argument(std::string(generator) + ": " + option + " must be " + expected +
                              ", got " + got);
}

std::string show(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void require_at_least(const char* generator, const char* option, std::int64_t value,
                      std::int64_t min) {
  if (value < min) reject(generator, option, ">= " + std::to_string(min), std::to_string(value));
}

void require_between(const char* generator, const char* option, std::int64_t value,
                     std::int64_t min, std::int64_t max) {
  if (value < min || value > max) {
    reject(generator, option, "in " + std::to_string(min) + ".." + std::to_string(max),
           std::to_string(value));
  }
}

void require_positive(const char* generator, const char* option, double value) {
  if (!std::isfinite(value) || value <= 0.0) {
    reject(generator, option, "a finite number > 0", show(value));
  }
}

void require_non_negative(const char* generator, const char* option, double value) {
  if (!std::isfinite(value) || value < 0.0) {
    reject(generator, option, "a finite number >= 0", show(value));
  }
}

void require_noise(const char* generator, double noise) {
  if (!(noise >= 0.0 && noise < 1.0)) reject(generator, "noise", "in [0, 1)", show(noise));
}

void require_grid(const char* generator, std::int64_t nx, std::int64_t ny) {
  require_at_least(generator, "nx", nx, 1);
  require_at_least(generator, "ny", ny, 1);
  if (nx > max_objects / ny) {
    reject(generator, "nx * ny", "<= " + std::to_string(max_objects),
           std::to_string(nx) + " * " + std::to_string(ny));
  }
}

void require_object_count(const char* generator, std::int64_t count) {
  require_between(generator, "objects", count, 1, max_objects);
}

}  // namespace vela::lb::generate_detail
