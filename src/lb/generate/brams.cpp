// (a) BRAMS-like weather model: column blocks whose physics cost rises inside storms.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "checks.hpp"
#include "layout.hpp"
#include "random.hpp"

namespace vela::lb {

using namespace generate_detail;

namespace {

constexpr const char* kind = "brams";

void check(const BramsOptions& o) {
  require_grid(kind, o.nx, o.ny);
  require_at_least(kind, "pes", o.pes, 1);
  require_positive(kind, "base_load", o.base_load);
  require_noise(kind, o.noise);
  require_positive(kind, "radiation", o.radiation);
  // Bounded so that the derived byte counts cannot overflow.
  require_between(kind, "block_side", o.block_side, 1, 65536);
  require_between(kind, "levels", o.levels, 1, 100000);
  require_between(kind, "fields", o.fields, 1, 1000);
  if (!o.storms) return;
  for (std::size_t s = 0; s < o.storms->size(); ++s) {
    const Storm& storm = (*o.storms)[s];
    const std::string name = "storm " + std::to_string(s) + " ";
    if (!std::isfinite(storm.cx)) reject(kind, name + "cx", "a finite number", show(storm.cx));
    if (!std::isfinite(storm.cy)) reject(kind, name + "cy", "a finite number", show(storm.cy));
    require_positive(kind, (name + "radius").c_str(), storm.radius);
    require_positive(kind, (name + "factor").c_str(), storm.factor);
  }
}

}  // namespace

namespace generate_detail {

double storm_multiplier(const std::vector<Storm>& storms, double x, double y) {
  double m = 1.0;
  for (const Storm& s : storms) {
    const double d = std::hypot(x - s.cx, y - s.cy);
    if (d >= s.radius) continue;
    const double weight = 0.5 * (1.0 + std::cos(std::numbers::pi * d / s.radius));
    m *= 1.0 + (s.factor - 1.0) * weight;
  }
  return m;
}

}  // namespace generate_detail

Storm default_storm(std::int64_t nx, std::int64_t ny) {
  const auto fx = static_cast<double>(nx);
  const auto fy = static_cast<double>(ny);
  return {0.3 * fx, 0.4 * fy, 0.15 * std::min(fx, fy), 4.0};
}

Instance generate_brams(const BramsOptions& options) {
  check(options);
  const std::vector<Storm> storms =
      options.storms ? *options.storms : std::vector<Storm>{default_storm(options.nx, options.ny)};
  // Each field of each level is one double.
  const auto block_bytes = static_cast<std::uint64_t>(options.levels * options.fields) * 8U;
  const auto side = static_cast<std::uint64_t>(options.block_side);
  const std::uint64_t halo_bytes = options.halo_bytes.value_or(side * block_bytes);
  const std::uint64_t object_bytes = options.object_bytes.value_or(side * side * block_bytes);

  const GridShape grid{options.nx, options.ny};
  Instance instance = grid_instance(grid, block_placement_2d(options.nx, options.ny, options.pes),
                                    options.pes, object_bytes);
  RandomSource random(options.seed);
  for (Object& o : instance.objects) {
    const double storm = generate_detail::storm_multiplier(storms, o.coords[0], o.coords[1]);
    const double noise = 1.0 + random.uniform(-options.noise, options.noise);
    o.load = options.base_load * storm * noise * options.radiation;
  }
  instance.edges = grid_halo_edges(options.nx, options.ny, halo_bytes);
  validate(instance);
  return instance;
}

}  // namespace vela::lb
