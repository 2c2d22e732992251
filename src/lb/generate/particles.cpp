// (f) Particles: cells of an MD-like box as work units, the particles they share as hyperedges.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "checks.hpp"
#include "random.hpp"
#include "vela/lb/generate/generate.hpp"

namespace vela::lb {

using namespace generate_detail;

namespace {

constexpr const char* kind = "particles";

void check(const ParticlesOptions& o) {
  require_at_least(kind, "nx", o.nx, 1);
  require_at_least(kind, "ny", o.ny, 1);
  require_at_least(kind, "nz", o.nz, 1);
  constexpr std::int64_t max_cells = std::numeric_limits<std::uint32_t>::max();
  if (o.nx > max_cells / o.ny || o.nx * o.ny > max_cells / o.nz) {
    reject(kind, "nx * ny * nz", "<= " + std::to_string(max_cells),
           std::to_string(o.nx) + " * " + std::to_string(o.ny) + " * " + std::to_string(o.nz));
  }
  require_at_least(kind, "pes", o.pes, 1);
  require_between(kind, "particles", o.particles, 0, 1'000'000'000);
  require_between(kind, "blobs", o.blobs, 0, 1000);
  if (!(o.blob_fraction >= 0.0 && o.blob_fraction <= 1.0)) {
    reject(kind, "blob_fraction", "in [0, 1]", show(o.blob_fraction));
  }
  require_positive(kind, "blob_radius", o.blob_radius);
  if (!(o.cutoff > 0.0 && o.cutoff <= 2.0)) reject(kind, "cutoff", "in (0, 2]", show(o.cutoff));
  require_non_negative(kind, "pair_cost", o.pair_cost);
  require_positive(kind, "cell_cost", o.cell_cost);
}

using Point = std::array<double, 3>;

// Particle positions: a blob member is drawn again while it falls outside the box (after 100
// tries it goes to a uniform position instead).
std::vector<Point> place_particles(const ParticlesOptions& o, const Point& box, int dims) {
  RandomSource random(o.seed);
  const auto uniform_point = [&] {
    Point p{};
    for (int d = 0; d < dims; ++d) p[d] = random.uniform(0.0, box[d]);
    return p;
  };
  std::vector<Point> centres(static_cast<std::size_t>(o.blobs));
  for (Point& c : centres) c = uniform_point();
  std::vector<Point> particles(static_cast<std::size_t>(o.particles));
  for (Point& p : particles) {
    const bool in_blob = o.blobs > 0 && random.uniform() < o.blob_fraction;
    if (!in_blob) {
      p = uniform_point();
      continue;
    }
    const auto blob = std::min(static_cast<std::size_t>(random.uniform() * o.blobs),
                               static_cast<std::size_t>(o.blobs - 1));
    bool inside = false;
    for (int attempt = 0; attempt < 100 && !inside; ++attempt) {
      inside = true;
      for (int d = 0; d < dims; ++d) {
        p[d] = centres[blob][d] + o.blob_radius * random.normal();
        inside = inside && p[d] >= 0.0 && p[d] < box[d];
      }
    }
    if (!inside) p = uniform_point();
  }
  return particles;
}

// The hyperedge of a group of particles: its home cell and the box of cells that read it.
struct Net {
  std::uint32_t home = 0;
  std::uint32_t corner = 0;  // lowest reader cell
  std::uint32_t shape = 0;   // extents of the reader box, 1..5 per axis, packed
  std::uint64_t count = 0;   // particles

  auto key() const { return std::tie(home, corner, shape); }
};

}  // namespace

Instance generate_particles(const ParticlesOptions& options) {
  check(options);
  const ParticlesOptions& o = options;
  const int dims = o.nz == 1 ? 2 : 3;
  const std::array<std::int64_t, 3> n = {o.nx, o.ny, o.nz};
  const Point box = {static_cast<double>(o.nx), static_cast<double>(o.ny),
                     static_cast<double>(o.nz)};
  const auto cell_id = [&](const std::array<std::int64_t, 3>& c) {
    return static_cast<std::uint32_t>((c[2] * o.ny + c[1]) * o.nx + c[0]);
  };
  const std::size_t cells = static_cast<std::size_t>(o.nx * o.ny * o.nz);

  Instance instance;
  instance.dims = dims;
  instance.pes.resize(static_cast<std::size_t>(o.pes));
  const std::vector<PeId> placement =
      dims == 2 ? block_placement_2d(o.nx, o.ny, o.pes)
                : block_placement_1d(static_cast<std::int64_t>(cells), o.pes);
  instance.objects.resize(cells);
  for (std::size_t id = 0; id < cells; ++id) {
    Object& obj = instance.objects[id];
    const auto k = static_cast<std::int64_t>(id);
    obj.id = k;
    obj.coords = {static_cast<double>(k % o.nx), static_cast<double>(k / o.nx % o.ny),
                  dims == 3 ? static_cast<double>(k / (o.nx * o.ny)) : 0.0};
    obj.pe = placement[id];
  }

  std::vector<std::uint64_t> in_cell(cells, 0);
  std::vector<Net> nets;
  nets.reserve(static_cast<std::size_t>(o.particles));
  for (const Point& p : place_particles(o, box, dims)) {
    std::array<std::int64_t, 3> home{}, lo{}, hi{};
    std::uint32_t shape = 0;
    for (int d = 0; d < 3; ++d) {
      const auto clamp = [&](double x) {
        return std::clamp(static_cast<std::int64_t>(std::floor(x)), std::int64_t{0}, n[d] - 1);
      };
      home[d] = d < dims ? clamp(p[d]) : 0;
      lo[d] = d < dims ? clamp(p[d] - o.cutoff) : 0;
      hi[d] = d < dims ? clamp(p[d] + o.cutoff) : 0;
      shape = shape * 8 + static_cast<std::uint32_t>(hi[d] - lo[d]);
    }
    ++in_cell[cell_id(home)];
    if (lo == hi) continue;  // read by its home cell only
    nets.push_back({cell_id(home), cell_id(lo), shape, 1});
  }
  std::sort(nets.begin(), nets.end(), [](const Net& a, const Net& b) { return a.key() < b.key(); });
  std::size_t merged = 0;
  for (const Net& net : nets) {
    if (merged > 0 && nets[merged - 1].key() == net.key()) {
      ++nets[merged - 1].count;
    } else {
      nets[merged++] = net;
    }
  }
  nets.resize(merged);

  // Hyperedges, and the home-to-reader edges of the same traffic.
  std::vector<Edge> sends;
  for (const Net& net : nets) {
    Hyperedge h;
    h.bytes = net.count * o.particle_bytes;
    h.pins.push_back(net.home);
    const std::array<std::uint32_t, 3> extent = {(net.shape >> 6) + 1, ((net.shape >> 3) & 7) + 1,
                                                 (net.shape & 7) + 1};
    const std::array<std::int64_t, 3> corner = {net.corner % o.nx, net.corner / o.nx % o.ny,
                                                net.corner / (o.nx * o.ny)};
    for (std::uint32_t z = 0; z < extent[2]; ++z) {
      for (std::uint32_t y = 0; y < extent[1]; ++y) {
        for (std::uint32_t x = 0; x < extent[0]; ++x) {
          const std::uint32_t reader = cell_id({corner[0] + x, corner[1] + y, corner[2] + z});
          if (reader == net.home) continue;
          h.pins.push_back(reader);
          sends.push_back({net.home, reader, 1, h.bytes});
        }
      }
    }
    instance.hyperedges.push_back(std::move(h));
  }
  std::sort(sends.begin(), sends.end(), [](const Edge& a, const Edge& b) {
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
  });
  for (const Edge& e : sends) {
    if (!instance.edges.empty() && instance.edges.back().from == e.from &&
        instance.edges.back().to == e.to) {
      instance.edges.back().bytes += e.bytes;
    } else {
      instance.edges.push_back(e);
    }
  }

  // Loads: pairs within each cell's neighbourhood (the 3^dims cells around it, itself included).
  for (std::size_t id = 0; id < cells; ++id) {
    Object& obj = instance.objects[id];
    const std::array<std::int64_t, 3> c = {static_cast<std::int64_t>(obj.coords[0]),
                                           static_cast<std::int64_t>(obj.coords[1]),
                                           static_cast<std::int64_t>(obj.coords[2])};
    std::uint64_t around = 0;
    for (std::int64_t dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); ++dz) {
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          const std::array<std::int64_t, 3> m = {c[0] + dx, c[1] + dy, c[2] + dz};
          if (m[0] < 0 || m[1] < 0 || m[2] < 0 || m[0] >= n[0] || m[1] >= n[1] || m[2] >= n[2]) {
            continue;
          }
          around += in_cell[cell_id(m)];
        }
      }
    }
    obj.load =
        o.cell_cost + o.pair_cost * static_cast<double>(in_cell[id]) * static_cast<double>(around);
    obj.size = in_cell[id] * o.particle_bytes;
  }
  validate(instance);
  return instance;
}

}  // namespace vela::lb
