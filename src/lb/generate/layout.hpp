// Laying generated objects out on a grid: the part every grid-based generator shares.
#pragma once

#include <cstdint>
#include <vector>

#include "vela/lb/generate/generate.hpp"

namespace vela::lb::generate_detail {

// The first `count` cells of `grid` (row-major) under `placement`.
std::vector<PeId> place_on_grid(Placement placement, GridShape grid, std::int64_t count, PeId pes);

// Halo edges between the first `count` cells of `grid`, as grid_halo_edges does for a full one.
std::vector<Edge> halo_edges(GridShape grid, std::int64_t count, std::uint64_t bytes);

// Objects 0 .. placement.size() - 1 at their grid cells (dims 2), id = index, on the given PEs,
// load 0, `object_bytes` each; `pes` PEs of speed 1 in cluster 0; no edges.
Instance grid_instance(GridShape grid, const std::vector<PeId>& placement, PeId pes,
                       std::uint64_t object_bytes);

// The product over `storms` of each one's raised-cosine load factor at (x, y) (Storm,
// generate.hpp).
double storm_multiplier(const std::vector<Storm>& storms, double x, double y);

}  // namespace vela::lb::generate_detail
