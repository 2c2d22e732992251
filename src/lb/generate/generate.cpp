// (b) Jacobi, (c) gamma, (d) clustered and (e) hetero generators; BRAMS is in brams.cpp.
#include "vela/lb/generate/generate.hpp"

#include <cmath>
#include <string>

#include "checks.hpp"
#include "layout.hpp"
#include "random.hpp"

namespace vela::lb {

using namespace generate_detail;

namespace {

// Expands a list given as one value (every PE), one per cluster or one per PE.
std::vector<double> per_pe(const char* kind, const char* option, const std::vector<double>& values,
                           const std::vector<Pe>& pes, std::int32_t clusters) {
  const std::size_t n = values.size();
  if (n != 1 && n != static_cast<std::size_t>(clusters) && n != pes.size()) {
    reject(kind, option,
           "1 value, one per cluster (" + std::to_string(clusters) + ") or one per PE (" +
               std::to_string(pes.size()) + ")",
           std::to_string(n) + " values");
  }
  std::vector<double> out(pes.size());
  for (std::size_t p = 0; p < pes.size(); ++p) {
    if (n == 1) {
      out[p] = values[0];
    } else if (n == pes.size()) {
      out[p] = values[p];
    } else {
      out[p] = values[static_cast<std::size_t>(pes[p].cluster)];
    }
  }
  return out;
}

}  // namespace

Instance generate_jacobi(const JacobiOptions& options) {
  constexpr const char* kind = "jacobi";
  require_grid(kind, options.nx, options.ny);
  require_at_least(kind, "pes", options.pes, 1);
  require_positive(kind, "load", options.load);
  require_noise(kind, options.noise);
  require_between(kind, "block_side", options.block_side, 1, 1 << 20);

  const auto side = static_cast<std::uint64_t>(options.block_side);
  const std::uint64_t halo_bytes = options.halo_bytes.value_or(side * 8U);
  const std::uint64_t object_bytes = options.object_bytes.value_or(2U * side * side * 8U);
  Instance instance = grid_instance({options.nx, options.ny},
                                    block_placement_2d(options.nx, options.ny, options.pes),
                                    options.pes, object_bytes);
  RandomSource random(options.seed);
  for (Object& o : instance.objects) {
    // Draw only when asked, so noise 0 gives loads exactly equal to `load`.
    o.load = options.noise == 0.0
                 ? options.load
                 : options.load * (1.0 + random.uniform(-options.noise, options.noise));
  }
  instance.edges = grid_halo_edges(options.nx, options.ny, halo_bytes);
  validate(instance);
  return instance;
}

Instance generate_gamma(const GammaOptions& options) {
  constexpr const char* kind = "gamma";
  require_object_count(kind, options.objects);
  require_at_least(kind, "pes", options.pes, 1);
  require_positive(kind, "shape", options.shape);
  require_positive(kind, "scale", options.scale);

  const GridShape grid = near_square_grid(options.objects);
  Instance instance =
      grid_instance(grid, place_on_grid(options.placement, grid, options.objects, options.pes),
                    options.pes, options.object_bytes);
  RandomSource random(options.seed);
  for (Object& o : instance.objects) o.load = random.gamma(options.shape, options.scale);
  if (options.halo) instance.edges = halo_edges(grid, options.objects, options.halo_bytes);
  validate(instance);
  return instance;
}

Instance generate_clustered(const ClusteredOptions& options) {
  constexpr const char* kind = "clustered";
  require_object_count(kind, options.objects);
  require_at_least(kind, "pes", options.pes, 2);
  require_between(kind, "overloaded", options.overloaded, 1, options.pes - 1);
  require_positive(kind, "factor", options.factor);
  require_positive(kind, "min_load", options.min_load);
  if (!(options.max_load > options.min_load) || !std::isfinite(options.max_load)) {
    reject(kind, "max_load", "a finite number > min_load (" + show(options.min_load) + ")",
           show(options.max_load));
  }

  const GridShape grid = near_square_grid(options.objects);
  Instance instance =
      grid_instance(grid, place_on_grid(options.placement, grid, options.objects, options.pes),
                    options.pes, options.object_bytes);
  RandomSource random(options.seed);
  for (Object& o : instance.objects) {
    o.load = random.uniform(options.min_load, options.max_load);
    if (o.pe < options.overloaded) o.load *= options.factor;
  }
  if (options.halo) instance.edges = halo_edges(grid, options.objects, options.halo_bytes);
  validate(instance);
  return instance;
}

Instance generate_hetero(const HeteroOptions& options) {
  constexpr const char* kind = "hetero";
  require_grid(kind, options.nx, options.ny);
  require_at_least(kind, "pes", options.pes, 1);
  require_between(kind, "clusters", options.clusters, 1, options.pes);
  require_positive(kind, "slow_speed", options.slow_speed);
  for (std::size_t i = 0; i < options.speeds.size(); ++i) {
    require_positive(kind, ("speeds[" + std::to_string(i) + "]").c_str(), options.speeds[i]);
  }
  for (std::size_t i = 0; i < options.background.size(); ++i) {
    require_non_negative(kind, ("background[" + std::to_string(i) + "]").c_str(),
                         options.background[i]);
  }
  require_positive(kind, "base_load", options.base_load);
  require_noise(kind, options.noise);

  Instance instance = grid_instance({options.nx, options.ny},
                                    block_placement_2d(options.nx, options.ny, options.pes),
                                    options.pes, options.object_bytes);
  const std::vector<PeId> cluster = block_placement_1d(options.pes, options.clusters);
  for (std::size_t p = 0; p < instance.pes.size(); ++p) {
    instance.pes[p].cluster = cluster[p];
    instance.pes[p].speed = cluster[p] == 0 ? 1.0 : options.slow_speed;
  }
  if (!options.speeds.empty()) {
    const std::vector<double> speed =
        per_pe(kind, "speeds", options.speeds, instance.pes, options.clusters);
    for (std::size_t p = 0; p < instance.pes.size(); ++p) instance.pes[p].speed = speed[p];
  }
  if (!options.background.empty()) {
    const std::vector<double> background =
        per_pe(kind, "background", options.background, instance.pes, options.clusters);
    for (std::size_t p = 0; p < instance.pes.size(); ++p) {
      instance.pes[p].background = background[p];
    }
  }
  RandomSource random(options.seed);
  for (Object& o : instance.objects) {
    o.load = options.base_load * (1.0 + random.uniform(-options.noise, options.noise));
  }
  instance.edges = grid_halo_edges(options.nx, options.ny, options.halo_bytes);
  validate(instance);
  return instance;
}

}  // namespace vela::lb
