// Indices and shapes of collections (1-D, 2-D, 3-D), and how elements are first placed.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "vela/lb/model/instance.hpp"
#include "vela/pup/pup.hpp"

namespace vela::rt {

using PeId = lb::PeId;

struct Index {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::int32_t z = 0;

  friend bool operator==(const Index&, const Index&) = default;
  void pup(pup::Archive& ar) { ar | x | y | z; }
};

// The extent of a collection; unused dimensions are 1.
struct Shape {
  std::int32_t nx = 1;
  std::int32_t ny = 1;
  std::int32_t nz = 1;
  int dims = 1;

  static Shape line(std::int32_t n) { return {n, 1, 1, 1}; }
  static Shape grid(std::int32_t nx, std::int32_t ny) { return {nx, ny, 1, 2}; }
  static Shape box(std::int32_t nx, std::int32_t ny, std::int32_t nz) { return {nx, ny, nz, 3}; }

  std::uint64_t size() const {
    return static_cast<std::uint64_t>(nx) * static_cast<std::uint64_t>(ny) *
           static_cast<std::uint64_t>(nz);
  }
  bool contains(const Index& i) const {
    return i.x >= 0 && i.x < nx && i.y >= 0 && i.y < ny && i.z >= 0 && i.z < nz;
  }
  std::uint64_t linear(const Index& i) const {
    return static_cast<std::uint64_t>(i.x) +
           static_cast<std::uint64_t>(nx) *
               (static_cast<std::uint64_t>(i.y) +
                static_cast<std::uint64_t>(ny) * static_cast<std::uint64_t>(i.z));
  }
  Index at(std::uint64_t linear) const {
    const auto sx = static_cast<std::uint64_t>(nx), sy = static_cast<std::uint64_t>(ny);
    return {static_cast<std::int32_t>(linear % sx), static_cast<std::int32_t>((linear / sx) % sy),
            static_cast<std::int32_t>(linear / (sx * sy))};
  }
  void pup(pup::Archive& ar) { ar | nx | ny | nz | dims; }
};

std::string to_string(const Index& index, int dims);

// Initial placement of a collection's elements.
enum class InitialMap {
  block,        // contiguous blocks: 1-D ranges, 2-D rectangles (Rodrigues), 3-D slabs
  round_robin,  // linear index modulo the number of PEs
  ranges,       // contiguous ranges of the linear (x fastest) order, sizes differing by <= 1
};

// A user's initial map: the PE of each index (must be in [0, pes)).
using UserMap = std::function<PeId(const Index&, const Shape&, PeId pes)>;

}  // namespace vela::rt
