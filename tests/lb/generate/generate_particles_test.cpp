// The particles generator (the hypergraph strategy's instances): reproducible, laid out as
// documented, with hyperedges that are the boxes of cells around each particle, edges carrying the
// same traffic and loads that follow the particle counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/model/metrics.hpp"

namespace vela::lb {
namespace {

ParticlesOptions small(std::uint64_t seed = 1) {
  ParticlesOptions o;
  o.nx = 12;
  o.ny = 10;
  o.pes = 6;
  o.particles = 3000;
  o.seed = seed;
  return o;
}

bool same(const Instance& a, const Instance& b) {
  const auto object = [](const Object& o) {
    return std::tie(o.id, o.load, o.size, o.coords, o.pe, o.migratable);
  };
  const auto edge = [](const Edge& e) { return std::tie(e.from, e.to, e.messages, e.bytes); };
  return a.dims == b.dims && a.pes.size() == b.pes.size() && a.hyperedges == b.hyperedges &&
         std::equal(a.objects.begin(), a.objects.end(), b.objects.begin(), b.objects.end(),
                    [&](const Object& x, const Object& y) { return object(x) == object(y); }) &&
         std::equal(a.edges.begin(), a.edges.end(), b.edges.begin(), b.edges.end(),
                    [&](const Edge& x, const Edge& y) { return edge(x) == edge(y); });
}

TEST(Particles, SameOptionsSameInstanceOtherSeedOtherOne) {
  EXPECT_TRUE(same(generate_particles(small(4)), generate_particles(small(4))));
  EXPECT_FALSE(same(generate_particles(small(4)), generate_particles(small(5))));
  ParticlesOptions three = small(4);
  three.nz = 3;
  EXPECT_TRUE(same(generate_particles(three), generate_particles(three)));
}

TEST(Particles, CellsAreObjectsInRowMajorOrderOnBlocks) {
  const ParticlesOptions o = small();
  const Instance in = generate_particles(o);
  EXPECT_EQ(in.dims, 2);
  ASSERT_EQ(in.objects.size(), 120u);
  ASSERT_EQ(in.pes.size(), 6u);
  const std::vector<PeId> blocks = block_placement_2d(12, 10, 6);
  for (std::size_t k = 0; k < in.objects.size(); ++k) {
    const Object& obj = in.objects[k];
    EXPECT_EQ(obj.id, static_cast<ObjectId>(k));
    EXPECT_EQ(obj.coords[0], static_cast<double>(k % 12));
    EXPECT_EQ(obj.coords[1], static_cast<double>(k / 12));
    EXPECT_EQ(obj.pe, blocks[k]);
    EXPECT_TRUE(obj.migratable);
  }
  ParticlesOptions box = o;
  box.nz = 4;
  const Instance in3 = generate_particles(box);
  EXPECT_EQ(in3.dims, 3);
  ASSERT_EQ(in3.objects.size(), 480u);
  EXPECT_EQ(in3.objects[12 * 10 * 2 + 12 * 3 + 5].coords, (std::array<double, 3>{5.0, 3.0, 2.0}));
  const std::vector<PeId> slabs = block_placement_1d(480, 6);
  for (std::size_t k = 0; k < in3.objects.size(); ++k) EXPECT_EQ(in3.objects[k].pe, slabs[k]);
}

// Cell coordinates of object `k` of `in`.
std::array<std::int64_t, 3> cell(const Instance& in, std::uint32_t k) {
  const auto& c = in.objects[k].coords;
  return {static_cast<std::int64_t>(c[0]), static_cast<std::int64_t>(c[1]),
          static_cast<std::int64_t>(c[2])};
}

TEST(Particles, HyperedgesAreBoxesOfCellsAroundTheirHome) {
  for (const double cutoff : {0.5, 2.0}) {
    SCOPED_TRACE("cutoff " + std::to_string(cutoff));
    ParticlesOptions o = small();
    o.nz = cutoff > 1.0 ? 3 : 1;
    o.cutoff = cutoff;
    const Instance in = generate_particles(o);
    ASSERT_FALSE(in.hyperedges.empty());
    const std::int64_t reach = cutoff > 1.0 ? 2 : 1;  // cells a reader can be from home
    for (const Hyperedge& h : in.hyperedges) {
      ASSERT_GE(h.pins.size(), 2u);
      EXPECT_EQ(h.bytes % o.particle_bytes, 0u);
      EXPECT_GT(h.bytes, 0u);
      std::array<std::int64_t, 3> lo = cell(in, h.pins[0]), hi = lo;
      for (const std::uint32_t pin : h.pins) {
        for (int d = 0; d < 3; ++d) {
          const std::int64_t c = cell(in, pin)[d];
          EXPECT_LE(std::abs(c - cell(in, h.pins[0])[d]), reach);
          lo[d] = std::min(lo[d], c);
          hi[d] = std::max(hi[d], c);
        }
      }
      // The pins fill their bounding box exactly, home first, the others in id order.
      std::size_t volume = 1;
      for (int d = 0; d < 3; ++d) volume *= static_cast<std::size_t>(hi[d] - lo[d] + 1);
      EXPECT_EQ(h.pins.size(), volume);
      EXPECT_TRUE(std::is_sorted(h.pins.begin() + 1, h.pins.end()));
    }
  }
}

TEST(Particles, EdgesCarryTheHyperedgesBytesFromHomeToEachReader) {
  const Instance in = generate_particles(small(2));
  std::uint64_t expected = 0;
  for (const Hyperedge& h : in.hyperedges) expected += h.bytes * (h.pins.size() - 1);
  std::uint64_t total = 0;
  for (std::size_t e = 0; e < in.edges.size(); ++e) {
    total += in.edges[e].bytes;
    EXPECT_EQ(in.edges[e].messages, 1u);
    EXPECT_NE(in.edges[e].from, in.edges[e].to);
    if (e > 0) {  // merged: one edge per ordered pair
      EXPECT_LT(std::tie(in.edges[e - 1].from, in.edges[e - 1].to),
                std::tie(in.edges[e].from, in.edges[e].to));
    }
  }
  EXPECT_EQ(total, expected);
  // The graph pays a particle once per reader, the hypergraph once per extra PE.
  const Assignment spread = current_assignment(in);
  EXPECT_LE(hypergraph_cut(in, spread), comm_cut(in, spread).bytes);
}

TEST(Particles, SizesCountTheParticlesAndLoadsTheirPairs) {
  const ParticlesOptions o = small(3);
  const Instance in = generate_particles(o);
  std::vector<std::uint64_t> count(in.objects.size());
  for (std::size_t k = 0; k < count.size(); ++k) {
    EXPECT_EQ(in.objects[k].size % o.particle_bytes, 0u);
    count[k] = in.objects[k].size / o.particle_bytes;
  }
  EXPECT_EQ(std::accumulate(count.begin(), count.end(), std::uint64_t{0}),
            static_cast<std::uint64_t>(o.particles));
  for (std::size_t k = 0; k < count.size(); ++k) {
    const std::int64_t i = static_cast<std::int64_t>(k) % o.nx;
    const std::int64_t j = static_cast<std::int64_t>(k) / o.nx;
    std::uint64_t around = 0;
    for (std::int64_t y = std::max<std::int64_t>(0, j - 1); y <= std::min(o.ny - 1, j + 1); ++y) {
      for (std::int64_t x = std::max<std::int64_t>(0, i - 1); x <= std::min(o.nx - 1, i + 1); ++x) {
        around += count[static_cast<std::size_t>(y * o.nx + x)];
      }
    }
    EXPECT_DOUBLE_EQ(in.objects[k].load,
                     o.cell_cost + o.pair_cost * static_cast<double>(count[k] * around));
  }
}

TEST(Particles, BlobsMakeTheLoadUneven) {
  ParticlesOptions o = small(6);
  const LoadStats blobs =
      load_stats(pe_loads(generate_particles(o), current_assignment(generate_particles(o))));
  o.blobs = 0;
  const Instance uniform = generate_particles(o);
  const LoadStats flat = load_stats(pe_loads(uniform, current_assignment(uniform)));
  EXPECT_GT(blobs.imbalance, 0.5);
  EXPECT_LT(flat.imbalance, blobs.imbalance / 3);
  o.particles = 0;
  const Instance empty = generate_particles(o);
  EXPECT_TRUE(empty.hyperedges.empty());
  EXPECT_TRUE(empty.edges.empty());
  for (const Object& obj : empty.objects) EXPECT_EQ(obj.load, o.cell_cost);
}

// The message of the std::invalid_argument that `change` provokes.
std::string rejection(void (*change)(ParticlesOptions&)) {
  ParticlesOptions o = small();
  change(o);
  try {
    generate_particles(o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Particles, BadOptionsAreRejectedNamingTheOption) {
  EXPECT_EQ(rejection([](ParticlesOptions& o) { o.cutoff = 2.5; }),
            "particles: cutoff must be in (0, 2], got 2.5");
  EXPECT_EQ(rejection([](ParticlesOptions& o) { o.cutoff = 0.0; }),
            "particles: cutoff must be in (0, 2], got 0");
  EXPECT_EQ(rejection([](ParticlesOptions& o) { o.blob_fraction = 1.5; }),
            "particles: blob_fraction must be in [0, 1], got 1.5");
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.blob_radius = 0.0; }).find("blob_radius"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.nz = 0; }).find("nz must be >= 1"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.pes = 0; }).find("pes must be >= 1"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.particles = -1; }).find("particles must be"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.blobs = -2; }).find("blobs must be"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.cell_cost = 0.0; }).find("cell_cost"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) { o.pair_cost = -1.0; }).find("pair_cost"),
            std::string::npos);
  EXPECT_NE(rejection([](ParticlesOptions& o) {
              o.nx = 1 << 20;
              o.ny = 1 << 10;
              o.nz = 1 << 10;
            }).find("nx * ny * nz must be"),
            std::string::npos);
  EXPECT_EQ(rejection([](ParticlesOptions&) {}), "");
}

}  // namespace
}  // namespace vela::lb
