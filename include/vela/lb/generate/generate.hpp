// Seeded synthetic instances: the workloads the strategies are tested and benchmarked on.
//
// Every generator is a pure function of its options: the same options (seed included) give a
// bit-for-bit identical instance. Random numbers come from std::mt19937_64, whose output the
// standard fixes, and from Vela's own distributions (std:: distributions differ between
// standard libraries). Loads that use log/cos (gamma, storms) are exact on one platform; a
// different libm may change their last bit. Bad options throw std::invalid_argument whose
// message names the generator, the option and what was expected.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb {

// ---- Grid building blocks (also used by the runtime for initial maps of 2-D collections) ----

// A row-major grid: object k sits at column k % nx, row k / nx (id = j * nx + i).
struct GridShape {
  std::int64_t nx = 0;
  std::int64_t ny = 0;

  friend bool operator==(const GridShape&, const GridShape&) = default;
};

// The near-square grid that holds `count` objects row-major: nx = ceil(sqrt(count)),
// ny = ceil(count / nx); only the last row may be partial.
GridShape near_square_grid(std::int64_t count);

// How block_placement_2d arranges its PEs: px columns by py rows, px * py == pes; PE (a, b) of
// that grid is PE b * px + a.
struct PeGrid {
  PeId px = 1;
  PeId py = 1;

  friend bool operator==(const PeGrid&, const PeGrid&) = default;
};

// Chooses the factorization px * py == pes whose blocks are most square on an nx x ny grid
// (block aspect (nx/px) / (ny/py) closest to 1); ties go to factors that divide nx and ny, then
// to the larger px. Factorizations that would leave a PE without objects come last.
PeGrid pe_grid_2d(std::int64_t nx, std::int64_t ny, PeId pes);

// The PE of every object of the nx x ny grid (row-major) under 2-D block placement: the grid is
// cut into pe_grid_2d(nx, ny, pes) rectangles whose sides differ by at most one object in each
// direction (balanced integer ranges). 4 x 4 objects on 4 PEs put objects {0, 1, 4, 5} on PE 0.
std::vector<PeId> block_placement_2d(std::int64_t nx, std::int64_t ny, PeId pes);

// The PE of each of `count` objects under 1-D block placement: contiguous id ranges whose sizes
// differ by at most one.
std::vector<PeId> block_placement_1d(std::int64_t count, PeId pes);

// The 4-neighbour halo exchange of an nx x ny grid, non-periodic: one directed edge each way
// between horizontal and vertical neighbours (2(nx-1)ny + 2nx(ny-1) edges), each one message of
// `bytes` per step. Edges of an object come together, in the order left, right, down, up.
std::vector<Edge> grid_halo_edges(std::int64_t nx, std::int64_t ny, std::uint64_t bytes);

// How the gamma and clustered generators place their objects on PEs.
enum class Placement {
  block,     // contiguous id ranges (block_placement_1d): each PE holds a strip of rows
  block_2d,  // 2-D blocks of the near-square grid (block_placement_2d)
};

// ---- (a) BRAMS-like weather model ----

// A region where convection makes the physics more expensive. The load multiplier at distance
// d from the centre is 1 + (factor - 1) * (1 + cos(pi * d / radius)) / 2 for d < radius and 1
// beyond: `factor` at the centre, falling smoothly (zero slope at both ends) to 1 at the radius.
// Overlapping storms multiply.
struct Storm {
  double cx = 0.0;  // centre, in grid units (object (i, j) sits at x = i, y = j)
  double cy = 0.0;
  double radius = 1.0;  // > 0
  double factor = 1.0;  // > 0; below 1 makes a calm region
};

// The default storm of an nx x ny grid: centre (0.3 nx, 0.4 ny), radius 0.15 min(nx, ny),
// factor 4 — off-centre, so it overloads a few PEs of a 2-D block placement.
Storm default_storm(std::int64_t nx, std::int64_t ny);

// An NX x NY grid of objects, each a block of block_side x block_side atmospheric columns of
// `levels` vertical levels carrying `fields` double-precision prognostic fields.
struct BramsOptions {
  std::int64_t nx = 64;
  std::int64_t ny = 64;
  PeId pes = 64;
  std::uint64_t seed = 1;
  double base_load = 1.0;  // seconds per step of a column block outside any storm
  double noise = 0.05;     // each load is scaled by (1 + u), u uniform in [-noise, noise)
  // Unset: one default_storm(nx, ny). Empty: no storm.
  std::optional<std::vector<Storm>> storms{};
  double radiation = 1.0;  // multiplies every load, as on a radiation step; 1 = off
  std::int64_t block_side = 8;
  std::int64_t levels = 32;
  std::int64_t fields = 8;
  // Unset: one face of a block, block_side * levels * fields * 8 bytes (16 KiB by default).
  std::optional<std::uint64_t> halo_bytes{};
  // Unset: the block's state, block_side^2 * levels * fields * 8 bytes (128 KiB by default).
  std::optional<std::uint64_t> object_bytes{};
};

// Objects at (x = i, y = j), dims 2, 4-neighbour halo edges, 2-D block placement, every PE of
// speed 1 in cluster 0.
Instance generate_brams(const BramsOptions& options);

// ---- (b) Jacobi 2-D ----

// An NX x NY grid of objects, each a block_side x block_side block of doubles.
struct JacobiOptions {
  std::int64_t nx = 64;
  std::int64_t ny = 64;
  PeId pes = 64;
  std::uint64_t seed = 1;  // used only when noise > 0
  double load = 1.0;       // seconds per step of every object
  double noise = 0.0;      // as in BramsOptions; 0 gives exactly equal loads
  std::int64_t block_side = 64;
  // Unset: one block edge, block_side * 8 bytes (512 bytes by default).
  std::optional<std::uint64_t> halo_bytes{};
  // Unset: current and next iterate, 2 * block_side^2 * 8 bytes (64 KiB by default).
  std::optional<std::uint64_t> object_bytes{};
};

// Like generate_brams without storms or radiation: the balanced baseline.
Instance generate_jacobi(const JacobiOptions& options);

// ---- (c) gamma-distributed loads ----

struct GammaOptions {
  std::int64_t objects = 4096;
  PeId pes = 64;
  std::uint64_t seed = 1;
  double shape = 2.0;  // k > 0
  double scale = 0.5;  // theta > 0; mean load k * theta = 1, variance k * theta^2 = 0.5
  Placement placement = Placement::block;
  bool halo = true;  // halo edges of the near-square grid the objects lie on
  std::uint64_t halo_bytes = 4096;
  std::uint64_t object_bytes = 65536;
};

// Objects on near_square_grid(objects) (dims 2, so geometric strategies apply), loads drawn
// independently from Gamma(shape, scale) in id order.
Instance generate_gamma(const GammaOptions& options);

// ---- (d) clustered overload ----

// The overload sits on the first `overloaded` PEs — one end of the PE arrangement — so it is
// far from the spare capacity: load moments cannot see where it is, and diffusion has to carry
// load across the machine.
struct ClusteredOptions {
  std::int64_t objects = 4096;
  PeId pes = 64;
  std::uint64_t seed = 1;
  PeId overloaded = 8;    // 1 .. pes - 1
  double factor = 4.0;    // > 0; multiplies the load of every object on an overloaded PE
  double min_load = 0.5;  // base loads are uniform in [min_load, max_load)
  double max_load = 1.5;
  Placement placement = Placement::block;
  bool halo = true;
  std::uint64_t halo_bytes = 4096;
  std::uint64_t object_bytes = 65536;
};

// Objects on near_square_grid(objects), dims 2. With block placement the overloaded PEs hold
// the bottom rows of the grid; with block_2d, the bottom rows of the PE grid.
Instance generate_clustered(const ClusteredOptions& options);

// ---- (e) heterogeneous PEs in clusters ----

struct HeteroOptions {
  std::int64_t nx = 64;
  std::int64_t ny = 64;
  PeId pes = 64;
  std::uint64_t seed = 1;
  // PEs are split into `clusters` contiguous id ranges of near-equal size (Pe::cluster).
  std::int32_t clusters = 2;
  // Speed of every PE outside cluster 0 when `speeds` is empty (cluster 0 has speed 1).
  double slow_speed = 0.5;
  // Empty, or one value for every PE, one per cluster, or one per PE.
  std::vector<double> speeds{};
  // Seconds per step of non-object work: empty (none), or one value for every PE, one per
  // cluster, or one per PE.
  std::vector<double> background{};
  double base_load = 1.0;
  double noise = 0.05;  // as in BramsOptions
  std::uint64_t halo_bytes = 4096;
  std::uint64_t object_bytes = 65536;
};

// An nx x ny grid (dims 2, halo edges, 2-D block placement) on PEs of unequal speed: a balancer
// that ignores speed leaves the slow cluster late.
Instance generate_hetero(const HeteroOptions& options);

// ---- (f) particles: work units and the particles they share (for hypergraph) ----

// A molecular-dynamics-like box of nx x ny x nz cells, the work units (objects). Particles
// gather in Gaussian blobs over a uniform background. A cell's work is its interactions:
// pair_cost * (its particles) * (particles in it and the cells around it), plus cell_cost. A
// particle lives in the cell that holds it and is read by every cell within `cutoff` of it
// (a box of half-side cutoff around it), so it is one hyperedge: its home cell first, then its
// other readers in id order. Particles with the same home and readers share one hyperedge,
// whose bytes add up; particles read by their home cell alone make none.
struct ParticlesOptions {
  std::int64_t nx = 32;
  std::int64_t ny = 32;
  std::int64_t nz = 1;  // 1: a 2-D box (dims 2); more: dims 3
  PeId pes = 16;
  std::uint64_t seed = 1;
  std::int64_t particles = 50000;
  std::int32_t blobs = 4;             // 0 .. 1000 Gaussian clusters, centres uniform in the box
  double blob_fraction = 0.6;         // share of the particles in blobs, in [0, 1]
  double blob_radius = 3.0;           // standard deviation of a blob, in cells, > 0
  double cutoff = 0.5;                // interaction radius in cells, in (0, 2]
  double pair_cost = 1e-6;            // seconds per particle pair, >= 0
  double cell_cost = 1e-4;            // seconds per step of every cell, > 0
  std::uint64_t particle_bytes = 48;  // a particle's state: position and velocity
};

// Cell (i, j, k) is object id (k * ny + j) * nx + i at x = i, y = j (z = k); every PE of speed
// 1 in cluster 0. Placement: 2-D blocks (nz = 1) or slabs of whole z-layers (block_placement_1d
// over the ids). An object's size is its particles' bytes. Edges carry the same communication
// as a graph: from a hyperedge's home cell to each other reader, its bytes (one message per
// pair, merged over hyperedges) — the view of a graph partitioner, which pays a particle once
// per reader on another PE where the hypergraph pays once per other PE.
Instance generate_particles(const ParticlesOptions& options);

}  // namespace vela::lb
