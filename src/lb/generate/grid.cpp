// Grids, block placements and halo edges of the generators.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "layout.hpp"

namespace vela::lb {

namespace {

void require_non_negative_count(const char* function, const char* name, std::int64_t value) {
  if (value < 0) {
    throw std::invalid_argument(std::string(function) + ": " + name + " must be >= 0, got " +
                                std::to_string(value));
  }
}

// Objects are indexed with 32 bits (Edge::from, Edge::to).
void require_cells(const char* function, std::int64_t nx, std::int64_t ny) {
  require_non_negative_count(function, "nx", nx);
  require_non_negative_count(function, "ny", ny);
  constexpr std::int64_t max_cells = UINT32_MAX;
  if (ny > 0 && nx > max_cells / ny) {
    throw std::invalid_argument(std::string(function) +
                                ": nx * ny must be <= " + std::to_string(max_cells) + ", got " +
                                std::to_string(nx) + " * " + std::to_string(ny));
  }
}

void require_pes(const char* function, PeId pes) {
  if (pes < 1) {
    throw std::invalid_argument(std::string(function) + ": pes must be >= 1, got " +
                                std::to_string(pes));
  }
}

// owner[i] is the part of `parts` balanced ranges of 0 .. n - 1 that holds i; part r starts
// at floor(r * n / parts), so part sizes differ by at most one.
std::vector<PeId> balanced_ranges(std::int64_t n, PeId parts) {
  std::vector<PeId> owner(static_cast<std::size_t>(n));
  const auto un = static_cast<std::uint64_t>(n);
  const auto uparts = static_cast<std::uint64_t>(parts);
  for (std::uint64_t r = 0; r < uparts; ++r) {
    const std::uint64_t begin = r * un / uparts;
    const std::uint64_t end = (r + 1) * un / uparts;
    for (std::uint64_t i = begin; i < end; ++i) owner[i] = static_cast<PeId>(r);
  }
  return owner;
}

}  // namespace

GridShape near_square_grid(std::int64_t count) {
  require_non_negative_count("near_square_grid", "count", count);
  if (count == 0) return {0, 0};
  auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(count)));
  while (side * side > count) --side;
  while ((side + 1) * (side + 1) <= count) ++side;
  const std::int64_t nx = side * side == count ? side : side + 1;
  return {nx, (count + nx - 1) / nx};
}

PeGrid pe_grid_2d(std::int64_t nx, std::int64_t ny, PeId pes) {
  require_non_negative_count("pe_grid_2d", "nx", nx);
  require_non_negative_count("pe_grid_2d", "ny", ny);
  require_pes("pe_grid_2d", pes);
  struct Score {
    bool leaves_pe_empty;
    double skew;  // block aspect ratio, >= 1; 1 is a square block
    int divides;  // how many of px | nx, py | ny hold
  };
  const auto score_of = [&](PeId px, PeId py) {
    // Aspect of an (nx/px) x (ny/py) block, kept >= 1; grids with a zero side count as square.
    const double wide = static_cast<double>(nx) * py;
    const double tall = static_cast<double>(ny) * px;
    const double skew =
        wide == 0.0 || tall == 0.0 ? 1.0 : std::max(wide, tall) / std::min(wide, tall);
    return Score{px > nx || py > ny, skew,
                 static_cast<int>(nx % px == 0) + static_cast<int>(ny % py == 0)};
  };
  const auto better = [](const Score& a, const Score& b) {
    if (a.leaves_pe_empty != b.leaves_pe_empty) return !a.leaves_pe_empty;
    // Mirror-image factorizations have equal skews that rounding may tell apart.
    if (std::abs(a.skew - b.skew) > 1e-12 * b.skew) return a.skew < b.skew;
    return a.divides > b.divides;
  };
  PeGrid best{pes, 1};
  Score best_score = score_of(pes, 1);
  // Descending px, replacing only on a strictly better score, so ties keep the larger px.
  for (PeId px = pes - 1; px >= 1; --px) {
    if (pes % px != 0) continue;
    const Score s = score_of(px, pes / px);
    if (better(s, best_score)) {
      best = {px, pes / px};
      best_score = s;
    }
  }
  return best;
}

std::vector<PeId> block_placement_2d(std::int64_t nx, std::int64_t ny, PeId pes) {
  require_cells("block_placement_2d", nx, ny);
  require_pes("block_placement_2d", pes);
  const PeGrid grid = pe_grid_2d(nx, ny, pes);
  const std::vector<PeId> column_owner = balanced_ranges(nx, grid.px);
  const std::vector<PeId> row_owner = balanced_ranges(ny, grid.py);
  std::vector<PeId> pe;
  pe.reserve(static_cast<std::size_t>(nx * ny));
  for (PeId row : row_owner) {
    for (PeId column : column_owner) pe.push_back(row * grid.px + column);
  }
  return pe;
}

std::vector<PeId> block_placement_1d(std::int64_t count, PeId pes) {
  require_non_negative_count("block_placement_1d", "count", count);
  require_pes("block_placement_1d", pes);
  return balanced_ranges(count, pes);
}

std::vector<Edge> grid_halo_edges(std::int64_t nx, std::int64_t ny, std::uint64_t bytes) {
  require_cells("grid_halo_edges", nx, ny);
  return generate_detail::halo_edges({nx, ny}, nx * ny, bytes);
}

namespace generate_detail {

std::vector<PeId> place_on_grid(Placement placement, GridShape grid, std::int64_t count, PeId pes) {
  if (placement == Placement::block) return block_placement_1d(count, pes);
  std::vector<PeId> pe = block_placement_2d(grid.nx, grid.ny, pes);
  pe.resize(static_cast<std::size_t>(count));
  return pe;
}

std::vector<Edge> halo_edges(GridShape grid, std::int64_t count, std::uint64_t bytes) {
  std::vector<Edge> edges;
  if (count == 0) return edges;
  edges.reserve(static_cast<std::size_t>(4 * count));
  const std::int64_t nx = grid.nx;
  const auto add = [&](std::int64_t from, std::int64_t to) {
    edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), 1, bytes});
  };
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = k % nx;
    if (i > 0) add(k, k - 1);
    if (i + 1 < nx && k + 1 < count) add(k, k + 1);
    if (k >= nx) add(k, k - nx);
    if (k + nx < count) add(k, k + nx);
  }
  return edges;
}

Instance grid_instance(GridShape grid, const std::vector<PeId>& placement, PeId pes,
                       std::uint64_t object_bytes) {
  Instance instance;
  instance.dims = 2;
  instance.pes.resize(static_cast<std::size_t>(pes));
  instance.objects.resize(placement.size());
  for (std::size_t k = 0; k < placement.size(); ++k) {
    Object& o = instance.objects[k];
    const auto id = static_cast<std::int64_t>(k);
    o.id = id;
    o.size = object_bytes;
    o.coords = {static_cast<double>(id % grid.nx), static_cast<double>(id / grid.nx), 0.0};
    o.pe = placement[k];
  }
  return instance;
}

}  // namespace generate_detail

}  // namespace vela::lb
