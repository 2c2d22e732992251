// Option checks shared by the generators; each throws std::invalid_argument worded as
// "<generator>: <option> must be <expected>, got <value>".
#pragma once

#include <cstdint>
#include <string>

namespace vela::lb::generate_detail {

[[noreturn]] void reject(const char* generator, const std::string& option,
                         const std::string& expected, const std::string& got);

void require_at_least(const char* generator, const char* option, std::int64_t value,
                      std::int64_t min);
void require_between(const char* generator, const char* option, std::int64_t value,
                     std::int64_t min, std::int64_t max);
void require_positive(const char* generator, const char* option, double value);
void require_non_negative(const char* generator, const char* option, double value);
// For relative noise: [0, 1), so that every load stays > 0.
void require_noise(const char* generator, double noise);
// nx, ny >= 1 and nx * ny objects within what an Instance can index.
void require_grid(const char* generator, std::int64_t nx, std::int64_t ny);
void require_object_count(const char* generator, std::int64_t count);

std::string show(double value);

}  // namespace vela::lb::generate_detail
